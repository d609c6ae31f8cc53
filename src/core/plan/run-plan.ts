import { OptionsError } from '../contract/errors.ts'
import { isRecord } from '../contract/is-record.ts'
import type {
  BenchmarkOptions,
  CostOptions,
  GoodputLimits,
  LoadOptions,
  ResolvedLoad,
  ResolvedStopWhen,
  ResolvedWarmup,
  SegmentOptions,
  ServerMetricsOptions,
  WarmupOptions,
} from '../contract/options.ts'
import type { RequestShape, WorkloadOptions } from '../contract/workload-options.ts'
import { stopCountOf, validateLoad, validateWarmupOptions } from '../load/index.ts'
import { validateCostOptions } from '../metrics/cost.ts'
import { resolveGoodputLimits } from '../metrics/goodput.ts'
import { validateServerMetricsOptions } from '../server/metrics/index.ts'
import { SESSION_WORKLOAD_KINDS, WORKLOAD_KINDS } from '../workload/create-workload.ts'
import { rejectUnknownWorkloadKeys } from '../workload/workload-keys.ts'
import { resolveRequestShape } from '../workload/request-shape.ts'
import { resolveWorkers } from '../workers/index.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'
import { resolveLoad, resolveWarmup } from './resolve-load.ts'
import { planSoak, type ResolvedSoak } from '../soak/soak-options.ts'
import { resolveStopWhen } from './resolve-stop-when.ts'

/** `workers` as given when it is a number (resolveWorkers checks it later), else the default of one thread. */
function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback
}

/**
 * What a run needs apart from its target, every option checked once ({@link planRun}) and every
 * default applied. The stages below take these and check nothing again.
 */
export interface RunPlan {
  /** What is sent (paths still relative to the bench file's folder; the run resolves them). */
  readonly workload: WorkloadOptions
  /** The workload's tools, checked: what the client adds to every request. Undefined: none. */
  readonly requestShape: RequestShape | undefined
  /** The load, checked and resolved (a trace workload lets it leave out `requests` and `durationMs`). */
  readonly load: ResolvedLoad
  /** The warm-up, checked and resolved against the load; undefined: none (left out, or 0 requests and 0 ms). */
  readonly warmup: ResolvedWarmup | undefined
  /** Seed of every random choice (arrivals, prompts, lengths). Default 0. */
  readonly seed: number
  /** Goodput limits in milliseconds, checked; undefined: goodput is not reported. */
  readonly goodput: GoodputLimits | undefined
  /** Cost options, checked; undefined: cost is not reported. */
  readonly cost: CostOptions | undefined
  /** Server-metrics options, checked; resolved against the target when the run starts. */
  readonly serverMetrics: ServerMetricsOptions | false | undefined
  /** Load-generator threads. Default 1. */
  readonly workers: number
  /** Keep every request record in the result. Default false. */
  readonly recordRequests: boolean
  /** This host's segment of a load split over machines, checked; undefined: the whole load. */
  readonly segment: SegmentOptions | undefined
  /** The safety stop, checked, its defaults applied; undefined: the load runs to its end. */
  readonly stopWhen: ResolvedStopWhen | undefined
  /** The soak, checked and defaulted; undefined: not a soak. */
  readonly soak: ResolvedSoak | undefined
}

const whole = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min

/** Checks `segment` against the load: every segment must get something to do. */
function checkSegment(segment: unknown, load: LoadOptions, workers: number): SegmentOptions | undefined {
  if (segment === undefined) return undefined
  const fix = 'Set LLM_BENCH_SEGMENT=i/N (1 <= i <= N), or JOB_COMPLETION_INDEX (0-based) with LLM_BENCH_SEGMENTS=N.'
  if (!isRecord(segment)) throw new OptionsError('segment', 'must be an object { index, count, startAtMs? }', fix)
  const { index, count, startAtMs } = segment
  if (!whole(count, 1))
    throw new OptionsError('segment.count', `must be a whole number >= 1, got ${String(count)}`, fix)
  if (!whole(index, 1) || index > count)
    throw new OptionsError('segment.index', `must be a whole number from 1 to ${count}, got ${String(index)}`, fix)
  if (startAtMs !== undefined && !(typeof startAtMs === 'number' && Number.isFinite(startAtMs) && startAtMs > 0)) {
    throw new OptionsError(
      'segment.startAtMs',
      `must be a wall-clock time in epoch milliseconds, got ${String(startAtMs)}`,
      'Set LLM_BENCH_START_AT to e.g. $(( $(date +%s) * 1000 + 60000 )): one minute from now, the same on every host.',
    )
  }
  if (workers > 1)
    throw new OptionsError(
      'workers',
      `${workers} threads and a segment cannot be combined`,
      'Leave `workers` out on a segmented run, or run more segments.',
    )
  if (load.rate === undefined && load.concurrency !== undefined && load.concurrency < count) {
    throw new OptionsError(
      'segment.count',
      `${count} segments cannot share load.concurrency = ${load.concurrency}`,
      `Use at most ${load.concurrency} segments, or raise the concurrency.`,
    )
  }
  const stop = stopCountOf(load)
  if (stop.count !== undefined && stop.count < count) {
    throw new OptionsError(
      'segment.count',
      `${count} segments cannot share ${stop.count} ${stop.unit}`,
      'Use fewer segments, or send more.',
    )
  }
  return { index, count, ...(startAtMs !== undefined ? { startAtMs } : {}) }
}

/**
 * Checks every option of {@link BenchmarkOptions} but `target` and returns the {@link RunPlan}:
 * the one place they are parsed. Throws {@link OptionsError} naming the first wrong option and
 * what to give instead, before anything is sent.
 */
export function planRun(options: Omit<BenchmarkOptions, 'target'>): RunPlan {
  if (!isRecord(options)) {
    throw new OptionsError('options', 'expected an object', 'Pass `{ target, workload, load }` to runBenchmark().')
  }
  const { workload, load, warmup, seed, goodput, cost, serverMetrics } = options as Record<string, unknown>
  if (!isRecord(workload)) {
    throw new OptionsError(
      'workload',
      'missing',
      "Say what to send, e.g. `workload: { kind: 'synthetic', inputTokens: { mean: 128 }, outputTokens: { mean: 128 } }`.",
    )
  }
  if (!WORKLOAD_KINDS.includes(workload.kind as string)) {
    throw new OptionsError(
      'workload.kind',
      `unknown kind '${String(workload.kind)}'`,
      `Use one of ${WORKLOAD_KINDS.map((k) => `'${k}'`).join(', ')}.`,
    )
  }

  rejectUnknownWorkloadKeys(workload)
  const requestShape = resolveRequestShape(workload as unknown as WorkloadOptions)

  if (!isRecord(load)) {
    throw new OptionsError(
      'load',
      'missing',
      'Say how much load to apply, e.g. `load: { concurrency: 8, requests: 200 }` or `load: { rate: 10, requests: 200 }`.',
    )
  }
  const sessions = SESSION_WORKLOAD_KINDS.includes(workload.kind as string)
  const trace = workload.kind === 'trace' || workload.kind === 'agentic-trace'
  const soak = planSoak(options.soak, load as unknown as LoadOptions, numberOr(options.workers, 1))
  if (soak && trace) {
    throw new OptionsError('soak', 'cannot replay a trace: its timestamps set every send', 'Use another workload.')
  }
  if (soak && options.segment !== undefined) {
    throw new OptionsError('soak', 'cannot be split over hosts', 'Run a soak on one host: leave LLM_BENCH_SEGMENT out.')
  }
  // A soak runs for its duration: the load is bounded by it.
  const measuredLoad: Record<string, unknown> = soak ? { ...load, durationMs: soak.durationMs } : load
  validateLoad(measuredLoad, { trace, sessions })
  const workers = resolveWorkers(options.workers, measuredLoad)
  if (sessions && workers > 1) {
    throw new OptionsError(
      'workers',
      `${workers} threads cannot share a session workload (a session's turns follow each other on one client)`,
      'Leave `workers` out (1) for session workloads.',
    )
  }

  if (warmup !== undefined) validateWarmupOptions(warmup)
  if (seed !== undefined && !Number.isInteger(seed)) {
    throw new OptionsError('seed', `must be an integer, got ${String(seed)}`, 'e.g. `seed: 42`.')
  }
  let goodputLimits: GoodputLimits | undefined
  if (goodput !== undefined) {
    if (!isRecord(goodput))
      throw new OptionsError('goodput', 'must be an object', 'e.g. `goodput: { ttftMs: 500, tpotMs: 50 }`.')
    rejectUnknownKeys(goodput, ['ttftMs', 'tpotMs', 'e2eMs'], 'goodput')
    goodputLimits = resolveGoodputLimits(goodput)
  }
  if (cost !== undefined) validateCostOptions(cost)
  validateServerMetricsOptions(serverMetrics)
  // A trace's timestamps set every send: its load is no open loop, whatever `rate` says (the run warns).
  const schedule = trace ? 'trace' : load.rate !== undefined ? 'open' : 'closed'
  const resolvedLoad = resolveLoad(measuredLoad as unknown as LoadOptions, schedule)
  return {
    workload: workload as unknown as WorkloadOptions,
    requestShape,
    load: resolvedLoad,
    warmup: warmup === undefined ? undefined : resolveWarmup(warmup as WarmupOptions, resolvedLoad),
    seed: (seed as number | undefined) ?? 0,
    goodput: goodputLimits,
    cost: cost as CostOptions | undefined,
    serverMetrics: serverMetrics as ServerMetricsOptions | false | undefined,
    workers,
    recordRequests: options.recordRequests === true,
    segment: checkSegment(options.segment, measuredLoad as unknown as LoadOptions, workers),
    soak,
    stopWhen: resolveStopWhen(options.stopWhen, { workers, segmented: options.segment !== undefined }),
  }
}
