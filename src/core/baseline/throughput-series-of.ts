import type { BenchmarkResult } from '../types.ts'
import type { ThroughputSeries } from './throughput-noise.ts'
import { throughputSeriesFromRequests } from './throughput-noise.ts'

/**
 * The per-window throughput of a run, for its noise estimate: the result's timeline (every run
 * has one) without its partial last window, else one derived from recorded requests.
 */
export function throughputSeriesOf(result: BenchmarkResult): ThroughputSeries | undefined {
  const timeline = result.timeline
  if (timeline) {
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
