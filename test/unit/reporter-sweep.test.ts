/** A sweep's knee, checks and curve reach the console, the Markdown summary and the JSON report. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { checkSweep, runSweep, type SweepCheck, type SweepResult } from '../../src/core/sweep/index.ts'
import {
  BENCHMARK_RESULT_SCHEMA,
  JsonSchemaValidator,
  REPORT_SCHEMA,
  REPORT_SCHEMA_ID,
} from '../../src/core/contract/json-schema/index.ts'
import { startSimulator } from '../../src/sim/index.ts'
import type { RunningSimulator } from '../../src/sim/index.ts'
import { renderConsoleSweep } from '../../reporters/console-table.ts'
import { collectReport } from '../../reporters/file-reporter.ts'
import { toJsonReport } from '../../reporters/json-report.ts'
import { renderMarkdown } from '../../reporters/markdown.ts'
import { renderHtml } from '../../reporters/html/html-report.ts'
import { entryStatus, type ReportEntry } from '../../reporters/report-entry.ts'
import { reportEntries } from '../helpers/reporter-fixtures.ts'

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
    const collected = collectReport([
      {
        children: {
          *allTests() {
            yield sweepCase('failed')
          },
        },
      } as never,
    ])
    expect(collected.entries).toHaveLength(3)
    expect(collected.sweeps).toHaveLength(1)
    const [sweep] = collected.sweeps
    expect(sweep).toMatchObject({
      name: 'chat > concurrency sweep',
      file: 'benches/sweep.bench.ts',
      kind: 'sweep',
      axis: 'concurrency',
      state: 'failed',
    })
    expect(sweep!.headlines.some((line) => line.startsWith('knee: '))).toBe(true)
    // Header, three points, and the legend of the knee mark.
    expect(sweep!.table.split('\n').filter((line) => !line.startsWith('<- knee'))).toHaveLength(4)
    expect(sweep!.checks.map((check) => check.status)).toEqual(['fail'])
  })

  test('console, Markdown and JSON say the knee, each check and the curve; the JSON follows its schema', () => {
    const { sweeps, entries } = collectReport([
      {
        children: {
          *allTests() {
            yield sweepCase('failed')
          },
        },
      } as never,
    ])
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

    const json = JSON.parse(
      JSON.stringify(toJsonReport(entries, { sweeps, generatedAt: '2026-11-29T00:00:00.000Z' })),
    ) as { sweeps: Array<Record<string, unknown>> }
    expect(json.sweeps).toHaveLength(1)
    expect(json.sweeps[0]).toMatchObject({
      name: 'chat > concurrency sweep',
      status: 'fail',
      kind: 'sweep',
      axis: 'concurrency',
    })
    expect(json.sweeps[0]).not.toHaveProperty('table')
    expect(json.sweeps[0]!.knee).toEqual(JSON.parse(JSON.stringify(result.knee)))
    expect(new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA]).validate(REPORT_SCHEMA_ID, json)).toEqual(
      [],
    )
  })

  test('a passing sweep is pass; a report without sweeps has no sweeps key', () => {
    const { sweeps, entries } = collectReport([
      {
        children: {
          *allTests() {
            yield { ...sweepCase('passed'), meta: () => ({ llmBenchSweep: { result, checks: [] } }) }
          },
        },
      } as never,
    ])
    expect(renderConsoleSweep(sweeps[0]!)).toMatch(/^✓ chat > concurrency sweep/)
    expect(toJsonReport(entries, { sweeps }).sweeps?.[0]?.status).toBe('pass')
    expect(toJsonReport(entries)).not.toHaveProperty('sweeps')
  })

  test('sweep points are not benches: counted apart, marked measured, no section each; a warning on every entry is said once', () => {
    const collected = collectReport([
      {
        children: {
          *allTests() {
            yield sweepCase('passed')
          },
        },
      } as never,
    ])
    const gpu = 'No GPU telemetry: nvidia-smi not found.'
    const withGpuNote = (entry: ReportEntry): ReportEntry => ({
      ...entry,
      result: { ...entry.result, warnings: [...entry.result.warnings, gpu] },
    })
    const bench = withGpuNote(reportEntries()[0]!)
    const entries = [bench, ...collected.entries.map(withGpuNote)]
    expect(collected.entries.map(entryStatus)).toEqual(['measured', 'measured', 'measured'])
    expect(collected.entries[2]!.sweep).toEqual({ name: 'chat > concurrency sweep', axis: 'concurrency', value: 4 })
    // Today's fixture: the bench passes, the sweep's check fails.
    const markdown = renderMarkdown(entries, { sweeps: collected.sweeps })
    expect(markdown.split('\n')[0]).toBe('## LLM benchmarks: ✅ 1 pass; sweeps: ❌ 1 fail')
    expect(markdown).toContain('| 📏 | chat > concurrency sweep [concurrency=4] |')
    expect(markdown).not.toMatch(/^### .*\[concurrency=/m)
    expect(markdown.split(gpu)).toHaveLength(2)
    expect(markdown).toContain(`> ⚠️ ${gpu} (every bench)`)
    const html = renderHtml(entries, { sweeps: collected.sweeps, generatedAt: '2026-12-01T00:00:00.000Z' })
    expect(html).toContain('1 bench · 1 pass · 1 sweep (1 fail) · generated 2026-12-01T00:00:00.000Z')
    // One section for the sweep, its points as rows of its table: no card or section per point.
    expect(html.match(/<section class="bench sweep"/g)).toHaveLength(1)
    expect(html.match(/<section class="bench"/g)).toHaveLength(1)
    expect(html).not.toContain('[concurrency=')
    const json = JSON.parse(JSON.stringify(toJsonReport(entries, { sweeps: collected.sweeps }))) as {
      benches: Array<{ status: string; sweep?: unknown }>
    }
    expect(json.benches.map((b) => b.status)).toEqual(['pass', 'measured', 'measured', 'measured'])
    expect(json.benches[1]!.sweep).toEqual({ name: 'chat > concurrency sweep', axis: 'concurrency', value: 1 })
    expect(new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA]).validate(REPORT_SCHEMA_ID, json)).toEqual(
      [],
    )
  })
})
