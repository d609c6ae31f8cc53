import { OptionsError } from '../contract/errors.ts'
import type { NumberDistribution } from '../contract/workload-options.ts'
import type { Random } from '../platform/random.ts'

/** A {@link NumberDistribution} with its defaults filled in. */
export interface ResolvedNumberDistribution {
  readonly mean: number
  readonly stddev: number
  readonly min: number
  readonly max: number
  /** Whole numbers (counts) rather than times. */
  readonly whole: boolean
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)

/**
 * Checks `given` (named `option` in errors): a count (`whole`, at least 1 by default) or a time in
 * milliseconds (at least 0 by default). A bare number is a fixed value.
 */
export function resolveNumberDistribution(
  option: string,
  given: NumberDistribution | number | undefined,
  whole: boolean,
): ResolvedNumberDistribution {
  const unit = whole ? 'a whole number' : 'a number of milliseconds'
  const example = whole ? '`{ mean: 4, stddev: 1 }`' : '`{ mean: 2000, stddev: 500 }`'
  const distribution = typeof given === 'number' ? { mean: given } : given
  if (typeof distribution !== 'object' || distribution === null) {
    throw new OptionsError(
      option,
      `must be an object like ${example}, got ${String(given)}`,
      'Give the mean, and optionally stddev, min and max.',
    )
  }
  const floor = whole ? 1 : 0
  const { mean, stddev = 0, min = floor, max = Infinity } = distribution
  if (!finite(mean) || mean < floor)
    throw new OptionsError(`${option}.mean`, `must be ${unit} >= ${floor}, got ${String(mean)}`, `Set e.g. ${example}.`)
  if (!finite(stddev) || stddev < 0)
    throw new OptionsError(
      `${option}.stddev`,
      `must be a finite number >= 0, got ${String(stddev)}`,
      'Use 0 for a fixed value.',
    )
  if (!finite(min) || min < floor || (whole && !Number.isInteger(min)))
    throw new OptionsError(
      `${option}.min`,
      `must be ${unit} >= ${floor}, got ${String(min)}`,
      `Leave it out for ${floor}.`,
    )
  if (
    typeof max !== 'number' ||
    Number.isNaN(max) ||
    max < min ||
    (whole && max !== Infinity && !Number.isInteger(max))
  ) {
    throw new OptionsError(
      `${option}.max`,
      `must be ${unit} >= min (${min}), got ${String(max)}`,
      'Leave it out for no upper bound.',
    )
  }
  if (mean < min || mean > max)
    throw new OptionsError(
      `${option}.mean`,
      `(${mean}) lies outside [min, max] = [${min}, ${max}]`,
      'Move the mean inside the bounds or widen them.',
    )
  return { mean, stddev, min, max, whole }
}

/** One value: normal(mean, stddev) clipped to [min, max] (rounded for counts); exactly the mean when stddev is 0. */
export function sampleNumber(distribution: ResolvedNumberDistribution, random: Random): number {
  const raw = distribution.stddev === 0 ? distribution.mean : distribution.mean + distribution.stddev * random.normal()
  const value = distribution.whole ? Math.round(raw) : raw
  return Math.min(distribution.max, Math.max(distribution.min, value))
}

/** No think time. */
export const NO_THINK_TIME: ResolvedNumberDistribution = { mean: 0, stddev: 0, min: 0, max: 0, whole: false }
