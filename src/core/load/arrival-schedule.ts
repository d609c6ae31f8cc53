import type { ResolvedLoad } from '../contract/options.ts'
import { planArrivals, plannedArrivalCount } from './plan-arrivals.ts'
import { rampOf, type Ramp } from './ramp.ts'

/**
 * When the sends of a run happen (k6's executors, one kind each): a closed loop sends whenever a
 * slot is free, up to `cap` in flight (ramped when `ramp` is set); an open loop and a trace replay
 * send at planned offsets from the origin, `cap` bounding what is in flight.
 */
export type ArrivalSchedule =
  | {
      readonly kind: 'closed'
      /** Sends at most, then the run stops (Infinity: until the duration). */
      readonly limit: number
      /** Requests in flight. */
      readonly cap: number
      /** The concurrency's ramp from its start value, when `load.rampUp` is set. */
      readonly ramp: Ramp | undefined
    }
  | {
      readonly kind: 'open' | 'trace'
      readonly limit: number
      /** Requests in flight at most (Infinity: no cap). */
      readonly cap: number
      /** Planned send time of each request, ms from the origin, ascending. */
      readonly offsets: ArrayLike<number>
    }

/**
 * The schedule of a checked load: a trace's offsets when the workload has them, planned arrivals
 * for `rate` (`rate: Infinity` plans every send at once), else a closed loop (also `rate: Infinity`
 * with `concurrency` and no `requests`: a closed loop at the cap). Notes for the run go to `warnings`.
 */
export function arrivalScheduleOf(
  load: ResolvedLoad,
  seed: number,
  timestampsMs: readonly number[] | undefined,
  warnings: string[],
): ArrivalSchedule {
  if (timestampsMs !== undefined) {
    const ignored = (['rate', 'arrival', 'burstiness'] as const).filter((key) => load[key] !== undefined)
    if (ignored.length > 0)
      warnings.push(`load.${ignored.join(', load.')} ignored: the trace's timestamps set every send time.`)
    if (load.requests !== undefined && load.requests > timestampsMs.length) {
      warnings.push(
        `load.requests (${load.requests}) exceeds the trace's ${timestampsMs.length} entries: replay stopped at the end of the trace.`,
      )
    }
    return {
      kind: 'trace',
      limit: Math.min(load.requests ?? Infinity, timestampsMs.length),
      cap: load.maxInFlight,
      offsets: timestampsMs,
    }
  }
  if (load.rate !== undefined && !(load.rate === Infinity && load.requests === undefined)) {
    const limit = plannedArrivalCount(load)
    return { kind: 'open', limit, cap: load.maxInFlight, offsets: planArrivals(load, seed, limit) }
  }
  // Without `concurrency` the plan's cap is 1: one request in flight, in each thread or host (each runs its own loop).
  const cap = load.maxInFlight
  return { kind: 'closed', limit: load.requests ?? Infinity, cap, ramp: rampOf(load, cap) }
}
