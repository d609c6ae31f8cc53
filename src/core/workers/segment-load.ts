import type { ResolvedLoad, SegmentOptions, ResolvedWarmup } from '../contract/options.ts'
import { planArrivals, plannedArrivalCount, stopCountOf } from '../load/index.ts'
import { globalIndexOf, shareOfCount, shareOfTimestamps } from './split-load.ts'

/** One host's slice of a segmented load: what its runner runs, and which global index each local dispatch is. */
export interface SegmentShare {
  /** This host's load as the load driver takes it (a planned slice carries its own offsets in `timestampsMs`). */
  load: ResolvedLoad
  /** This host's warm-up (its share of the warm-up requests). */
  warmup: ResolvedWarmup | undefined
  /** Planned send offsets of this host's dispatches, ms from the shared start: open loops and traces; undefined for a closed loop. */
  timestampsMs: number[] | undefined
  /** The global index (workload item, session) of this host's dispatch `local`: `local × count + (index − 1)`. */
  indexOf(local: number): number
}

/**
 * This host's deterministic, disjoint slice of one global schedule (issue 19's segments): the same
 * seed and options give every host the same global plan, of which segment i of N takes
 * - open loop: the global arrivals k with k mod N = i − 1, at their global offsets;
 * - trace replay (a trace or an agentic trace): the trace's entries the same way;
 * - closed loop: its share of the concurrency, of the requests (or sessions) and of a ramp's start.
 * Dispatch `local` of the slice is global index `local × N + i − 1` (a session for a session
 * workload: a session never spans hosts). Warm-up requests are shared like requests.
 */
export function segmentShare(
  load: ResolvedLoad,
  warmup: ResolvedWarmup | undefined,
  seed: number,
  workloadTimestamps: number[] | undefined,
  segment: SegmentOptions,
): SegmentShare {
  const slot = segment.index - 1
  const { count } = segment
  // The unit's stop count: requests, or sessions of a session workload.
  const { count: total, unit: countKey } = stopCountOf(load)
  // The warm-up's concurrency is shared like the load's (or like its requests, when it sends them all at once).
  const warmupShare: ResolvedWarmup | undefined =
    warmup === undefined
      ? undefined
      : {
          ...warmup,
          requests: shareOfCount(warmup.requests, slot, count),
          concurrency: Math.max(1, shareOfCount(warmup.concurrency, slot, count)),
        }
  const indexOf = (local: number): number => globalIndexOf(local, slot, count)
  const kept = (from: ResolvedLoad): ResolvedLoad => {
    const out: ResolvedLoad = { drainGraceMs: from.drainGraceMs, maxInFlight: from.maxInFlight }
    if (from.durationMs !== undefined) out.durationMs = from.durationMs
    if (from.concurrency !== undefined) {
      out.concurrency = Math.max(1, shareOfCount(from.concurrency, slot, count))
      out.maxInFlight = out.concurrency
    }
    return out
  }

  if (workloadTimestamps !== undefined) {
    const planned = total === undefined ? workloadTimestamps : workloadTimestamps.slice(0, total)
    return { load: kept(load), warmup: warmupShare, timestampsMs: shareOfTimestamps(planned, slot, count), indexOf }
  }
  if (load.rate !== undefined) {
    const { sessions: _sessions, ...asRequests } = load
    const global = planArrivals(
      asRequests,
      seed,
      plannedArrivalCount(total === undefined ? asRequests : { ...asRequests, requests: total }),
    )
    return { load: kept(load), warmup: warmupShare, timestampsMs: shareOfTimestamps(global, slot, count), indexOf }
  }
  const share: ResolvedLoad = { ...load }
  // A closed loop without `concurrency` keeps its cap of 1: one in flight in each share.
  if (load.concurrency !== undefined) {
    share.concurrency = shareOfCount(load.concurrency, slot, count)
    share.maxInFlight = share.concurrency
  }
  if (total !== undefined) share[countKey] = shareOfCount(total, slot, count)
  if (load.rampUp !== undefined) share.rampUp = { ...load.rampUp, from: load.rampUp.from / count }
  return { load: share, warmup: warmupShare, timestampsMs: undefined, indexOf }
}

/** Waits until the wall clock reaches `startAtMs` (epoch ms); at once when it has passed or `signal` aborts. */
export function waitForStart(startAtMs: number, signal: AbortSignal | undefined): Promise<void> {
  const wait = startAtMs - Date.now()
  if (wait <= 0 || signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, Math.min(wait, 2_147_483_647))
    signal?.addEventListener('abort', done, { once: true })
  })
}
