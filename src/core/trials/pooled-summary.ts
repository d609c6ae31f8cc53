import { decodeHistogram, encodeHistogram } from '../metrics/histogram.ts'
import { histogramPercentiles } from '../metrics/summarize-histogram.ts'
import type { BenchmarkResult, MetricSummary, StreamingInfo } from '../contract/result.ts'
import { LATENCIES, METRIC_CATALOG, TOKEN_COUNTS } from '../contract/metric-catalog.ts'

/** Count, min, max, mean and population stddev of several summaries together, exactly (pooled sums). */
export function pooled(
  parts: readonly MetricSummary[],
): Pick<MetricSummary, 'count' | 'min' | 'max' | 'mean' | 'stddev'> {
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
export function mergedLatency(
  parts: readonly MetricSummary[],
  histograms: ReadonlyArray<string | undefined>,
): { summary: MetricSummary; histogram?: string } {
  const stats = pooled(parts)
  const encoded = histograms.filter((h): h is string => h !== undefined)
  if (encoded.length === 0 || stats.count === 0)
    return { summary: { ...stats, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 } }
  const histogram = decodeHistogram(encoded[0] as string)
  for (const other of encoded.slice(1)) histogram.add(decodeHistogram(other))
  return {
    summary: { ...stats, ...histogramPercentiles(histogram, 1000, stats.min, stats.max) },
    histogram: encodeHistogram(histogram),
  }
}

/**
 * The metrics of several results as one (trials of a bench, or segments of one load): latencies
 * from their summed histograms, token counts pooled exactly with `base`'s percentiles (a token
 * count's histogram is not kept); a metric reported only where measured, over the results that have it.
 */
export function mergeMetrics(
  results: readonly BenchmarkResult[],
  base: BenchmarkResult,
): Pick<BenchmarkResult, 'metrics' | 'histograms'> {
  const metrics = { ...base.metrics }
  const histograms: BenchmarkResult['histograms'] = {}
  for (const metric of LATENCIES) {
    const key = METRIC_CATALOG[metric].histogram
    const parts = results.map((r) => r.metrics[metric]).filter((m): m is MetricSummary => m !== undefined)
    if (parts.length === 0) continue
    const merged = mergedLatency(
      parts,
      results.map((r) => r.histograms[key]),
    )
    metrics[metric] = merged.summary
    if (merged.histogram !== undefined) histograms[key] = merged.histogram
  }
  for (const metric of TOKEN_COUNTS) {
    const parts = results.map((r) => r.metrics[metric]).filter((m): m is MetricSummary => m !== undefined)
    if (parts.length === 0) continue
    metrics[metric] = { ...(base.metrics[metric] ?? { p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 }), ...pooled(parts) }
  }
  return { metrics, histograms }
}

/** How the responses of several results arrived, as one: counts add, streamed only when every one streamed. */
export function mergeStreaming(results: readonly BenchmarkResult[], base: BenchmarkResult): StreamingInfo {
  const sum = (pick: (s: StreamingInfo) => number): number => results.reduce((total, r) => total + pick(r.streaming), 0)
  return {
    ...base.streaming,
    streamed: results.every((r) => r.streaming.streamed),
    nonSseRequests: sum((s) => s.nonSseRequests),
    burstRequests: sum((s) => s.burstRequests),
    multiTokenChunks: sum((s) => s.multiTokenChunks),
    ...(results.some((r) => r.streaming.toolCallRequests !== undefined)
      ? { toolCallRequests: sum((s) => s.toolCallRequests ?? 0) }
      : {}),
    ...(results.some((r) => r.streaming.structuredOutput !== undefined)
      ? {
          structuredOutput: {
            checked: sum((s) => s.structuredOutput?.checked ?? 0),
            valid: sum((s) => s.structuredOutput?.valid ?? 0),
            notJson: sum((s) => s.structuredOutput?.notJson ?? 0),
            schemaMismatch: sum((s) => s.structuredOutput?.schemaMismatch ?? 0),
          },
        }
      : {}),
  }
}
