import type { LoadRunOutcome, ScheduleLag } from '../load/index.ts'
import { MetricsAccumulator } from '../metrics/index.ts'
import type { StallReport, Timeline } from '../contract/result.ts'
import type { DelaySummary, MeasuredPhase } from './measured-phase.ts'
import type { WorkerPhase } from './worker-messages.ts'

/**
 * Conservative merge of per-thread lag or delay summaries: each figure is the worst thread's.
 * Percentiles of a union cannot be rebuilt from those of its parts, but the largest part's is an
 * upper bound (if no part has more than 1 % of its values above M, neither has the union), and
 * a thread that fell behind is never averaged away.
 */
export function mergeDelaySummaries(summaries: Array<DelaySummary | undefined>): DelaySummary | undefined {
  let merged: DelaySummary | undefined
  for (const s of summaries) {
    if (s === undefined) continue
    merged =
      merged === undefined
        ? { ...s }
        : { p50: Math.max(merged.p50, s.p50), p99: Math.max(merged.p99, s.p99), max: Math.max(merged.max, s.max) }
  }
  return merged
}

function sumSeries(series: number[][], length: number): number[] {
  const sum = new Array<number>(length).fill(0)
  for (const values of series)
    for (let i = 0; i < values.length; i++) sum[i] = (sum[i] as number) + (values[i] as number)
  return sum
}

/**
 * Adds timelines whose windows count from one common start: each window's requests and tokens
 * are summed. `inFlightMax` is summed too, an upper bound of the true peak (threads may peak at
 * different moments of a window). The last window is partial unless the run ended on its edge.
 */
export function mergeTimelines(
  timelines: Array<Timeline | undefined>,
  start: number,
  end: number,
): Timeline | undefined {
  const present = timelines.filter((t): t is Timeline => t !== undefined)
  const first = present[0]
  if (first === undefined) return undefined
  const windows = Math.max(...present.map((t) => t.requests.length))
  const lastWindowMs = windows === 0 ? 0 : end - start - (windows - 1) * first.windowMs
  const round = (values: number[]): number[] => values.map((v) => Math.round(v * 1000) / 1000)
  return {
    windowMs: first.windowMs,
    requests: sumSeries(
      present.map((t) => t.requests),
      windows,
    ),
    outputTokens: round(
      sumSeries(
        present.map((t) => t.outputTokens),
        windows,
      ),
    ),
    totalTokens: round(
      sumSeries(
        present.map((t) => t.totalTokens),
        windows,
      ),
    ),
    inFlightMax: sumSeries(
      present.map((t) => t.inFlightMax),
      windows,
    ),
    lastWindowPartial: lastWindowMs < first.windowMs,
  }
}

/** Warnings of several threads: one that every thread gave appears once, others name their thread. */
export function mergeWarnings(perThread: string[][]): string[] {
  const threads = perThread.length
  const seen = new Map<string, number[]>()
  perThread.forEach((warnings, thread) => {
    for (const warning of new Set(warnings)) seen.set(warning, [...(seen.get(warning) ?? []), thread])
  })
  const merged: string[] = []
  for (const [warning, owners] of seen) {
    if (owners.length === threads) merged.push(warning)
    else for (const thread of owners) merged.push(`Load worker ${thread + 1} of ${threads}: ${warning}`)
  }
  return merged
}

/**
 * One {@link MeasuredPhase} from the phases of several threads (times already on one clock):
 * histograms and counts add up exactly (MetricsAccumulator.merge), the measured window runs from
 * the first thread's first dispatch to the last thread's last completion, schedule lag and
 * event-loop delay are the worst thread's.
 */
export function mergePhases(phases: WorkerPhase[], timelineStart: number): MeasuredPhase {
  const first = phases[0]
  if (first === undefined) throw new Error('mergePhases needs at least one phase')
  const accumulator = MetricsAccumulator.fromJSON(first.snapshot)
  for (const phase of phases.slice(1)) accumulator.merge(MetricsAccumulator.fromJSON(phase.snapshot))
  const startedAt = Math.min(...phases.map((p) => p.startedAt))
  const endedAt = Math.max(...phases.map((p) => p.endedAt))
  const scheduleLagMs: ScheduleLag | undefined = mergeDelaySummaries(phases.map((p) => p.scheduleLagMs))
  const generatorLagMs: ScheduleLag | undefined = mergeDelaySummaries(phases.map((p) => p.generatorLagMs))
  const stopped = phases.map((p) => p.stoppedBy)
  const outcome: LoadRunOutcome = {
    startedAt,
    originAt: startedAt,
    endedAt,
    dispatched: phases.reduce((sum, p) => sum + p.dispatched, 0),
    cancelled: phases.reduce((sum, p) => sum + p.cancelled, 0),
    stoppedBy: (stopped.includes('signal') ? 'signal' : stopped[0]) as LoadRunOutcome['stoppedBy'],
    warnings: mergeWarnings(phases.map((p) => p.warnings)),
  }
  if (scheduleLagMs) outcome.scheduleLagMs = scheduleLagMs
  if (generatorLagMs) outcome.generatorLagMs = generatorLagMs
  const stall = mergeStalls(phases)
  return {
    accumulator,
    outcome,
    timeline: mergeTimelines(
      phases.map((p) => p.timeline),
      timelineStart,
      endedAt,
    ),
    eventLoopDelayMs: mergeDelaySummaries(phases.map((p) => p.eventLoopDelayMs)),
    ...(stall ? { stall } : {}),
  }
}

/** The threads' stalls as one: the longest silence, every stalled thread's requests in flight. */
function mergeStalls(phases: WorkerPhase[]): StallReport | undefined {
  const stalls = phases.map((p) => p.stall).filter((s): s is StallReport => s !== undefined)
  const first = stalls[0]
  if (first === undefined) return undefined
  return {
    silentMs: Math.max(...stalls.map((s) => s.silentMs)),
    inFlight: stalls.reduce((sum, s) => sum + s.inFlight, 0),
    stallTimeoutMs: first.stallTimeoutMs,
  }
}
