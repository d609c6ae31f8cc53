/** A sweep's knee, checks and curve reach the console, the Markdown summary and the JSON report. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { checkSweep, runSweep, type SweepCheck, type SweepResult } from '../../src/core/sweep/index.ts'
import { BENCHMARK_RESULT_SCHEMA, JsonSchemaValidator, REPORT_SCHEMA, REPORT_SCHEMA_ID } from '../../src/core/json-schema/index.ts'
import { startSimulator } from '../../src/sim/index.ts'
import type { RunningSimulator } from '../../src/sim/index.ts'
import { renderConsoleSweep } from '../../reporters/console-table.ts'
import { collectReport } from '../../reporters/file-reporter.ts'
import { toJsonReport } from '../../reporters/json-report.ts'
import { renderMarkdown } from '../../reporters/markdown.ts'

let sim: RunningSimulator
let result: SweepResult
let checks: SweepCheck[]

beforeAll(async () => {
  // Speed 0: no modeled delay, so the sweep takes well under a second.
  sim = await startSimulator({ speedFactor: 0 })
  result = await runSweep(
    {
      target: { baseUrl: sim.url },
      workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
      over: { concurrency: [1, 2, 4] },
      load: { requests: 12 },
      seed: 1,
    },
    { skipGpu: true },
  )
  checks = checkSweep(result, { throughput: [{ at: 4, metric: 'outputTokensPerSec', min: 1e12 }] })
}, 60_000)
afterAll(() => sim.close())

function sweepCase(state: 'passed' | 'failed') {
  return {
    fullName: 'chat > concurrency sweep',
    module: { moduleId: '/repo/benches/sweep.bench.ts', relativeModuleId: 'benches/sweep.bench.ts' },
    meta: () => ({ llmBenchSweep: { result: JSON.parse(JSON.stringify(result)) as unknown, checks } }),
    result: () => ({ state }),
  }
}

describe('sweep summaries in the reports', () => {
  test('collectReport keeps a summary beside the per-point entries', () => {
    const collected = collectReport([{ children: { *allTests() { yield sweepCase('failed') } } } as never])
    expect(collected.entries).toHaveLength(3)
    expect(collected.sweeps).toHaveLength(1)
    const [sweep] = collected.sweeps
    expect(sweep).toMatchObject({ name: 'chat > concurrency sweep', file: 'benches/sweep.bench.ts', kind: 'sweep', axis: 'concurrency', state: 'failed' })
    expect(sweep!.headlines.some((line) => line.startsWith('knee: '))).toBe(true)
    expect(sweep!.table.split('\n')).toHaveLength(4)
    expect(sweep!.checks.map((check) => check.status)).toEqual(['fail'])
  })

  test('console, Markdown and JSON say the knee, each check and the curve; the JSON follows its schema', () => {
    const { sweeps, entries } = collectReport([{ children: { *allTests() { yield sweepCase('failed') } } } as never])
    const sweep = sweeps[0]!
    const console = renderConsoleSweep(sweep)
    expect(console).toContain('✗ chat > concurrency sweep (benches/sweep.bench.ts, sweep over concurrency)')
    expect(console).toContain(sweep.headlines[0])
    expect(console).toMatch(/fail output tokens\/s at concurrency 4: /)
    expect(console).toContain(sweep.table.split('\n')[0])

    const markdown = renderMarkdown(entries, { sweeps })
    expect(markdown).toContain('### ❌ chat > concurrency sweep (sweep over concurrency)')
    expect(markdown).toContain(`- ${sweep.headlines[0]}`)
    expect(markdown).toMatch(/- ❌ output tokens\/s at concurrency 4: /)
    expect(markdown).toContain(`\`\`\`\n${sweep.table}\n\`\`\``)

    const json = JSON.parse(JSON.stringify(toJsonReport(entries, { sweeps, generatedAt: '2026-11-29T00:00:00.000Z' }))) as { sweeps: Array<Record<string, unknown>> }
    expect(json.sweeps).toHaveLength(1)
    expect(json.sweeps[0]).toMatchObject({ name: 'chat > concurrency sweep', status: 'fail', kind: 'sweep', axis: 'concurrency' })
    expect(json.sweeps[0]).not.toHaveProperty('table')
    expect(json.sweeps[0]!.knee).toEqual(JSON.parse(JSON.stringify(result.knee)))
    expect(new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA]).validate(REPORT_SCHEMA_ID, json)).toEqual([])
  })

  test('a passing sweep is pass; a report without sweeps has no sweeps key', () => {
    const { sweeps, entries } = collectReport([{ children: { *allTests() { yield { ...sweepCase('passed'), meta: () => ({ llmBenchSweep: { result, checks: [] } }) } } } } as never])
    expect(renderConsoleSweep(sweeps[0]!)).toMatch(/^✓ chat > concurrency sweep/)
    expect(toJsonReport(entries, { sweeps }).sweeps?.[0]?.status).toBe('pass')
    expect(toJsonReport(entries)).not.toHaveProperty('sweeps')
  })
})
