import type { ResolvedLoad } from '../contract/options.ts'
import type { ArrivalSchedule } from './arrival-schedule.ts'
import type { InFlightRequests } from './in-flight.ts'

/** Why a run stopped sending. */
export type StopReason = 'requests' | 'duration' | 'signal' | 'trace-end'

/** Sends in a row before the loop lets pending I/O run. */
const MAX_SENDS_WITHOUT_YIELD = 32

/**
 * A long run of sends without a pause (rate Infinity, a large concurrency, catching up after a
 * stall) would keep responses of earlier requests unread, and so inflate their latencies: after
 * {@link MAX_SENDS_WITHOUT_YIELD} sends in a row the loop yields once.
 */
export class SendBurst {
  #sends = 0

  /** A send happened. */
  sent(): void {
    this.#sends++
  }

  /** The loop waited: the next send starts a new burst. */
  paused(): void {
    this.#sends = 0
  }

  /** True when the loop should yield (then call {@link paused}); checked without awaiting, so a send costs no extra turn. */
  get long(): boolean {
    return this.#sends >= MAX_SENDS_WITHOUT_YIELD
  }
}

/**
 * The stop rules every driver checks before its next send: the run's signal, a failed dispatch
 * (`'failed'`: the loop ends and the run rethrows), or the schedule's last send done (a trace that
 * ran out before `load.requests` ends with `trace-end`; a duration-only open loop plans exactly the
 * arrivals within its duration). Undefined: send on.
 */
export function stopBeforeSend(
  run: InFlightRequests,
  schedule: ArrivalSchedule,
  load: ResolvedLoad,
  signal: AbortSignal | undefined,
): StopReason | 'failed' | undefined {
  if (signal?.aborted) return 'signal'
  if (run.failure) return 'failed'
  if (run.dispatched < schedule.limit) return undefined
  if (schedule.kind === 'trace') {
    const traceEnded =
      run.dispatched >= schedule.offsets.length &&
      (load.requests === undefined || load.requests > schedule.offsets.length)
    return traceEnded ? 'trace-end' : 'requests'
  }
  return load.requests === undefined ? 'duration' : 'requests'
}
