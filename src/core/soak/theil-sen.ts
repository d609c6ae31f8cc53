import { normalQuantile } from '../verdict/special-functions.ts'

/** Theil-Sen's slope of y over x with Sen's interval; the bounds are null when too few points give one. */
export interface TheilSenFit {
  slope: number
  ciLow: number | null
  ciHigh: number | null
  /** The median of y. */
  median: number
}

function median(sorted: readonly number[]): number {
  const n = sorted.length
  if (n === 0) return Number.NaN
  const mid = Math.floor(n / 2)
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * Theil-Sen's estimator: the median of the slopes between every two points with different x, and
 * Sen's (1968) distribution-free interval for it from Kendall's S, at confidence `level`. A few
 * outlying windows (a GC pause, a neighbour's burst) move it little, unlike a least-squares line;
 * and unlike Mann-Kendall's test alone, it says how steep the trend is, which is what a limit such
 * as '+5%/h' is about. The interval assumes independent points: windows of one run are close to
 * that but not quite, which is why the false-trend rate is measured (docs/soak.md), not assumed.
 * Ties in y are not corrected for (latencies are measured in microseconds; ties are rare).
 */
export function theilSen(x: readonly number[], y: readonly number[], level: number = 0.95): TheilSenFit {
  const n = Math.min(x.length, y.length)
  const slopes: number[] = []
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = x[j]! - x[i]!
      if (dx !== 0) slopes.push((y[j]! - y[i]!) / dx)
    }
  }
  slopes.sort((a, b) => a - b)
  const ys = y.slice(0, n).sort((a, b) => a - b)
  const count = slopes.length
  if (count === 0) return { slope: 0, ciLow: null, ciHigh: null, median: median(ys) }
  const varianceS = (n * (n - 1) * (2 * n + 5)) / 18
  const c = normalQuantile(1 - (1 - level) / 2) * Math.sqrt(varianceS)
  // Sen's ranks, 1-based: M1 = (N - C) / 2 and M2 = (N + C) / 2 + 1.
  const lower = Math.round((count - c) / 2) - 1
  const upper = Math.round((count + c) / 2)
  const inRange = lower >= 0 && upper < count
  return {
    slope: median(slopes),
    ciLow: inRange ? slopes[lower]! : null,
    ciHigh: inRange ? slopes[upper]! : null,
    median: median(ys),
  }
}
