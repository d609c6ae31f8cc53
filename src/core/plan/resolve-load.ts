import type { ArrivalKind, LoadOptions, ResolvedLoad } from '../contract/types.ts'

/** The load's defaults: the one place the code holds them (`LoadOptions`' docs in contract/types.ts state them). */
export const LOAD_DEFAULTS = {
  /** Time in-flight requests get to finish after the stop, ms. */
  drainGraceMs: 30_000,
  /** An open loop's arrivals, unless `burstiness` other than 1 asks for gamma (as vLLM). */
  arrival: 'poisson',
  /** Gamma's shape when `arrival: 'gamma'` leaves it out: 1 is Poisson. */
  burstiness: 1,
  /** A ramp's curve. */
  rampCurve: 'linear',
} as const satisfies {
  drainGraceMs: number
  arrival: ArrivalKind
  burstiness: number
  rampCurve: 'linear' | 'exponential'
}

/** The arrival process a load asks for: `arrival`, or gamma when `burstiness` other than 1 is given alone. */
function arrivalOf(load: LoadOptions): ArrivalKind {
  if (load.arrival) return load.arrival
  return load.burstiness !== undefined && load.burstiness !== 1 ? 'gamma' : LOAD_DEFAULTS.arrival
}

/**
 * A checked load with every default applied ({@link ResolvedLoad}): an open loop's arrival process
 * named (`burstiness` kept for gamma only), a ramp's curve and the drain grace; what else was given is
 * kept as given (a trace replay warns about `rate`, `arrival` and `burstiness` it ignores). `openLoop`:
 * the load sends at planned arrivals (it has a `rate`, or a rate sweep or capacity search gives it one);
 * a trace replay, whose timestamps set every send, is none whatever its `rate`. A closed loop's
 * concurrency is left as given: 1 in flight when it is left out (arrivalScheduleOf), and so the share
 * of each thread or host, which a defaulted 1 split N ways would not be. Idempotent; the baseline
 * identity (`canonicalConfig`) is this with `openLoop` from the rate alone, as stored baselines were keyed.
 */
export function resolveLoad(load: LoadOptions, openLoop: boolean = load.rate !== undefined): ResolvedLoad {
  const { rampUp, ...rest } = load
  const out = { ...rest, drainGraceMs: load.drainGraceMs ?? LOAD_DEFAULTS.drainGraceMs } as ResolvedLoad
  if (openLoop) {
    out.arrival = arrivalOf(load)
    if (out.arrival === 'gamma') out.burstiness = load.burstiness ?? LOAD_DEFAULTS.burstiness
    else delete out.burstiness
  }
  if (rampUp) out.rampUp = { ...rampUp, curve: rampUp.curve ?? LOAD_DEFAULTS.rampCurve }
  return out
}
