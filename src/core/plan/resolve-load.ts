import type { ArrivalKind, LoadOptions, ResolvedLoad, ResolvedWarmup, WarmupOptions } from '../contract/options.ts'

/** The load's defaults: the one place the code holds them (`LoadOptions`' docs in contract/options.ts state them). */
export const LOAD_DEFAULTS = {
  /** Time in-flight requests get to finish after the stop, ms. */
  drainGraceMs: 30_000,
  /** An open loop's arrivals, unless `burstiness` other than 1 asks for gamma (as vLLM). */
  arrival: 'poisson',
  /** Gamma's shape when `arrival: 'gamma'` leaves it out: 1 is Poisson. */
  burstiness: 1,
  /** A ramp's curve. */
  rampCurve: 'linear',
  /** Requests in flight of a closed loop without `concurrency`, in each thread or host (an open loop has no cap). */
  closedLoopConcurrency: 1,
} as const satisfies {
  drainGraceMs: number
  arrival: ArrivalKind
  burstiness: number
  rampCurve: 'linear' | 'exponential'
  closedLoopConcurrency: number
}

/** The arrival process a load asks for: `arrival`, or gamma when `burstiness` other than 1 is given alone. */
function arrivalOf(load: LoadOptions): ArrivalKind {
  if (load.arrival) return load.arrival
  return load.burstiness !== undefined && load.burstiness !== 1 ? 'gamma' : LOAD_DEFAULTS.arrival
}

/**
 * How a load's sends are scheduled: a closed loop, an open loop's planned arrivals, or a trace's timestamps
 * (a trace workload, whatever its `rate`).
 */
export type LoadSchedule = 'closed' | 'open' | 'trace'

/**
 * A checked load with every default applied ({@link ResolvedLoad}): an open loop's arrival process
 * named (`burstiness` kept for gamma only), a ramp's curve, the drain grace and the in-flight cap
 * (`maxInFlight`); what else was given is kept as given (a trace replay warns about `rate`, `arrival`
 * and `burstiness` it ignores). `schedule`: `open` when the load sends at planned arrivals (it has a
 * `rate`, or a rate sweep or capacity search gives it one); a trace replay, whose timestamps set every
 * send, is none whatever its `rate`. A closed loop's `concurrency` is left as given, and its cap is 1
 * when it is left out: one in flight in each thread or host, which a defaulted `concurrency: 1` split
 * N ways would not be. Idempotent; the baseline identity (`canonicalConfig`) is this without
 * `maxInFlight`, with `schedule` from the rate alone, as stored baselines were keyed.
 */
export function resolveLoad(
  load: LoadOptions,
  schedule: LoadSchedule = load.rate !== undefined ? 'open' : 'closed',
): ResolvedLoad {
  const { rampUp, ...rest } = load
  const out = {
    ...rest,
    drainGraceMs: load.drainGraceMs ?? LOAD_DEFAULTS.drainGraceMs,
    maxInFlight: load.concurrency ?? (schedule === 'closed' ? LOAD_DEFAULTS.closedLoopConcurrency : Infinity),
  } as ResolvedLoad
  if (schedule === 'open') {
    out.arrival = arrivalOf(load)
    if (out.arrival === 'gamma') out.burstiness = load.burstiness ?? LOAD_DEFAULTS.burstiness
    else delete out.burstiness
  }
  if (rampUp) out.rampUp = { ...rampUp, curve: rampUp.curve ?? LOAD_DEFAULTS.rampCurve }
  return out
}

/**
 * A checked warm-up with its defaults applied ({@link ResolvedWarmup}); undefined when it sends nothing
 * (0 requests and 0 ms, or both left out). It runs at `load.concurrency` when given, so the server sees
 * the batch sizes it will see in the measurement; without one every warm-up request goes at once (an
 * open loop's `vllm bench serve --num-warmups`, and as before a closed loop's), and a duration-only
 * warm-up sends one request at a time.
 */
export function resolveWarmup(warmup: WarmupOptions, load: ResolvedLoad): ResolvedWarmup | undefined {
  const requests = warmup.requests ?? 0
  const durationMs = warmup.durationMs ?? 0
  if (requests === 0 && durationMs === 0) return undefined
  return { requests, durationMs, concurrency: load.concurrency ?? Math.max(1, requests) }
}
