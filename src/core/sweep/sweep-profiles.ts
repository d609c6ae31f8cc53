/**
 * A sweep and a capacity search as profiles of the one campaign driver (`runCampaign`): each says which value to
 * measure next from the points measured so far, and the driver measures them. A sweep's axis is a list walked
 * in order; a capacity search halves, doubles and bisects the rate from the validity of the points so far.
 */
import type { CampaignProfile } from '../campaign/index.ts'
import type { SweepPoint } from './sweep-result.ts'

/** A profile whose step is the swept value to measure next (a concurrency, a rate or a server argument's value). */
export type PointProfile = CampaignProfile<number, SweepPoint, undefined>

/** Why a sweep stopped early: its signal was aborted. */
export const SWEEP_ABORTED = 'the sweep was stopped'

/** Every value of the axis, in the order given; stops early, without an error, once `signal` is aborted. */
export function axisProfile(values: readonly number[], signal?: AbortSignal): PointProfile {
  return {
    next({ measured }) {
      if (signal?.aborted) return { stop: SWEEP_ABORTED }
      const value = values[measured.length]
      if (value === undefined) return { stop: `every value of the axis measured (${values.length})` }
      return { step: value, why: `point ${measured.length + 1} of ${values.length}` }
    },
  }
}

/** The highest rate measured valid and the lowest measured invalid: the bracket a capacity search narrows. */
export interface RateBracket {
  valid: number | undefined
  invalid: number | undefined
}

/** The bracket of these points (their `valid` as the capacity search judged it). */
export function bracketOf(points: readonly SweepPoint[]): RateBracket {
  const bracket: RateBracket = { valid: undefined, invalid: undefined }
  for (const point of points) {
    const rate = point.value
    if (point.valid === true && (bracket.valid === undefined || rate > bracket.valid)) bracket.valid = rate
    if (point.valid !== true && (bracket.invalid === undefined || rate < bracket.invalid)) bracket.invalid = rate
  }
  return bracket
}

/**
 * The next rate of a capacity search, or undefined when it is over: halve after failures until a
 * rate passes (or `min` failed), double after passes until one fails (or `max` passed), then
 * bisect between the highest passing and the lowest failing rate until within `precision`.
 */
export function nextSearchRate(
  tried: { rate: number; valid: boolean },
  best: RateBracket,
  range: { min: number; max: number },
  precision: number,
): number | undefined {
  const { valid, invalid } = best
  if (valid === undefined) return tried.rate <= range.min ? undefined : Math.max(range.min, tried.rate / 2)
  if (invalid === undefined) return valid >= range.max ? undefined : Math.min(range.max, valid * 2)
  if ((invalid - valid) / valid <= precision) return undefined
  return (valid + invalid) / 2
}

/** What a capacity search's profile needs, resolved. */
export interface CapacitySearchPlan {
  /** The first rate, requests per second. */
  start: number
  range: { min: number; max: number }
  /** Relative width of the bracket at which the search ends. */
  precision: number
  /** Points measured at most. */
  maxPoints: number
}

/**
 * A capacity search (see {@link nextSearchRate}). Stops when the bracket is within its precision or the range is
 * spent, when `maxPoints` were measured (`stop` is then {@link maxPointsWarning}), or once `signal` is aborted.
 */
export function capacityProfile(plan: CapacitySearchPlan, signal?: AbortSignal): PointProfile {
  return {
    next({ measured }) {
      if (signal?.aborted) return { stop: SWEEP_ABORTED }
      const last = measured.at(-1)
      const rate =
        last === undefined
          ? plan.start
          : nextSearchRate(
              { rate: last.value, valid: last.valid === true },
              bracketOf(measured),
              plan.range,
              plan.precision,
            )
      if (rate === undefined) return { stop: 'the capacity is bracketed within its precision, or the range is spent' }
      if (measured.length >= plan.maxPoints) return { stop: maxPointsWarning(plan) }
      return { step: rate, why: `rate ${measured.length + 1}` }
    },
  }
}

/** The warning of a capacity search that ran out of points before its precision. */
export function maxPointsWarning(plan: Pick<CapacitySearchPlan, 'maxPoints' | 'precision'>): string {
  return `The capacity search stopped after ${plan.maxPoints} points (capacity.maxPoints) before reaching a precision of ${plan.precision}.`
}
