import type { BenchmarkResult, TrialFigures } from './result.ts'
import { GATEABLE_LATENCIES, type GateableLatency } from './metric-catalog.ts'

/** Trials a baseline entry and a result keep at most (the most recent ones). */
export const MAX_KEPT_TRIALS = 10

/** The figures of one trial that a verdict compares across trials. */
export function trialFiguresOf(result: BenchmarkResult): TrialFigures {
  const latency: Partial<Record<GateableLatency, TrialFigures['latency']['ttftMs']>> = {}
  for (const metric of GATEABLE_LATENCIES) {
    const summary = result.metrics[metric]
    if (summary === undefined) continue
    const { count, mean, p50, p90, p95, p99, p999 } = summary
    latency[metric] = { count, mean, p50, p90, p95, p99, p999 }
  }
  const { outputTokensPerSec, requestsPerSec, totalTokensPerSec } = result.throughput
  return {
    durationMs: result.durationMs,
    // Each latency every result reports is there: only those reported where measured may be missing.
    latency: latency as TrialFigures['latency'],
    throughput: { outputTokensPerSec, requestsPerSec, totalTokensPerSec },
  }
}

/** The trials of a result: its own list, or the result itself as its single trial. */
export function trialsOf(result: BenchmarkResult): TrialFigures[] {
  return result.trials ?? [trialFiguresOf(result)]
}
