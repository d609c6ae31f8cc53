import type { ArrivalKind, LoadOptions, ResolvedLoad } from '../contract/types.ts'

/** The load's defaults: the one place they are written (docs/api.md and README name the same). */
export const LOAD_DEFAULTS = {
  /** Time in-flight requests get to finish after the stop, ms. */
  drainGraceMs: 30_000,
  /** An open loop's arrivals, unless `burstiness` other than 1 asks for gamma (as vLLM). */
  arrival: 'poisson',
  /** Gamma's shape when `arrival: 'gamma'` leaves it out: 1 is Poisson. */
  burstiness: 1,
  /** A ramp's curve. */
  rampCurve: 'linear',
  /** A closed loop's requests in flight when `concurrency` is left out. */
  concurrency: 1,
} as const satisfies {
  drainGraceMs: number
  arrival: ArrivalKind
  burstiness: number
  rampCurve: 'linear' | 'exponential'
  concurrency: number
}

/**
 * How a load sends: an open loop at planned arrivals (it has a `rate`, or a rate sweep or capacity
 * search gives it one), a trace replay at the trace's timestamps (`concurrency` then only caps), or a
 * closed loop.
 */
export type LoadShape = 'open' | 'trace' | 'closed'

/** The arrival process a load asks for: `arrival`, or gamma when `burstiness` other than 1 is given alone. */
function arrivalOf(load: LoadOptions): ArrivalKind {
  if (load.arrival) return load.arrival
  return load.burstiness !== undefined && load.burstiness !== 1 ? 'gamma' : LOAD_DEFAULTS.arrival
}

/**
 * A checked load with every default applied ({@link ResolvedLoad}): an open loop's arrival process
 * named (`arrival` and `burstiness` are dropped elsewhere: they mean nothing there), a closed loop's
 * concurrency, a ramp's curve and the drain grace. `shape` defaults to open when the load has a
 * `rate`, else closed; a trace replay must say so. Idempotent.
 */
export function resolveLoad(
  load: LoadOptions,
  shape: LoadShape = load.rate !== undefined ? 'open' : 'closed',
): ResolvedLoad {
  const { arrival: _arrival, burstiness: _burstiness, rampUp, ...rest } = load
  const out: ResolvedLoad = { ...rest, drainGraceMs: load.drainGraceMs ?? LOAD_DEFAULTS.drainGraceMs }
  // `rate: Infinity` with a cap and no `requests` runs as a closed loop at the cap (arrivalScheduleOf); it has its cap.
  if (shape === 'closed') out.concurrency = load.concurrency ?? LOAD_DEFAULTS.concurrency
  if (shape === 'open') {
    out.arrival = arrivalOf(load)
    if (out.arrival === 'gamma') out.burstiness = load.burstiness ?? LOAD_DEFAULTS.burstiness
  }
  if (rampUp) out.rampUp = { ...rampUp, curve: rampUp.curve ?? LOAD_DEFAULTS.rampCurve }
  return out
}
