import { describe, expect, test, vi } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { ObsoleteBaselineReporter } from '../../src/vitest/obsolete-baselines.ts'
import { llmBench } from '../../src/vitest/plugin.ts'

type ConfigureVitest = (context: unknown) => void

function fakeVitest(updateSnapshot: 'all' | 'new' | 'none') {
  return { config: { snapshotOptions: { updateSnapshot }, reporters: [] as unknown[], root: '/' } }
}

describe('llmBench plugin', () => {
  test('a typo in the default tolerance fails when the config loads', () => {
    expect(() => llmBench({ tolerance: { ttftMs: { p98: '+5%' } } as never })).toThrow(OptionsError)
    expect(() => llmBench({ tolerance: { ttftMs: { p98: '+5%' } } as never })).toThrow(
      /llmBench\(\{ tolerance \}\)\.ttftMs\.p98/,
    )
    expect(() => llmBench({ tolerance: { ttftMs: { p99: '+5%' } } })).not.toThrow()
  })

  test('adds its global setup and hands the update mode (-u) and settings to the benches', () => {
    const plugin = llmBench({ baselineDir: 'perf-baselines', tolerance: { ttftMs: { p99: '+5%' } } })
    const config = (plugin.config as () => { test: { globalSetup: string[] } })()
    expect(config.test.globalSetup).toHaveLength(1)
    expect(config.test.globalSetup[0]).toMatch(/global-setup\.(ts|js)$/)
    const vitest = fakeVitest('all')
    const provide = vi.fn()
    ;(plugin.configureVitest as ConfigureVitest)({ vitest, project: { provide } })
    expect(provide).toHaveBeenCalledWith(
      'vitest-llm-bench',
      expect.objectContaining({ update: 'all', baselineDir: 'perf-baselines', tolerance: { ttftMs: { p99: '+5%' } } }),
    )
  })

  test('registers one obsolete-baseline reporter per Vitest instance, however many projects use it', () => {
    const vitest = fakeVitest('new')
    const plugin = llmBench()
    ;(plugin.configureVitest as ConfigureVitest)({ vitest, project: { provide: vi.fn() } })
    ;(plugin.configureVitest as ConfigureVitest)({ vitest, project: { provide: vi.fn() } })
    expect(vitest.config.reporters.filter((reporter) => reporter instanceof ObsoleteBaselineReporter)).toHaveLength(1)
    const other = fakeVitest('new')
    ;(llmBench().configureVitest as ConfigureVitest)({ vitest: other, project: { provide: vi.fn() } })
    expect(other.config.reporters.filter((reporter) => reporter instanceof ObsoleteBaselineReporter)).toHaveLength(1)
  })
})
