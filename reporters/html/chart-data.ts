import { decodeHistogram, LATENCY_UNITS_PER_MS } from '../../src/core/metrics/index.ts'
import type { GpuSample, Timeline } from '../../src/core/contract/result.ts'
import type { ServerMetrics } from '../../src/core/contract/server-metrics.ts'
import type { ChartPoint } from './svg-chart.ts'

/** Percentiles (0..100) at which a CDF is drawn: every half percent, finer in the tail. */
const CDF_PERCENTILES: readonly number[] = [
  ...Array.from({ length: 199 }, (_, index) => index * 0.5),
  99.1,
  99.2,
  99.3,
  99.4,
  99.5,
  99.6,
  99.7,
  99.8,
  99.9,
  99.95,
  99.99,
  100,
]

/**
 * Points of the empirical CDF of an encoded HDR histogram (microseconds, as in
 * `BenchmarkResult.histograms`): x in milliseconds, y the share of samples at or below x (0..1).
 * Empty when the histogram holds no sample.
 */
export function cdfPoints(encodedHistogram: string | undefined): ChartPoint[] {
  if (encodedHistogram === undefined) return []
  const histogram = decodeHistogram(encodedHistogram)
  if (histogram.totalCount === 0) return []
  const points: ChartPoint[] = []
  for (const percentile of CDF_PERCENTILES) {
    const x = histogram.getValueAtPercentile(percentile) / LATENCY_UNITS_PER_MS
    const y = percentile / 100
    const last = points[points.length - 1]
    // Equal values collapse into one point at the highest share (the CDF's step top).
    if (last !== undefined && last.x === x) last.y = y
    else points.push({ x, y })
  }
  return points
}

/** Seconds each window of the timeline covers (the last one may be partial). */
function windowSeconds(timeline: Timeline, index: number, count: number, durationMs: number): number {
  const full = timeline.windowMs / 1000
  if (index < count - 1 || !timeline.lastWindowPartial) return full
  const rest = (durationMs - timeline.windowMs * (count - 1)) / 1000
  return rest > 0 ? rest : full
}

/**
 * Per-window rates of a timeline (tokens or requests per second), at each window's end time in
 * seconds from the first measured dispatch. `durationMs` sizes the partial last window, which is
 * left out when shorter than half a window: a rate over a sliver of time is mostly noise.
 */
export function timelineRate(timeline: Timeline, values: readonly number[], durationMs: number): ChartPoint[] {
  const points: ChartPoint[] = []
  let end = 0
  values.forEach((value, index) => {
    const seconds = windowSeconds(timeline, index, values.length, durationMs)
    end += seconds
    if (index === values.length - 1 && timeline.lastWindowPartial && seconds < timeline.windowMs / 2000) return
    points.push({ x: end, y: value / seconds })
  })
  return points
}

/** Most requests in flight in each window, as a step series starting at 0 s. */
export function timelineInFlight(timeline: Timeline, durationMs: number): ChartPoint[] {
  const points: ChartPoint[] = []
  let start = 0
  timeline.inFlightMax.forEach((value, index) => {
    points.push({ x: start, y: value })
    start += windowSeconds(timeline, index, timeline.inFlightMax.length, durationMs)
  })
  const last = timeline.inFlightMax[timeline.inFlightMax.length - 1]
  if (last !== undefined) points.push({ x: start, y: last })
  return points
}

/** One series per GPU of a sampled field, x in seconds from the first sample. */
export function gpuSeries(
  samples: readonly GpuSample[],
  field: 'memoryUsedMiB' | 'powerW' | 'utilizationPct',
): Map<number, ChartPoint[]> {
  const start = samples.reduce((min, sample) => Math.min(min, sample.t), Number.POSITIVE_INFINITY)
  const byGpu = new Map<number, ChartPoint[]>()
  for (const sample of [...samples].sort((a, b) => a.t - b.t)) {
    const value = sample[field]
    if (value === undefined) continue
    let points = byGpu.get(sample.index)
    if (!points) byGpu.set(sample.index, (points = []))
    points.push({ x: (sample.t - start) / 1000, y: value })
  }
  return new Map([...byGpu].sort((a, b) => a[0] - b[0]))
}

/**
 * One server gauge over the window, x in seconds from the window's start. Scrapes that failed, or
 * a gauge the server lacks, are null there and give no point: the line joins its neighbours
 * rather than dropping to 0.
 */
export function serverGaugePoints(
  series: ServerMetrics['series'],
  gauge: 'requestsRunning' | 'requestsWaiting' | 'kvCacheUsage',
): ChartPoint[] {
  const points: ChartPoint[] = []
  series[gauge].forEach((value, index) => {
    const t = series.t[index]
    if (value === null || t === undefined) return
    points.push({ x: t / 1000, y: value })
  })
  return points
}
