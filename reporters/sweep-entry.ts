import type {
  CapacityResult,
  SaturationPoint,
  ScenarioOutcome,
  SweepCheck,
  SweepResult,
} from '../src/core/sweep/index.ts'
import { formatSweepHeadlines, formatSweepTable, shownTailOf } from '../src/core/sweep/index.ts'
import type { CurveSpec } from './html/svg-chart.ts'
import type { BenchTestState, ReportEntry, TestCaseLike } from './report-entry.ts'
import { isBenchmarkResult } from '../src/core/contract/result-guard.ts'
import { isRecord } from '../src/core/contract/is-record.ts'
import { NOT_JUDGED, PROVISIONAL } from '../src/bench/baseline-state.ts'

/** What a sweep found, for the reports: its headlines (knee, capacity, scenario), checks and curve table. */
export interface SweepSummary {
  /** The sweep's test name with its describe path. */
  name: string
  file: string
  /** State of the Vitest test: a sweep whose checks failed is `failed`. */
  state: BenchTestState
  kind: SweepResult['kind']
  /** What the points' value is (`concurrency`, `rate`). */
  axis: string
  /** One line each: the scenario with its constraint and metric, the capacity found, the knee. */
  headlines: string[]
  /** Every assertion made on the curve, passing ones included. */
  checks: SweepCheck[]
  /** The curve as a fixed-width text table (throughputs per second, latencies in ms). */
  table: string
  knee?: SaturationPoint
  capacity?: CapacityResult
  scenario?: ScenarioOutcome
  warnings: string[]
  /** What happened to its baseline entry (`provisional`: recorded on a disturbed machine); absent without baselines. */
  baselineState?: string
}

/**
 * The swept value a sweep's answer names, the point its chart and table single out: the knee of a
 * sweep that saturated, or the capacity a search (or a scenario's search) found; undefined when it has neither.
 */
export function answerValueOf(sweep: Pick<SweepSummary, 'kind' | 'knee' | 'capacity'>): number | undefined {
  if (sweep.kind === 'sweep') return sweep.knee?.saturated ? sweep.knee.value : undefined
  return sweep.capacity?.rate
}

/** Overall status of a sweep. */
export type SweepStatus = 'pass' | 'fail' | 'inconclusive' | 'skipped'

/** A sweep's status: its test state and checks together. */
export function sweepStatus(sweep: Pick<SweepSummary, 'state' | 'checks' | 'baselineState'>): SweepStatus {
  if (sweep.state === 'skipped' || sweep.state === 'pending') return 'skipped'
  if (sweep.state === 'failed' || sweep.checks.some((check) => check.status === 'fail')) return 'fail'
  // As a bench: a check the run cannot support, a curve not judged or recorded provisionally on a disturbed machine.
  if (sweep.checks.some((check) => check.status === 'inconclusive')) return 'inconclusive'
  return sweep.baselineState === PROVISIONAL || sweep.baselineState === NOT_JUDGED ? 'inconclusive' : 'pass'
}

/** A sweep (`bench.llm.sweep`) as reporters see it: one entry per point, and its curve. */
export interface SweepReport {
  /** One entry per point, named `<sweep> [<axis>=<value>]`, in value order. */
  entries: ReportEntry[]
  /**
   * Output tokens/s against TTFT p99 (p90 for a capacity search whose limits are at p90, as its table),
   * one labelled point per swept value.
   */
  curve: CurveSpec
  /** Headlines, checks and table; absent for a sweep result without its curve (an older format). */
  summary?: SweepSummary
}

/**
 * The sweep of a test case (task meta `llmBenchSweep`), read by shape so that reporters keep
 * working while the sweep format grows; undefined for any other test.
 */
export function sweepReportOf(testCase: TestCaseLike): SweepReport | undefined {
  const meta: unknown = testCase.meta().llmBenchSweep
  if (!isRecord(meta) || !isRecord(meta.result) || !Array.isArray(meta.result.points)) return undefined
  // A sweep over a server argument is labelled by the argument (`-np 4`), others by their axis (`concurrency 4`).
  const axis =
    typeof meta.result.serverArg === 'string'
      ? meta.result.serverArg
      : typeof meta.result.axis === 'string'
        ? meta.result.axis
        : 'value'
  const outcome = testCase.result()
  const state: BenchTestState =
    outcome.state === 'passed' || outcome.state === 'failed' || outcome.state === 'skipped' ? outcome.state : 'pending'
  // The tail the sweep is judged at: a capacity search's limits may be at p90, and its curve is drawn at the same.
  const tail =
    typeof meta.result.kind === 'string'
      ? shownTailOf(meta.result as unknown as Pick<SweepResult, 'kind' | 'capacity'>)
      : 'p99'
  const entries: ReportEntry[] = []
  const points: CurveSpec['points'] = []
  /** The swept value of each point in `points`. */
  const values: number[] = []
  for (const point of meta.result.points) {
    if (!isRecord(point) || typeof point.value !== 'number' || !isBenchmarkResult(point.result)) continue
    const label = `${axis} ${point.value}`
    entries.push({
      name: `${testCase.fullName} [${axis}=${point.value}]`,
      file: testCase.module.relativeModuleId ?? testCase.module.moduleId,
      // The sweep's checks judge the whole curve: every point carries the sweep's test state,
      // and is `measured`, not passed or failed, on its own.
      state,
      result: point.result,
      sweep: { name: testCase.fullName, axis, value: point.value },
    })
    if (point.result.metrics.ttftMs.count > 0) {
      points.push({ x: point.result.metrics.ttftMs[tail], y: point.result.throughput.outputTokensPerSec, label })
      values.push(point.value)
    }
  }
  if (entries.length === 0) return undefined
  const report: SweepReport = {
    entries,
    curve: {
      sweep: testCase.fullName,
      title: `${testCase.fullName}: output tokens/s against TTFT ${tail}`,
      xLabel: `TTFT ${tail} (ms)`,
      yLabel: 'output tokens/s',
      points,
    },
  }
  if (Array.isArray(meta.result.curve) && typeof meta.result.kind === 'string') {
    const result = meta.result as unknown as SweepResult
    const summary: SweepSummary = {
      name: testCase.fullName,
      file: entries[0]!.file,
      state,
      kind: result.kind,
      axis,
      headlines: formatSweepHeadlines(result),
      checks: Array.isArray(meta.checks) ? (meta.checks as SweepCheck[]) : [],
      table: formatSweepTable(result),
      warnings: Array.isArray(result.warnings) ? result.warnings : [],
    }
    if (typeof meta.baselineState === 'string') summary.baselineState = meta.baselineState
    if (result.knee) summary.knee = result.knee
    if (result.capacity) summary.capacity = result.capacity
    if (result.scenario) summary.scenario = result.scenario
    report.summary = summary
    const answer = answerValueOf(summary)
    points.forEach((point, index) => {
      if (answer !== undefined && values[index] === answer) point.emphasis = true
    })
  }
  return report
}
