import { OptionsError } from '../contract/errors.ts'
import type { Random } from '../platform/random.ts'
import type { TokenLengthDistribution } from '../contract/workload-options.ts'

/** A {@link TokenLengthDistribution} with its defaults filled in. */
export interface ResolvedLengthDistribution {
  mean: number
  stddev: number
  min: number
  max: number
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && !Number.isNaN(value)

/** Validates `distribution` (named `option` in errors) and fills in its defaults. */
export function resolveLengthDistribution(
  option: string,
  distribution: TokenLengthDistribution | undefined,
): ResolvedLengthDistribution {
  if (typeof distribution !== 'object' || distribution === null) {
    throw new OptionsError(
      option,
      `must be an object like { mean: 128 }, got ${String(distribution)}`,
      'Give the mean length in tokens, and optionally stddev, min and max.',
    )
  }
  const { mean, stddev = 0, min = 1, max = Infinity } = distribution
  if (!isNumber(mean) || !Number.isFinite(mean) || mean < 1) {
    throw new OptionsError(
      `${option}.mean`,
      `must be a finite number of tokens >= 1, got ${String(mean)}`,
      'Set e.g. `mean: 128`.',
    )
  }
  if (!isNumber(stddev) || !Number.isFinite(stddev) || stddev < 0) {
    throw new OptionsError(
      `${option}.stddev`,
      `must be a finite number of tokens >= 0, got ${String(stddev)}`,
      'Use 0 for a fixed length.',
    )
  }
  if (!isNumber(min) || !Number.isInteger(min) || min < 1) {
    throw new OptionsError(
      `${option}.min`,
      `must be a whole number of tokens >= 1, got ${String(min)}`,
      'Leave it out for 1.',
    )
  }
  if (!isNumber(max) || (max !== Infinity && !Number.isInteger(max)) || max < min) {
    throw new OptionsError(
      `${option}.max`,
      `must be a whole number of tokens >= min (${min}), got ${String(max)}`,
      'Leave it out for no upper bound.',
    )
  }
  if (mean < min || mean > max) {
    throw new OptionsError(
      `${option}.mean`,
      `(${mean}) lies outside [min, max] = [${min}, ${max}]`,
      'Move the mean inside the bounds or widen them.',
    )
  }
  return { mean, stddev, min, max }
}

/** One length: normal(mean, stddev), rounded, clipped to [min, max]; exactly round(mean) when stddev is 0. */
export function sampleLength(distribution: ResolvedLengthDistribution, random: Random): number {
  const raw = distribution.stddev === 0 ? distribution.mean : distribution.mean + distribution.stddev * random.normal()
  return Math.min(distribution.max, Math.max(distribution.min, Math.round(raw)))
}
