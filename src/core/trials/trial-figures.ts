import type { BenchmarkResult, TrialFigures } from '../contract/types.ts'

/** Trials a baseline entry and a result keep at most (the most recent ones). */
export const MAX_KEPT_TRIALS = 10

/** The figures of one trial that a verdict compares across trials. */
export function trialFiguresOf(result: BenchmarkResult): TrialFigures {
  const latency = {} as TrialFigures['latency']
  for (const metric of ['ttftMs', 'tpotMs', 'itlMs', 'e2eMs'] as const) {
    const { count, mean, p50, p90, p95, p99, p999 } = result.metrics[metric]
    latency[metric] = { count, mean, p50, p90, p95, p99, p999 }
  }
  const { outputTokensPerSec, requestsPerSec, totalTokensPerSec } = result.throughput
  return {
    durationMs: result.durationMs,
    latency,
    throughput: { outputTokensPerSec, requestsPerSec, totalTokensPerSec },
  }
}

/** The trials of a result: its own list, or the result itself as its single trial. */
export function trialsOf(result: BenchmarkResult): TrialFigures[] {
  return result.trials ?? [trialFiguresOf(result)]
}
