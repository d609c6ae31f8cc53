import type { BenchmarkResult, Throughput } from '../contract/result.ts'

/**
 * The throughputs of several results (trials, segments) over `durationMs`: what each completed (its
 * rate times its own duration), summed, divided by it. The texts and input tokens of the embeddings
 * and rerank APIs only when every result measured them.
 */
export function pooledThroughput(results: readonly BenchmarkResult[], durationMs: number): Throughput {
  const amount = (rate: (r: BenchmarkResult) => number): number =>
    results.reduce((total, r) => total + rate(r) * (r.durationMs / 1000), 0)
  const perSecond = (value: number): number => (durationMs > 0 ? value / (durationMs / 1000) : 0)
  const throughput: Throughput = {
    requestsPerSec: perSecond(results.reduce((total, r) => total + r.counts.completed, 0)),
    outputTokensPerSec: perSecond(amount((r) => r.throughput.outputTokensPerSec)),
    totalTokensPerSec: perSecond(amount((r) => r.throughput.totalTokensPerSec)),
  }
  if (results.every((r) => r.throughput.inputsPerSec !== undefined)) {
    throughput.inputsPerSec = perSecond(amount((r) => r.throughput.inputsPerSec ?? 0))
    throughput.inputTokensPerSec = perSecond(amount((r) => r.throughput.inputTokensPerSec ?? 0))
  }
  return throughput
}
