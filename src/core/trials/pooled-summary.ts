import { decodeHistogram, encodeHistogram } from '../metrics/histogram.ts'
import { histogramPercentiles } from '../metrics/summarize-histogram.ts'
import type { BenchmarkResult, MetricSummary, StreamingInfo } from '../contract/types.ts'

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

const LATENCY = [
  ['ttftMs', 'ttftUs'],
  ['tpotMs', 'tpotUs'],
  ['itlMs', 'itlUs'],
  ['e2eMs', 'e2eUs'],
  // Reported only where measured: merged over the results that have them.
  ['ttfoMs', 'ttfoUs'],
  ['itlPerTokenMs', 'itlPerTokenUs'],
] as const

/**
 * The metrics of several results as one (trials of a bench, or segments of one load): latencies
 * from their summed histograms, token counts pooled exactly with `base`'s percentiles (a token
 * count's histogram is not kept), reasoning tokens pooled where reported.
 */
export function mergeMetrics(
  results: readonly BenchmarkResult[],
  base: BenchmarkResult,
): Pick<BenchmarkResult, 'metrics' | 'histograms'> {
  const metrics = { ...base.metrics }
  const histograms: BenchmarkResult['histograms'] = {}
  for (const [metric, key] of LATENCY) {
    const parts = results.map((r) => r.metrics[metric]).filter((m): m is MetricSummary => m !== undefined)
    if (parts.length === 0) continue
    const merged = mergedLatency(
      parts,
      results.map((r) => r.histograms[key]),
    )
    metrics[metric] = merged.summary
    if (merged.histogram !== undefined) histograms[key] = merged.histogram
  }
  for (const metric of ['inputTokens', 'outputTokens'] as const)
    metrics[metric] = { ...base.metrics[metric], ...pooled(results.map((r) => r.metrics[metric])) }
  const reasoning = results.map((r) => r.metrics.reasoningTokens).filter((m): m is MetricSummary => m !== undefined)
  if (reasoning.length > 0)
    metrics.reasoningTokens = {
      ...(base.metrics.reasoningTokens ?? { p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 }),
      ...pooled(reasoning),
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
