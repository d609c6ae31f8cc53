import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64 } from 'hdr-histogram-js'
import type { Histogram } from 'hdr-histogram-js'
import { MetricsDataError } from '../contract/errors.ts'

/**
 * Significant decimal digits every histogram keeps: a recorded value lands in a bucket at most
 * 1/1024 (< 0.1 %) of its size wide, so a percentile is never off by more than 0.1 %.
 */
export const HISTOGRAM_SIGNIFICANT_DIGITS = 3

// Latencies are recorded in integer microseconds: the catalog's scale, the one every latency histogram uses.
export { LATENCY_UNITS_PER_MS } from '../contract/metric-catalog.ts'

/**
 * Initial top of a latency histogram: one hour in microseconds, far above the default request
 * timeout (10 minutes), so no resize happens in practice. Histograms still auto-resize above it:
 * a value is never clamped, dropped or thrown on.
 */
export const LATENCY_HIGHEST_TRACKABLE_US = 3_600_000_000

/** Initial top of a token-count histogram (2^24 tokens); auto-resizes above it like latencies. */
export const TOKENS_HIGHEST_TRACKABLE = 16_777_216

/**
 * An empty histogram for values from 1 up to `highestTrackableValue` (initially; it grows on
 * demand). Uses the JavaScript implementation: the WebAssembly one needs an async init, must be
 * destroyed by hand and brings nothing measurable at a few values per request.
 */
export function createHistogram(highestTrackableValue: number): Histogram {
  return build({
    lowestDiscernibleValue: 1,
    highestTrackableValue,
    numberOfSignificantValueDigits: HISTOGRAM_SIGNIFICANT_DIGITS,
    autoResize: true,
    bitBucketSize: 32,
  })
}

/** The histogram as compressed base64 (HdrHistogram V2 encoding, readable by every HdrHistogram port). */
export function encodeHistogram(histogram: Histogram): string {
  return encodeIntoCompressedBase64(histogram)
}

/**
 * Reads a histogram written by `encodeIntoCompressedBase64` (as stored in
 * `BenchmarkResult.histograms` and in baselines). The result auto-resizes, so it can be merged with
 * histograms of any range.
 *
 * @throws {MetricsDataError} when the text is not an encoded HdrHistogram.
 */
export function decodeHistogram(base64: string): Histogram {
  let histogram: Histogram
  try {
    histogram = decodeFromCompressedBase64(base64)
  } catch (cause) {
    throw new MetricsDataError(
      `Cannot decode histogram: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        'Expected the compressed base64 text written by encodeIntoCompressedBase64; if it comes from a baseline file, rewrite the baseline with -u.',
      { cause },
    )
  }
  histogram.autoResize = true
  return histogram
}
