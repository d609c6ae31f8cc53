import type { BenchmarkResult, MetricSummary } from '../contract/result.ts'
import type { CurveLatency, SweepCurvePoint } from './sweep-result.ts'

function latency(summary: MetricSummary): CurveLatency {
  return { p50: summary.p50, p90: summary.p90, p99: summary.p99 }
}

/** The headline figures of one point's result. */
export function curvePointOf(value: number, result: BenchmarkResult, valid?: boolean): SweepCurvePoint {
  const point: SweepCurvePoint = {
    value,
    outputTokensPerSec: result.throughput.outputTokensPerSec,
    requestsPerSec: result.throughput.requestsPerSec,
    totalTokensPerSec: result.throughput.totalTokensPerSec,
    ttftMs: latency(result.metrics.ttftMs),
    tpotMs: latency(result.metrics.tpotMs),
    e2eMs: latency(result.metrics.e2eMs),
    completed: result.counts.completed,
    failed: result.counts.failed,
  }
  if (valid !== undefined) point.valid = valid
  return point
}
