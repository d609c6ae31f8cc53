import { decodeHistogram, encodeHistogram } from '../metrics/histogram.ts'
import { histogramPercentiles } from '../metrics/summarize-histogram.ts'
import type { MetricSummary } from '../contract/types.ts'

/** Count, min, max, mean and population stddev of several summaries together, exactly (pooled sums). */
export function pooled(parts: readonly MetricSummary[]): Pick<MetricSummary, 'count' | 'min' | 'max' | 'mean' | 'stddev'> {
  const present = parts.filter((part) => part.count > 0)
  const count = present.reduce((sum, part) => sum + part.count, 0)
  if (count === 0) return { count: 0, min: 0, max: 0, mean: 0, stddev: 0 }
  const mean = present.reduce((sum, part) => sum + part.mean * part.count, 0) / count
  const squares = present.reduce((sum, part) => sum + part.count * (part.stddev ** 2 + (part.mean - mean) ** 2), 0)
  return {
    count,
    min: Math.min(...present.map((part) => part.min)),
    max: Math.max(...present.map((part) => part.max)),
    mean,
    stddev: Math.sqrt(squares / count),
  }
}

/** One latency over all trials: pooled statistics, percentiles from the summed histograms (µs, base64). */
export function mergedLatency(parts: readonly MetricSummary[], histograms: ReadonlyArray<string | undefined>): { summary: MetricSummary; histogram?: string } {
  const stats = pooled(parts)
  const encoded = histograms.filter((h): h is string => h !== undefined)
  if (encoded.length === 0 || stats.count === 0) return { summary: { ...stats, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 } }
  const histogram = decodeHistogram(encoded[0] as string)
  for (const other of encoded.slice(1)) histogram.add(decodeHistogram(other))
  return { summary: { ...stats, ...histogramPercentiles(histogram, 1000, stats.min, stats.max) }, histogram: encodeHistogram(histogram) }
}
