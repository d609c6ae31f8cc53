import { runBenchmark, type RunContext } from '../run.ts'
import { prefixCacheResetUnsupported, resetPrefixCache } from '../server/index.ts'
import type { BenchmarkOptions, LoadOptions, Progress, TargetOptions } from '../contract/options.ts'
import type { BenchmarkResult } from '../contract/result.ts'
import type { RequestRecord } from '../contract/request-record.ts'
import type { SweepAxisName } from './sweep-axis.ts'
import type { SweepOptions, SweepPointLoad } from './sweep-options.ts'
import type { SweepPoint } from './sweep-result.ts'

/** What the point runner shares across the points of one sweep. */
export interface PointRunnerState {
  target: TargetOptions
  /** The run context of the server the next point measures (a hook may replace it with a restarted server's). */
  context: RunContext
  warnedNoPrefixReset: boolean
  warnings: string[]
}

/** The options every point shares: a sweep's, without the sweep-only fields. */
export type PointBaseOptions = Omit<SweepOptions, 'over' | 'saturation'>

/** Judges a point from its result and its requests; undefined: no judgement. */
export type PointJudge = (
  result: BenchmarkResult,
  records: RequestRecord[],
) => { valid: boolean; reasons: string[] } | undefined

/** The load of one point: the base load with the swept value set. */
export function pointLoad(axis: SweepAxisName, value: number, base: SweepPointLoad): LoadOptions {
  if (axis === 'serverArg') return { ...base }
  if (axis === 'concurrency') return { ...base, concurrency: value }
  return { ...base, rate: value }
}

/**
 * Runs one point: the `beforePoint` hook (which may move the target), the prefix-cache reset,
 * then `runBenchmark` with the swept value. Every run builds a new workload and so a fresh prompt
 * salt. Requests are recorded when a judge needs them and dropped from the kept result unless
 * the caller asked for them.
 */
export async function runPoint(
  options: PointBaseOptions,
  state: PointRunnerState,
  point: { axis: SweepAxisName; value: number; order: number; judge?: PointJudge },
): Promise<SweepPoint> {
  const moved = await options.beforePoint?.({ order: point.order, value: point.value })
  if (moved) {
    state.target = { ...state.target, ...moved.target }
    // The base folder of workload paths is the bench's, whichever server runs the point.
    state.context = { ...moved.context, ...(state.context.baseDir ? { baseDir: state.context.baseDir } : {}) }
  }
  if (options.between?.resetPrefixCache) {
    const reset = await resetPrefixCache(state.target.baseUrl, { apiKey: state.target.apiKey })
    if (!reset && !state.warnedNoPrefixReset) {
      state.warnedNoPrefixReset = true
      state.warnings.push(
        `between.resetPrefixCache: ${prefixCacheResetUnsupported(state.target.baseUrl)}; points may reuse cached prefixes.`,
      )
    }
  }
  const { beforePoint: _before, onPoint: _onPoint, onPointProgress, between: _between, load, ...rest } = options
  const start = { order: point.order, value: point.value }
  const keepRequests = options.recordRequests === true
  const run: BenchmarkOptions = {
    ...rest,
    target: state.target,
    load: pointLoad(point.axis, point.value, load),
    recordRequests: keepRequests || point.judge !== undefined,
    ...(onPointProgress ? { onProgress: (progress: Progress) => onPointProgress(start, progress) } : {}),
  }
  const result = await runBenchmark(run, state.context)
  const judged = point.judge?.(result, result.requests ?? [])
  if (!keepRequests) delete result.requests
  const out: SweepPoint = { value: point.value, order: point.order, result }
  if (judged) {
    out.valid = judged.valid
    out.reasons = judged.reasons
  }
  options.onPoint?.(out)
  return out
}
