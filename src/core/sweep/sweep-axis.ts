/** The value a sweep varies: closed-loop concurrency, or open-loop request rate (requests per second). */
export type SweepAxis = { concurrency: number[] } | { rate: number[] }

/** Name of the swept value. */
export type SweepAxisName = 'concurrency' | 'rate'

/** Throughputs a sweep can follow (per second, as in `BenchmarkResult.throughput`). */
export type SweepThroughputMetric = 'outputTokensPerSec' | 'requestsPerSec' | 'totalTokensPerSec'
