import { OptionsError } from '../contract/errors.ts'
import { createRandom, deriveSeed } from '../platform/random.ts'
import type { ResolvedLoad } from '../contract/options.ts'
import { arrivalTimeOf, expectedArrivals, rampOf } from './ramp.ts'

/** Stream label so the schedule and the workload draw independent numbers from one seed. */
const ARRIVAL_STREAM = 0x41525256

/**
 * How many arrivals an open loop plans: `requests`, or for a duration-only load the expected
 * number within `durationMs` (rounded down, at least 1). Because the schedule is rescaled
 * (see {@link planArrivals}), that many arrivals end exactly within the duration.
 */
export function plannedArrivalCount(load: ResolvedLoad): number {
  if (load.requests !== undefined) return load.requests
  const rate = load.rate
  if (rate === undefined || rate === Infinity || load.durationMs === undefined) {
    throw new OptionsError(
      'load',
      'an open loop needs `requests` to know how many arrivals to plan',
      'Set `load.requests`.',
    )
  }
  return Math.max(1, Math.floor(expectedArrivals(rampOf(load, rate), rate, load.durationMs) + 1e-9))
}

/**
 * Planned send offsets (ms from the start of the schedule, non-decreasing) of `count` open-loop
 * arrivals at `load.rate`.
 *
 * As vLLM `bench serve` (`get_request`): gaps are gamma with shape = burstiness and
 * scale = 1 / (rate * burstiness) (exponential for Poisson, 1 / rate for constant). Each arrival,
 * the first included, follows one gap, and the cumulative times are rescaled so the last arrival
 * lands at exactly `count / rate` seconds: the achieved rate no longer depends on the seed.
 * vLLM skips that rescale under ramp-up because its ramp steps per request index; ours is in time,
 * so the gaps are drawn in operational time (expected arrivals, mean gap 1), rescaled there to
 * span exactly `count`, and mapped back through the ramped rate: the same guarantee under a ramp.
 * `rate: Infinity` plans every arrival at offset 0.
 */
export function planArrivals(load: ResolvedLoad, seed: number, count: number): number[] {
  const rate = load.rate
  if (rate === undefined) {
    throw new OptionsError(
      'load.rate',
      'is not set, so there is no arrival schedule (closed loop)',
      'Set `load.rate` for an open loop.',
    )
  }
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`planArrivals: count must be a whole number >= 0, got ${count}`)
  const offsets = new Array<number>(count).fill(0)
  if (rate === Infinity || count === 0) return offsets

  const kind = load.arrival
  // Gamma's shape; the other kinds draw no gamma.
  const shape = kind === 'gamma' ? load.burstiness : 1
  if (kind === undefined || shape === undefined)
    throw new RangeError('planArrivals: the load is not resolved (no arrival process named): pass resolveLoad(load)')
  const random = createRandom(deriveSeed(seed, ARRIVAL_STREAM))
  const operational = new Float64Array(count)
  let sum = 0
  for (let i = 0; i < count; i++) {
    const gap = kind === 'constant' ? 1 : kind === 'gamma' ? random.gamma(shape, 1 / shape) : random.exponential(1)
    sum += gap
    operational[i] = sum
  }
  const scale = sum > 0 ? count / sum : 1
  const ramp = rampOf(load, rate)
  for (let i = 0; i < count; i++) offsets[i] = arrivalTimeOf(ramp, rate, (operational[i] ?? 0) * scale)
  return offsets
}
