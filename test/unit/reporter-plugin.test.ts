import { describe, expect, test } from 'vitest'
import { LlmConsoleReporter } from '../../reporters/index.ts'
import { isLlmConsoleReporter } from '../../reporters/console-reporter.ts'
import { llmBench, type LlmBenchPluginOptions } from '../../src/vitest/plugin.ts'
import { PROVIDED_KEY } from '../../src/bench/provided.ts'

/** Runs the plugin's `configureVitest` hook against a minimal Vitest and project. */
function configure(options: LlmBenchPluginOptions, reporters: unknown[], projects = 1): Array<Record<string, unknown>> {
  const provided: Array<Record<string, unknown>> = []
  const vitest = { config: { reporters, snapshotOptions: { updateSnapshot: 'new' }, root: '/repo' } }
  const plugin = llmBench(options)
  const hook = plugin.configureVitest as unknown as (context: unknown) => void
  for (let i = 0; i < projects; i++) {
    const project = {
      provide: (key: string, value: Record<string, unknown>) => {
        expect(key).toBe(PROVIDED_KEY)
        provided.push(value)
      },
    }
    hook({ vitest, project })
  }
  return provided
}

describe('llmBench plugin and the console reporter', () => {
  test('adds one console reporter beside the configured reporters, however many projects', () => {
    const reporters: unknown[] = [['default', {}]]
    configure({}, reporters, 2)
    expect(reporters.filter(isLlmConsoleReporter)).toHaveLength(1)
    expect(reporters[0]).toEqual(['default', {}])
  })

  test('adds none with reporters: false, and never a second one next to the user’s', () => {
    const none: unknown[] = []
    configure({ reporters: false }, none)
    expect(none.filter(isLlmConsoleReporter)).toEqual([])
    const own = new LlmConsoleReporter({ progress: false })
    const listed: unknown[] = [own]
    configure({}, listed)
    expect(listed.filter(isLlmConsoleReporter)).toEqual([own])
  })

  test('asks benches for progress only when a console reporter shows it', () => {
    expect(configure({}, [new LlmConsoleReporter({ progress: true })])[0]?.progress).toBe(true)
    expect(configure({}, [new LlmConsoleReporter({ progress: false })])[0]).not.toHaveProperty('progress')
    expect(configure({ reporters: false }, [])[0]).not.toHaveProperty('progress')
  })
})
