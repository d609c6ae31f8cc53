import { binomialUpperTail } from '../verdict/special-functions.ts'
import type { HistogramBuckets } from '../verdict/quantile-bootstrap.ts'

/**
 * Ranks of the distribution-free one-sided bounds of the `quantile` of a distribution from `n`
 * samples at `confidence` (the order-statistic bounds: with B ~ Binomial(n, q) the number of samples
 * below the true quantile, P(X(k) >= ξq) = P(B <= k - 1) and P(X(l) <= ξq) = P(B >= l)):
 * `upper` the smallest k with P(X(k) >= ξq) >= confidence, `lower` the largest l with
 * P(X(l) <= ξq) >= confidence; undefined where n samples cannot give one (p99 at 95 %: an upper
 * bound needs 299 samples, since 0.99^299 <= 0.05 < 0.99^298).
 */
export function quantileBoundRanks(
  n: number,
  quantile: number,
  confidence: number,
): { upper: number | undefined; lower: number | undefined } {
  return { upper: upperRank(n, quantile, confidence), lower: lowerRank(n, quantile, confidence) }
}

/** The smallest k in 1..n for which `holds` (false below some k, true from it on), or undefined when none. */
function firstHolding(n: number, holds: (k: number) => boolean): number | undefined {
  let found: number | undefined
  let lo = 1
  let hi = n
  while (lo <= hi) {
    const k = Math.floor((lo + hi) / 2)
    if (holds(k)) {
      found = k
      hi = k - 1
    } else lo = k + 1
  }
  return found
}

/** The smallest k in 1..n with P(B >= k) <= 1 - confidence (P(B >= k) falls as k grows). */
function upperRank(n: number, quantile: number, confidence: number): number | undefined {
  return firstHolding(n, (k) => 1 - binomialUpperTail(n, quantile, k) >= confidence)
}

/** The largest l in 1..n with P(B >= l) >= confidence: one below the first l where it fails. */
function lowerRank(n: number, quantile: number, confidence: number): number | undefined {
  const failsFrom = firstHolding(n, (l) => binomialUpperTail(n, quantile, l) < confidence) ?? n + 1
  return failsFrom > 1 ? failsFrom - 1 : undefined
}

/** The value of order statistic `rank` (1-based) of the samples in `buckets`. */
function valueAtRank(buckets: HistogramBuckets, rank: number): number {
  let seen = 0
  for (let i = 0; i < buckets.values.length; i++) {
    seen += buckets.counts[i] as number
    if (seen >= rank) return buckets.values[i] as number
  }
  return buckets.values[buckets.values.length - 1] ?? Number.NaN
}

/** Samples at or below `limit`. */
function countAtOrBelow(buckets: HistogramBuckets, limit: number): number {
  let count = 0
  for (let i = 0; i < buckets.values.length && (buckets.values[i] as number) <= limit; i++)
    count += buckets.counts[i] as number
  return count
}

/** Most samples {@link samplesNeeded} looks at: past this, say "more than" instead of a number. */
const MAX_SAMPLES = 1_000_000

/**
 * Fewest samples with which a run whose share `share` of samples lies at or below the limit would,
 * on average, show the quantile's bound on the limit's right side (`side: 'upper'`: the upper bound at or below
 * it, a pass; `'lower'`: the lower bound above it, a fail); undefined past {@link MAX_SAMPLES}.
 */
export function samplesNeeded(
  quantile: number,
  confidence: number,
  share: number,
  side: 'upper' | 'lower',
): number | undefined {
  // Order statistic k of n samples sits, on average, at the distribution's k / (n + 1) point.
  const decided = (n: number): boolean => {
    if (side === 'upper') {
      const upper = upperRank(n, quantile, confidence)
      return upper !== undefined && upper / (n + 1) <= share
    }
    const lower = lowerRank(n, quantile, confidence)
    return lower !== undefined && lower / (n + 1) > share
  }
  let n = 1
  while (!decided(n)) {
    n *= 2
    if (n > MAX_SAMPLES) return undefined
  }
  // The first n that decides, between the last doubling and this one (near enough monotone: ranks move in whole steps).
  let lo = Math.floor(n / 2) + 1
  let hi = n
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2)
    if (decided(mid)) hi = mid
    else lo = mid + 1
  }
  return hi
}

/** What the samples of a run show about one quantile against an upper limit. */
export interface QuantileBounds {
  /** The quantile's upper bound at the confidence, or null when the samples are too few for one. */
  upper: number | null
  /** The quantile's lower bound at the confidence, or null when the samples are too few for one. */
  lower: number | null
  /** `pass`: the upper bound is at or below the limit; `fail`: the lower bound is above it; else `inconclusive`. */
  status: 'pass' | 'fail' | 'inconclusive'
  /** When inconclusive: the samples a run like this one would need to decide (undefined: more than a million). */
  needed?: number
}

/** The distribution-free bounds of `quantile` in `buckets` at `confidence`, judged against the upper `limit`. */
export function judgeQuantile(
  buckets: HistogramBuckets,
  quantile: number,
  confidence: number,
  limit: number,
): QuantileBounds {
  const n = buckets.total
  const ranks = quantileBoundRanks(n, quantile, confidence)
  const upper = ranks.upper === undefined ? null : valueAtRank(buckets, ranks.upper)
  const lower = ranks.lower === undefined ? null : valueAtRank(buckets, ranks.lower)
  if (upper !== null && upper <= limit) return { upper, lower, status: 'pass' }
  if (lower !== null && lower > limit) return { upper, lower, status: 'fail' }
  const share = countAtOrBelow(buckets, limit) / n
  const needed = samplesNeeded(quantile, confidence, share, share > quantile ? 'upper' : 'lower')
  return { upper, lower, status: 'inconclusive', ...(needed !== undefined ? { needed } : {}) }
}
