import type { Histogram } from 'hdr-histogram-js'
import type { MetricSummary } from '../contract/result.ts'

/** The percentiles every {@link MetricSummary} carries, in percent. */
export const SUMMARY_PERCENTILES = { p50: 50, p90: 90, p95: 95, p99: 99, p999: 99.9 } as const

/** The summary of a distribution with no values: count 0 and every figure 0 (never NaN, so it serialises to JSON). */
export function emptySummary(): MetricSummary {
  return { count: 0, min: 0, max: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 }
}

/**
 * Percentiles of a histogram, in the histogram's units divided by `unitDivisor`, clamped to
 * [`min`, `max`] (a bucket's top can lie above the largest value recorded in it).
 *
 * hdr's `getValueAtPercentile(p)` returns the highest value equivalent to (in the same bucket as)
 * the smallest recorded value that at least p % of values are at or below. vLLM uses
 * `np.percentile`, which interpolates linearly between the two nearest order statistics. With 3
 * significant digits a bucket is at most 1/1024 of its value wide, so the two differ by < 0.1 %
 * (e.g. p99 of 1..1000 ms: hdr 990.207 ms, numpy 990.01 ms, 0.02 % apart).
 */
export function histogramPercentiles(
  histogram: Histogram,
  unitDivisor: number,
  min: number,
  max: number,
): Pick<MetricSummary, keyof typeof SUMMARY_PERCENTILES> {
  const at = (percentile: number): number =>
    Math.min(max, Math.max(min, histogram.getValueAtPercentile(percentile) / unitDivisor))
  return {
    p50: at(SUMMARY_PERCENTILES.p50),
    p90: at(SUMMARY_PERCENTILES.p90),
    p95: at(SUMMARY_PERCENTILES.p95),
    p99: at(SUMMARY_PERCENTILES.p99),
    p999: at(SUMMARY_PERCENTILES.p999),
  }
}

/**
 * Summary of a histogram alone (e.g. one decoded from a baseline), in the histogram's units
 * divided by `unitDivisor` (1000 turns microseconds into milliseconds; 1 for token counts).
 *
 * Everything comes from the buckets, so it is exact to the histogram's resolution (< 0.1 %):
 * `min` is the lowest value of the lowest bucket, `max` the largest value recorded (decoded
 * histograms: the top of the highest bucket), `mean` and `stddev` use each bucket's midpoint, and
 * `stddev` is the population standard deviation (divides by n, as hdr and numpy's `np.std`).
 * {@link MetricsAccumulator} reports exact min, max, mean and stddev instead, from running sums.
 * An empty histogram gives {@link emptySummary}.
 */
export function summarizeHistogram(histogram: Histogram, unitDivisor: number): MetricSummary {
  const count = histogram.totalCount
  if (count === 0) return emptySummary()
  // Percentile 0 is the lowest recorded bucket's lowest value; unlike minNonZeroValue it sees zeros.
  const min = histogram.getValueAtPercentile(0) / unitDivisor
  const max = histogram.maxValue / unitDivisor
  return {
    count,
    min,
    max,
    mean: histogram.mean / unitDivisor,
    stddev: histogram.stdDeviation / unitDivisor,
    ...histogramPercentiles(histogram, unitDivisor, min, max),
  }
}
