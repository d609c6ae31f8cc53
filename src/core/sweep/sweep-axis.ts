/**
 * The value a sweep varies: closed-loop concurrency, open-loop request rate (requests per second), or one
 * argument of a launched server (`{ serverArg: { '-np': [1, 2, 4] } }`: a server started afresh per value,
 * the load fixed by `load`).
 */
export type SweepAxis = { concurrency: number[] } | { rate: number[] } | { serverArg: Record<string, number[]> }

/** Name of the swept value. */
export type SweepAxisName = 'concurrency' | 'rate' | 'serverArg'

/** Throughputs a sweep can follow (per second, as in `BenchmarkResult.throughput`). */
export type SweepThroughputMetric = 'outputTokensPerSec' | 'requestsPerSec' | 'totalTokensPerSec'
