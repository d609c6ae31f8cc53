/** How a server-metrics note begins when it is copied into `BenchmarkResult.warnings`. */
export const SERVER_NOTE_PREFIX = 'Server metrics: '
