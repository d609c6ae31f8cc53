import { OptionsError } from '../contract/errors.ts'
import type { ResolvedLoad } from '../contract/options.ts'
import { arrivalScheduleOf } from './arrival-schedule.ts'
import { driveClosedLoop } from './closed-loop.ts'
import { drain } from './drain.ts'
import { InFlightRequests, type DispatchRequest } from './in-flight.ts'
import { summarizeLag } from './schedule-lag.ts'
import type { ScheduleLag } from './schedule-lag.ts'
import { driveScheduledSends, type SendLags } from './scheduled-sends.ts'
import type { StopReason } from './send-loop.ts'
import { StopWhenStop } from './stop-when.ts'

export type { DispatchRequest }

export interface LoadRunOptions {
  load: ResolvedLoad
  /** Seed of the arrival schedule. */
  seed: number
  /**
   * Sends request `index`; resolves when it finished (ok or failed). `plannedAt` is the planned
   * send time (`performance.now()` clock) for open loops and trace replay, undefined for a closed
   * loop. The signal aborts the request (drain grace over, or run aborted). A rejection is a bug:
   * the run stops, cancels what is in flight and rejects with it.
   */
  dispatch: DispatchRequest
  /** Trace replay: fixed planned offsets (ms) from the workload; overrides the arrival process. */
  timestampsMs?: number[]
  /** Aborts the run: nothing more is sent and in-flight requests are cancelled at once. */
  signal?: AbortSignal
  /**
   * `performance.now()` the planned offsets count from; default: when the run starts. Threads pass their common
   * start, so that their slices of one schedule keep its offsets between them.
   */
  originAt?: number
}

export interface LoadRunOutcome {
  /** `performance.now()` of the first dispatch (the origin when nothing was sent). */
  startedAt: number
  /**
   * `performance.now()` the planned offsets count from (closed loop: the first dispatch). Open
   * loop: one inter-arrival gap before the first send, where vLLM `bench serve` starts its clock;
   * measure the duration from here to compare throughput with vLLM.
   */
  originAt: number
  /** `performance.now()` when the last request finished. */
  endedAt: number
  /** Measured requests handed to `dispatch`. */
  dispatched: number
  /** Requests still in flight when the drain grace ended or the run was aborted, whose signals were aborted. */
  cancelled: number
  stoppedBy: StopReason
  /**
   * Actual minus planned send time, ms (open loop and trace replay only). Always measured against
   * the planned time: under a concurrency cap it includes the wait for a free slot.
   */
  scheduleLagMs?: ScheduleLag
  /**
   * The load generator's own lag: {@link scheduleLagMs} over the sends that did not wait for a
   * concurrency slot. A p99 above {@link SCHEDULE_LAG_WARN_MS} means the client, not the server,
   * shaped the load (a warning says so); a cap's waits do not count here.
   */
  generatorLagMs?: ScheduleLag
  /** For humans: generator lag, cap waits, cancellations, ignored options. */
  warnings: string[]
}

/** Lag p99 above which the load generator, not the server, is said to have shaped the load. */
export const SCHEDULE_LAG_WARN_MS = 5
/**
 * Drives `dispatch` with the load's shape until a stop rule holds, then drains.
 *
 * - Closed loop (`concurrency`, no `rate`; neither given means concurrency 1): exactly that many
 *   in flight, each completion starting the next; `rampUp` ramps the concurrency.
 * - Open loop (`rate`): sends at the times {@link planArrivals} plans; `concurrency` caps the
 *   requests in flight (a send waits for a free slot). `rate: Infinity` plans every send at once.
 * - Trace replay (`timestampsMs`): sends at the trace's offsets; `concurrency` still caps.
 *
 * Stops after `requests` sends or `durationMs` (open loops: the planned time passes it; closed
 * loops: the wall clock does), whichever comes first, or at the trace's end; then in-flight
 * requests get `drainGraceMs` to finish before their signals abort and they count as cancelled.
 * One loop does all sends, so send order equals index order: one driver per schedule kind
 * ({@link arrivalScheduleOf}), then one drain.
 */
export async function runLoad(options: LoadRunOptions): Promise<LoadRunOutcome> {
  const { load, seed, dispatch, timestampsMs, signal } = options
  if (timestampsMs !== undefined) validateTimestamps(timestampsMs)

  const warnings: string[] = []
  const { drainGraceMs } = load
  const schedule = arrivalScheduleOf(load, seed, timestampsMs, warnings)
  const openLoop = schedule.kind !== 'closed'
  const run = new InFlightRequests(dispatch)
  const lags: SendLags = { all: [], unheld: [], held: 0 }

  const onAbort = (): void => run.waker.wake()
  signal?.addEventListener('abort', onAbort, { once: true })
  const originAt = options.originAt ?? performance.now()
  const deadline = load.durationMs !== undefined ? originAt + load.durationMs : Infinity
  let stoppedBy: StopReason | undefined
  try {
    stoppedBy =
      schedule.kind === 'closed'
        ? await driveClosedLoop(run, schedule, load, deadline, signal)
        : await driveScheduledSends(run, schedule, load, originAt, deadline, signal, lags)
    const unsettled = await drain(run, {
      abortNow: stoppedBy === 'signal' || run.failure !== undefined,
      drainGraceMs,
      signal,
    })
    if (unsettled) warnings.push(unsettled)
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  if (run.failure) throw run.failure.error

  const { cancelled } = run
  // A safety stop's own line (the run's) says what it cancelled, counted from the requests' records.
  if (cancelled > 0 && !(signal?.reason instanceof StopWhenStop)) {
    warnings.push(
      stoppedBy === 'signal' || signal?.aborted
        ? `${cancelled} in-flight requests were cancelled because the run was aborted.`
        : `${cancelled} requests were still in flight ${drainGraceMs} ms after the stop and were cancelled (load.drainGraceMs).`,
    )
  }
  const scheduleLagMs = openLoop ? summarizeLag(lags.all) : undefined
  const unheldLag = summarizeLag(lags.unheld)
  if (unheldLag && unheldLag.p99 > SCHEDULE_LAG_WARN_MS) {
    warnings.push(
      `Send times lagged the schedule by ${unheldLag.p99.toFixed(1)} ms at p99 (over ${SCHEDULE_LAG_WARN_MS} ms): the client, not the server, shaped the load. Run the load generator on a less busy machine or lower the rate.`,
    )
  }
  if (lags.held > 0) {
    warnings.push(
      `${lags.held} of ${lags.all.length} requests waited for a free slot under load.concurrency = ${schedule.cap}: their send times, and scheduleLagMs, reflect that cap rather than the arrival schedule.`,
    )
  }
  const startedAt = run.firstDispatchAt ?? originAt
  const outcome: LoadRunOutcome = {
    startedAt,
    originAt: openLoop ? originAt : startedAt,
    endedAt: run.lastEndAt ?? performance.now(),
    dispatched: run.dispatched,
    cancelled,
    stoppedBy: stoppedBy ?? 'signal',
    warnings,
  }
  if (scheduleLagMs) outcome.scheduleLagMs = scheduleLagMs
  if (openLoop && unheldLag) outcome.generatorLagMs = unheldLag
  return outcome
}

function validateTimestamps(timestampsMs: number[]): void {
  let previous = 0
  for (let i = 0; i < timestampsMs.length; i++) {
    const t = timestampsMs[i]
    if (typeof t !== 'number' || !Number.isFinite(t) || t < previous) {
      throw new OptionsError(
        `timestampsMs[${i}]`,
        `must be a finite number of milliseconds >= 0 and >= the one before (${previous}), got ${String(t)}`,
        'Sort the trace by timestamp and count offsets from its start.',
      )
    }
    previous = t
  }
}
