import type { CurveSpec } from './html/html-report.ts'
import { isBenchmarkResult, type BenchTestState, type ReportEntry, type TestCaseLike } from './report-entry.ts'
import { isRecord } from '../src/core/is-record.ts'


/** A sweep (`bench.llm.sweep`) as reporters see it: one entry per point, and its curve. */
export interface SweepReport {
  /** One entry per point, named `<sweep> [<axis>=<value>]`, in value order. */
  entries: ReportEntry[]
  /** Output tokens/s against TTFT p99, one labelled point per swept value. */
  curve: CurveSpec
}

/**
 * The sweep of a test case (task meta `llmBenchSweep`), read by shape so that reporters keep
 * working while the sweep format grows; undefined for any other test.
 */
export function sweepReportOf(testCase: TestCaseLike): SweepReport | undefined {
  const meta = (testCase.meta() as { llmBenchSweep?: unknown }).llmBenchSweep
  if (!isRecord(meta) || !isRecord(meta.result) || !Array.isArray(meta.result.points)) return undefined
  const axis = typeof meta.result.axis === 'string' ? meta.result.axis : 'value'
  const outcome = testCase.result()
  const state: BenchTestState = outcome.state === 'passed' || outcome.state === 'failed' || outcome.state === 'skipped' ? outcome.state : 'pending'
  const entries: ReportEntry[] = []
  const points: CurveSpec['points'] = []
  for (const point of meta.result.points) {
    if (!isRecord(point) || typeof point.value !== 'number' || !isBenchmarkResult(point.result)) continue
    const label = `${axis} ${point.value}`
    entries.push({
      name: `${testCase.fullName} [${axis}=${point.value}]`,
      file: testCase.module.relativeModuleId ?? testCase.module.moduleId,
      // The sweep's checks judge the whole curve: every point carries the sweep's outcome.
      state,
      result: point.result,
    })
    if (point.result.metrics.ttftMs.count > 0) points.push({ x: point.result.metrics.ttftMs.p99, y: point.result.throughput.outputTokensPerSec, label })
  }
  if (entries.length === 0) return undefined
  return {
    entries,
    curve: { title: `${testCase.fullName}: output tokens/s against TTFT p99`, xLabel: 'TTFT p99 (ms)', yLabel: 'output tokens/s', points },
  }
}
