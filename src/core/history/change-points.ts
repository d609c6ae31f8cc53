/**
 * Change points in a series of measurements: E-Divisive means (Matteson & James, 2014) as Apache
 * Otava and MongoDB run it (Fleming et al., "Hunter", 2023). Candidates are where the energy
 * divergence between the points before and after is largest; each is kept only when Student's
 * t-test between its neighbouring segments is significant. Otava's two practical changes are kept:
 * sliding windows (a long tail after a step no longer dilutes it) and "weak" points found at ten
 * times the threshold, then merged back, weakest first, until every survivor meets the threshold.
 */
import { studentTTwoSidedP } from '../verdict/special-functions.ts'

/** Options of {@link changePoints}. */
export interface ChangePointOptions {
  /** A change point's two-sided p-value must be below this. Default 0.001 (Otava's and MongoDB's). */
  maxPValue?: number
  /** Points per sliding window of the split step (windows overlap by half). Default 50, as Otava's. */
  windowLength?: number
}

/** One change point of a series. */
export interface ChangePoint {
  /** Index (0-based) of the first point after the change. */
  index: number
  /**
   * Two-sided p-value of Student's t-test (pooled variance) between the points since the previous
   * change point and the points up to the next one.
   */
  pValue: number
  /** Mean of the segment before, in the series' unit. */
  meanBefore: number
  /** Mean of the segment after, in the series' unit. */
  meanAfter: number
  /** `meanAfter / meanBefore - 1` (0.2: 20 % higher); NaN when the mean before is 0. */
  relativeChange: number
}

/** The method in a few words, for reports. */
export const CHANGE_POINT_METHOD = 'E-Divisive means (Otava)'

/** Defaults of {@link ChangePointOptions}. */
export const DEFAULT_MAX_P_VALUE = 0.001
export const DEFAULT_WINDOW_LENGTH = 50

/** Sums of |x_i - x_j| over rectangles of the distance matrix, from a 2-D prefix sum. */
class DistanceSums {
  private readonly size: number
  private readonly prefix: Float64Array
  constructor(values: readonly number[]) {
    const n = values.length
    this.size = n + 1
    this.prefix = new Float64Array(this.size * this.size)
    for (let i = 0; i < n; i++) {
      let row = 0
      for (let j = 0; j < n; j++) {
        row += Math.abs((values[i] as number) - (values[j] as number))
        this.prefix[(i + 1) * this.size + j + 1] = (this.prefix[i * this.size + j + 1] as number) + row
      }
    }
  }
  /** Sum over i in [a, b), j in [c, d). */
  rect(a: number, b: number, c: number, d: number): number {
    const p = this.prefix
    const s = this.size
    return (p[b * s + d] as number) - (p[a * s + d] as number) - (p[b * s + c] as number) + (p[a * s + c] as number)
  }
}

/** Half-open index range `[start, end)`. */
interface Interval {
  start: number
  end: number
}

/**
 * The split of `interval` with the largest Q̂ (energy divergence scaled by m·k/(m+k), α = 1) over all
 * tau and kappa with start < tau < kappa <= end; undefined when the interval has fewer than 2 points.
 */
function bestSplit(sums: DistanceSums, interval: Interval): { tau: number; q: number } | undefined {
  const { start, end } = interval
  let best: { tau: number; q: number } | undefined
  for (let tau = start + 1; tau < end; tau++) {
    const m = tau - start
    const withinBefore = m > 1 ? sums.rect(start, tau, start, tau) / (m * (m - 1)) : 0
    for (let kappa = tau + 1; kappa <= end; kappa++) {
      const k = kappa - tau
      const between = (2 * sums.rect(start, tau, tau, kappa)) / (m * k)
      const withinAfter = k > 1 ? sums.rect(tau, kappa, tau, kappa) / (k * (k - 1)) : 0
      const q = ((m * k) / (m + k)) * (between - withinBefore - withinAfter)
      if (best === undefined || q > best.q) best = { tau, q }
    }
  }
  return best
}

/** Student's two-sample t-test (pooled variance) between `values[before]` and `values[after]`. */
function tTest(values: readonly number[], before: Interval, after: Interval): Omit<ChangePoint, 'index'> {
  const stats = ({ start, end }: Interval) => {
    let sum = 0
    for (let i = start; i < end; i++) sum += values[i] as number
    const mean = sum / (end - start)
    let squares = 0
    for (let i = start; i < end; i++) squares += ((values[i] as number) - mean) ** 2
    return { n: end - start, mean, squares }
  }
  const a = stats(before)
  const b = stats(after)
  const relativeChange = a.mean === 0 ? NaN : b.mean / a.mean - 1
  const df = a.n + b.n - 2
  const result = { meanBefore: a.mean, meanAfter: b.mean, relativeChange }
  if (df < 1) return { ...result, pValue: 1 }
  const pooled = (a.squares + b.squares) / df
  if (pooled === 0) return { ...result, pValue: a.mean === b.mean ? 1 : 0 }
  const t = (b.mean - a.mean) / Math.sqrt(pooled * (1 / a.n + 1 / b.n))
  return { ...result, pValue: studentTTwoSidedP(t, df) }
}

/**
 * E-Divisive on `values[window]`: the best split over all current intervals, kept while its
 * t-test is below `threshold`, each kept point splitting its interval. Indices are the series'.
 */
function divisive(values: readonly number[], window: Interval, threshold: number): number[] {
  const sums = new DistanceSums(values.slice(window.start, window.end))
  const local = (interval: Interval): Interval => ({
    start: interval.start - window.start,
    end: interval.end - window.start,
  })
  const intervals: Interval[] = [window]
  const found: number[] = []
  for (;;) {
    let best: { interval: Interval; tau: number; q: number } | undefined
    for (const interval of intervals) {
      const split = bestSplit(sums, local(interval))
      if (split && (best === undefined || split.q > best.q))
        best = { interval, tau: split.tau + window.start, q: split.q }
    }
    if (!best) return found
    const { interval, tau } = best
    const before = { start: interval.start, end: tau }
    const after = { start: tau, end: interval.end }
    if (!(tTest(values, before, after).pValue < threshold)) return found
    found.push(tau)
    intervals.splice(intervals.indexOf(interval), 1, before, after)
  }
}

/** Each of the sorted `indices` tested between its neighbours (the series' ends outside). */
function testedBetweenNeighbours(values: readonly number[], indices: readonly number[]): ChangePoint[] {
  return indices.map((index, i) => ({
    index,
    ...tTest(
      values,
      { start: indices[i - 1] ?? 0, end: index },
      { start: index, end: indices[i + 1] ?? values.length },
    ),
  }))
}

/**
 * The change points of `values` (in time order), each with its p-value and the means either side.
 * Split step: overlapping windows of `windowLength` points, E-Divisive in each at ten times
 * `maxPValue` (weak points). Merge step: the weakest point is dropped while its p-value, tested
 * between its neighbours, is not below `maxPValue`. Deterministic: no random permutations.
 */
export function changePoints(values: readonly number[], options: ChangePointOptions = {}): ChangePoint[] {
  const maxPValue = options.maxPValue ?? DEFAULT_MAX_P_VALUE
  const windowLength = Math.max(2, Math.floor(options.windowLength ?? DEFAULT_WINDOW_LENGTH))
  // Otava's relaxed first pass: weak points at 10x the threshold (2x from 0.05, none from 0.5).
  const weakPValue = maxPValue < 0.05 ? maxPValue * 10 : maxPValue < 0.5 ? maxPValue * 2 : maxPValue
  const step = Math.max(1, Math.floor(windowLength / 2))
  const weak = new Set<number>()
  for (let start = 0; start < values.length;) {
    const found = divisive(values, { start, end: Math.min(start + windowLength, values.length) }, weakPValue)
    for (const index of found) weak.add(index)
    start = Math.max(Math.max(0, ...found), start + step)
  }
  let indices = [...weak].sort((a, b) => a - b)
  for (;;) {
    const tested = testedBetweenNeighbours(values, indices)
    const weakest = tested.reduce<ChangePoint | undefined>((w, p) => (w && w.pValue >= p.pValue ? w : p), undefined)
    if (!weakest || weakest.pValue < maxPValue) return tested
    indices = indices.filter((index) => index !== weakest.index)
  }
}
