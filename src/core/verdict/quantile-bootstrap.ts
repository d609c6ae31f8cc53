import type { Histogram } from 'hdr-histogram-js'
import { JsHistogram } from 'hdr-histogram-js'
import { MetricsDataError } from '../contract/errors.ts'
import { binomialUpperTail } from './special-functions.ts'

/** The non-empty buckets of a histogram, ascending. */
export interface HistogramBuckets {
  /** Each bucket's value (its highest equivalent value, as hdr reports percentiles), in the caller's unit. */
  values: number[]
  /** Values recorded in each bucket. */
  counts: number[]
  /** Sum of `counts`. */
  total: number
}

/** A probability distribution on finitely many values, ascending. */
export interface DiscreteDistribution {
  values: number[]
  probabilities: number[]
}

/**
 * Smallest value used in ratios, milliseconds: latencies are recorded in whole microseconds, so a
 * bucket at 0 means "below 1 µs", and a ratio against 0 would be infinite.
 */
const MIN_BUCKET_VALUE_MS = 0.001

/** Buckets of a decoded histogram, values divided by `unitDivisor` (1000: microseconds to milliseconds). */
export function bucketsOf(histogram: Histogram, unitDivisor: number): HistogramBuckets {
  if (!(histogram instanceof JsHistogram)) {
    throw new MetricsDataError('Expected a JavaScript HdrHistogram (decode without WebAssembly) to read its buckets.')
  }
  const values: number[] = []
  const counts: number[] = []
  let total = 0
  for (let i = 0; i < histogram.countsArrayLength; i++) {
    const count = histogram.getCountAtIndex(i)
    if (count <= 0) continue
    values.push(histogram.highestEquivalentValue(histogram.valueFromIndex(i)) / unitDivisor)
    counts.push(count)
    total += count
  }
  return { values, counts, total }
}

/**
 * Fewest samples for which a distribution-free two-sided interval of the `quantile` at
 * `confidence` exists: the extreme order statistics X(1) and X(n) must cover it with probability
 * 1 - alpha/2 each, i.e. q^n <= alpha/2 and (1-q)^n <= alpha/2. Exact (e.g. p99 at 95 %: 368,
 * since 0.99^368 = 0.0248 <= 0.025 < 0.99^367). A one-sided 95 % bound on p99 alone would need 299.
 */
export function minSamplesForQuantile(quantile: number, confidence: number): number {
  const tail = (1 - confidence) / 2
  const worst = Math.max(quantile, 1 - quantile)
  let n = Math.max(1, Math.floor(Math.log(tail) / Math.log(worst)) - 1)
  while (worst ** n > tail) n++
  return n
}

/**
 * The rank hdr reads a quantile at: the smallest k with k >= q * n (at least 1), as
 * `getValueAtPercentile`. The small allowance absorbs floating-point error in q * n.
 */
export function quantileRank(quantile: number, n: number): number {
  return Math.max(1, Math.ceil(quantile * n - 1e-9))
}

/** Mass below which a bootstrap value is dropped (far beyond any interval level used). */
const NEGLIGIBLE = 1e-15

/**
 * The exact bootstrap distribution of the `quantile` of a sample given by its buckets: the
 * distribution of the k-th smallest of n values drawn with replacement from the sample, where
 * P(X*(k) <= v_j) = P(Binomial(n, F_j) >= k) with F_j the sample's share at or below bucket j.
 * This is what resampling n values thousands of times estimates, without the Monte Carlo error
 * or the cost (one incomplete-beta evaluation per bucket near the quantile). Values below
 * {@link MIN_BUCKET_VALUE_MS} are raised to it so ratios stay finite.
 */
export function bootstrapQuantileDistribution(buckets: HistogramBuckets, quantile: number): DiscreteDistribution {
  const n = buckets.total
  const k = quantileRank(quantile, n)
  // Buckets whose cumulative share lies more than 12 standard errors from q carry no mass.
  const spread = 12 * Math.sqrt((quantile * (1 - quantile)) / n) + 2 / n
  const values: number[] = []
  const probabilities: number[] = []
  let cumulative = 0
  let previous = 0
  for (let j = 0; j < buckets.values.length; j++) {
    cumulative += buckets.counts[j] ?? 0
    const share = cumulative / n
    let atOrBelow: number
    if (share < quantile - spread) atOrBelow = 0
    else if (share > quantile + spread || cumulative >= n) atOrBelow = 1
    else atOrBelow = binomialUpperTail(n, share, k)
    const mass = atOrBelow - previous
    previous = atOrBelow
    if (mass > NEGLIGIBLE) {
      values.push(Math.max(MIN_BUCKET_VALUE_MS, buckets.values[j] ?? 0))
      probabilities.push(mass)
    }
    if (atOrBelow >= 1) break
  }
  return { values, probabilities }
}
