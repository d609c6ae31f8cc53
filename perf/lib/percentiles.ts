/** p50, p99 and max of a sample (nearest rank), in the sample's unit. */
export interface Spread {
  count: number
  p50: number
  p99: number
  max: number
}

/** Nearest-rank percentiles; NaN fields for an empty sample. */
export function spreadOf(values: ArrayLike<number>): Spread {
  const sorted = Float64Array.from(values).sort()
  const n = sorted.length
  const at = (q: number): number =>
    n === 0 ? NaN : (sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))] as number)
  return { count: n, p50: at(0.5), p99: at(0.99), max: n === 0 ? NaN : (sorted[n - 1] as number) }
}

/** `p50 / p99 / max` with `digits` decimals, for tables. */
export function formatSpread(spread: Spread, digits = 3): string {
  return `${spread.p50.toFixed(digits)} / ${spread.p99.toFixed(digits)} / ${spread.max.toFixed(digits)}`
}
