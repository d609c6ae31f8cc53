/** Actual minus planned send time, in milliseconds. */
export interface ScheduleLag {
  p50: number
  p99: number
  max: number
}

/** Nearest-rank percentiles of the lags (ms); undefined when there are none. */
export function summarizeLag(lagsMs: ArrayLike<number>): ScheduleLag | undefined {
  if (lagsMs.length === 0) return undefined
  const sorted = Float64Array.from(lagsMs).sort()
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 }
}
