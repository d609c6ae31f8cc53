import type { BenchmarkResult } from '../contract/result.ts'
import type { RequestRecord } from '../contract/request-record.ts'

/**
 * A run's throughput cut into consecutive windows of equal length: what was completed in each.
 * The run-level throughput is (about) the mean of these; their spread tells how noisy it is.
 */
export interface ThroughputSeries {
  /** Window length, milliseconds. */
  windowMs: number
  /** Requests completed in each window. */
  requests: number[]
  /** Output tokens produced in each window. */
  outputTokens: number[]
  /** Input plus output tokens in each window. */
  totalTokens: number[]
}

/** How noisy one run-level throughput figure is. */
export interface ThroughputNoise {
  /** Standard error of the run-level figure divided by the figure (0.02 is 2 %). */
  relativeStdError: number
  /** Windows the estimate used. */
  windows: number
  /** Batches the windows were grouped into (the estimate has `batches - 1` degrees of freedom). */
  batches: number
}

/** Default window length for {@link throughputSeriesFromRequests}, milliseconds. */
export const THROUGHPUT_WINDOW_MS = 1000

/** Fewest windows {@link throughputNoiseOf} estimates from; shorter runs fall back to an assumed noise. */
export const MIN_THROUGHPUT_WINDOWS = 10

/** Batches of the batch-means estimate: few enough that each spans many windows, enough for a usable t quantile. */
const BATCHES = 10

/**
 * Per-window totals from recorded requests (`recordRequests: true`). Output tokens are spread
 * evenly over a request's content-bearing chunks (when it reported usage, the chunk count may
 * differ from the token count); a request and its input tokens count where it ended. Only measured
 * (index >= 0), successful requests count, and only whole windows from the first send on: the
 * partial last window would bias the series low. Undefined when there is no whole window.
 */
export function throughputSeriesFromRequests(
  requests: readonly RequestRecord[],
  windowMs: number = THROUGHPUT_WINDOW_MS,
): ThroughputSeries | undefined {
  const measured = requests.filter((request) => request.index >= 0)
  const completed = measured.filter((request) => request.ok)
  if (measured.length === 0 || completed.length === 0) return undefined
  // Loops, not Math.min(...spread): a long run records more requests than a call takes arguments.
  let start = Infinity
  for (const request of measured) start = Math.min(start, request.sentAt)
  let end = -Infinity
  for (const request of completed) end = Math.max(end, request.endAt)
  const windows = Math.floor((end - start) / windowMs)
  if (windows < 1) return undefined
  const series: ThroughputSeries = {
    windowMs,
    requests: new Array<number>(windows).fill(0),
    outputTokens: new Array<number>(windows).fill(0),
    totalTokens: new Array<number>(windows).fill(0),
  }
  const windowOf = (t: number): number => Math.floor((t - start) / windowMs)
  for (const request of completed) {
    const last = windowOf(request.endAt)
    if (last >= 0 && last < windows) {
      series.requests[last] = (series.requests[last] ?? 0) + 1
      series.totalTokens[last] = (series.totalTokens[last] ?? 0) + request.inputTokens
    }
    const times = request.chunkTimes.length > 0 ? request.chunkTimes : [request.endAt]
    const perChunk = request.outputTokens / times.length
    for (const t of times) {
      const w = windowOf(t)
      if (w < 0 || w >= windows) continue
      series.outputTokens[w] = (series.outputTokens[w] ?? 0) + perChunk
      series.totalTokens[w] = (series.totalTokens[w] ?? 0) + perChunk
    }
  }
  return series
}

/**
 * Relative standard error of a run-level throughput from its per-window values, by batch means:
 * the windows are grouped into 10 consecutive batches and the spread of the batch means gives the
 * standard error. Neighbouring windows are correlated (a long request spans several), which makes
 * the plain standard error of the windows too small; batches of several windows are close to
 * independent. Undefined with fewer than {@link MIN_THROUGHPUT_WINDOWS} windows or a zero mean.
 */
export function throughputNoiseOf(values: readonly number[]): ThroughputNoise | undefined {
  if (values.length < MIN_THROUGHPUT_WINDOWS) return undefined
  const size = Math.floor(values.length / BATCHES)
  const means: number[] = []
  for (let b = 0; b < BATCHES; b++) {
    let sum = 0
    for (let i = b * size; i < (b + 1) * size; i++) sum += values[i] ?? 0
    means.push(sum / size)
  }
  const mean = means.reduce((a, b) => a + b, 0) / BATCHES
  if (!(mean > 0)) return undefined
  const variance = means.reduce((acc, m) => acc + (m - mean) ** 2, 0) / (BATCHES - 1)
  return { relativeStdError: Math.sqrt(variance / BATCHES) / mean, windows: size * BATCHES, batches: BATCHES }
}

/** {@link throughputNoiseOf} for each throughput of a series. */
export function throughputNoiseOfSeries(series: ThroughputSeries): {
  requestsPerSec?: ThroughputNoise
  outputTokensPerSec?: ThroughputNoise
  totalTokensPerSec?: ThroughputNoise
} {
  const out: {
    requestsPerSec?: ThroughputNoise
    outputTokensPerSec?: ThroughputNoise
    totalTokensPerSec?: ThroughputNoise
  } = {}
  const requests = throughputNoiseOf(series.requests)
  const output = throughputNoiseOf(series.outputTokens)
  const total = throughputNoiseOf(series.totalTokens)
  if (requests) out.requestsPerSec = requests
  if (output) out.outputTokensPerSec = output
  if (total) out.totalTokensPerSec = total
  return out
}

/**
 * The per-window series of a result: its `timeline` (without a partial last window), else one
 * derived from `requests` when the run recorded them, else undefined (the verdict then assumes a
 * noise and says so).
 */
export function throughputSeriesOf(result: BenchmarkResult): ThroughputSeries | undefined {
  const timeline = result.timeline
  if (timeline && timeline.requests.length > 0) {
    const whole = timeline.lastWindowPartial ? timeline.requests.length - 1 : timeline.requests.length
    if (whole < 1) return undefined
    return {
      windowMs: timeline.windowMs,
      requests: timeline.requests.slice(0, whole),
      outputTokens: timeline.outputTokens.slice(0, whole),
      totalTokens: timeline.totalTokens.slice(0, whole),
    }
  }
  return result.requests ? throughputSeriesFromRequests(result.requests) : undefined
}
