/*
 * MLPerf LoadGen's early-stopping criterion, ported line for line from
 * mlcommons/inference loadgen/early_stopping.cc (`MinPassingQueriesFinder`, `odds`,
 * `beta_regularized`, `hypergeometric_2F1_A1`, `find_min_passing`) and the SingleStream and
 * Server branches of `PerformanceSummary::EarlyStopping` in loadgen/results.cc. The statistics are
 * described in the MLPerf Inference rules (mlcommons/inference_policies, inference_rules.adoc,
 * appendix "Early Stopping Criterion"): with p the target percentile, d the tolerance and c the
 * confidence, the smallest number h of under-latency queries such that a system whose true
 * under-latency rate is p - d would show at most t over-latency queries in h + t with probability
 * below 1 - c, i.e. I(p - d; h, t + 1) < 1 - c (the binomial CDF as a regularized incomplete beta).
 * LoadGen uses d = 0 and c = 0.99.
 *
 * The integer truncations, the search bounds and the cache that narrows them are kept as in the C++
 * so that results match LoadGen's exactly, not only in the limit.
 */

/** LoadGen's confidence of the early-stopping criterion (`confidence = 0.99` in results.cc). */
export const LOADGEN_CONFIDENCE = 0.99
/** LoadGen's tolerance (`tolerance = 0.0` in results.cc). */
export const LOADGEN_TOLERANCE = 0

/** ln((n-1)!) for whole n >= 1, as `std::lgamma` returns it to within rounding. */
function logGammaOfInteger(n: number): number {
  if (n <= 2) return 0
  if (n <= 171) {
    // (n-1)! is finite in double up to 170!; the running product loses well under 1e-13 relative.
    let product = 1
    for (let k = 2; k < n; k++) product *= k
    return Math.log(product)
  }
  // Stirling's series; at n > 171 the omitted terms are below 1e-18.
  const x = n
  const inverse = 1 / x
  const inverse2 = inverse * inverse
  const series = inverse * (1 / 12 - inverse2 * (1 / 360 - inverse2 * (1 / 1260 - inverse2 / 1680)))
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series
}

/** `lbeta(x, y)` of early_stopping.cc: lgamma(x) + lgamma(y) - lgamma(x + y), for whole x, y >= 1. */
function logBeta(x: number, y: number): number {
  return logGammaOfInteger(x) + logGammaOfInteger(y) - logGammaOfInteger(x + y)
}

/** `hypergeometric_2F1_A1(b, c, x)`: the Gaussian hypergeometric 2F1(1, b; c; x) by its series (DLMF 15.2.1). */
function hypergeometric2F1A1(b: number, c: number, x: number): number {
  const tolerance = 1 / 2 ** 33
  let term = 1
  let result = 1
  for (let i = 0; Math.abs(term) > tolerance; ++i) {
    term *= ((b + i) * x) / (c + i)
    result += term
  }
  return result
}

/** `beta_regularized(x, a, b)`: I(x; a, b) via DLMF 15.8.1, for whole a, b >= 1. */
function betaRegularized(x: number, a: number, b: number): number {
  return (
    (Math.exp(a * Math.log(x) + (b - 1) * Math.log(1 - x) - logBeta(a, b)) / a) *
    hypergeometric2F1A1(1 - b, 1 + a, x / (x - 1))
  )
}

/**
 * `odds(h, t, p, d)`: the probability that a system meeting the latency bound with probability
 * p - d shows t or fewer over-latency queries among h + t, i.e. BetaRegularized[p - d, h, 1 + t].
 */
export function loadgenOdds(h: number, t: number, p: number, d: number): number {
  return betaRegularized(p - d, h, 1 + t)
}

/** `find_min_passing`: the smallest h in [minH, maxH] with odds(h, t, p, d) < 1 - c (maxH when none below it passes). */
function findMinPassing(minH: number, maxH: number, t: number, p: number, d: number, c: number): number {
  let count = maxH - minH
  while (count > 0) {
    const step = Math.floor(count / 2)
    const h = minH + step
    const prob = loadgenOdds(h, t, p, d)
    if (prob < 1 - c) {
      count = step
    } else {
      minH = h + 1
      count -= step + 1
    }
  }
  return minH
}

/**
 * LoadGen's `MinPassingQueriesFinder`: given t over-latency queries, the minimum number h of
 * under-latency queries for the run to pass early stopping. Results are cached per (p, d, c) and
 * bound later searches, exactly as in LoadGen, so use one finder per estimate as LoadGen does.
 */
export class MinPassingQueriesFinder {
  readonly #caches = new Map<string, { values: Map<number, number>; keys: number[] }>()

  /** Minimum h such that odds(h, t, p, d) <= 1 - c; t is a whole number >= 0, p the percentile as a share (0.9). */
  find(t: number, p: number, d: number, c: number): number {
    const key = `${p}|${d}|${c}`
    let cache = this.#caches.get(key)
    if (cache === undefined) {
      cache = { values: new Map(), keys: [] }
      this.#caches.set(key, cache)
    }
    const hit = cache.values.get(t)
    if (hit !== undefined) return hit

    // std::map::lower_bound(t), then stepping back: the two largest cached keys below t.
    const at = lowerBound(cache.keys, t)
    let x0 = -1
    let y0 = 0
    let x1 = 0
    let y1 = Math.trunc(Math.ceil(Math.log(1 - c) / Math.log(p - d)))
    if (at > 0) {
      x1 = cache.keys[at - 1] as number
      y1 = cache.values.get(x1) as number
      if (at > 1) {
        x0 = cache.keys[at - 2] as number
        y0 = cache.values.get(x0) as number
      }
    }
    const minSlope = (p - d) / (1 - p + d)
    // As in LoadGen (a product, not a quotient): only ever an upper bound of the slope.
    const maxSlope = (y1 - y0) * (x1 - x0)
    const minH = Math.trunc((t - x1) * minSlope + y1)
    const maxH = Math.trunc((t - x1) * maxSlope + y1 + 1)
    const h = findMinPassing(minH, maxH, t, p, d, c)
    cache.values.set(t, h)
    cache.keys.splice(at, 0, t)
    return h
  }
}

/** Index of the first element of the ascending `keys` that is >= `value`. */
function lowerBound(keys: number[], value: number): number {
  let low = 0
  let high = keys.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if ((keys[mid] as number) < value) low = mid + 1
    else high = mid
  }
  return low
}

/** LoadGen's percentile of sorted latencies: `sorted[floor(n * percentile)]` (no interpolation). */
export function loadgenPercentile(sorted: ArrayLike<number>, percentile: number): number | undefined {
  if (sorted.length === 0) return undefined
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * percentile))]
}

/** The outcome of LoadGen's SingleStream (and MultiStream) early-stopping estimate. */
export type EarlyStoppingEstimate =
  | {
      ok: true
      /** Queries the run processed. */
      queries: number
      /** Least queries for any estimate at this percentile (`h_min + 1`, 64 for the 90th). */
      minQueries: number
      /** Highest latencies left out (`t - 1`). */
      discarded: number
      /** The latency at sorted index `queries - t`, in the unit of the input. */
      estimate: number
    }
  | {
      ok: false
      queries: number
      minQueries: number
      /** LoadGen's advice, e.g. "Only processed 40 queries. Need to process at least 64 queries for early stopping." */
      message: string
    }

/**
 * The early-stopping percentile estimate of LoadGen's SingleStream scenario (results.cc,
 * `case TestScenario::SingleStream`): with q queries, the largest t such that q >= h(t) + t,
 * then the latency of the t-th highest query (`sorted[q - t]`). Needs at least h(1) + 1 queries.
 *
 * @param latencies every query's latency, any order (not modified).
 * @param percentile the target as a share, e.g. 0.9.
 */
export function earlyStoppingEstimate(
  latencies: ArrayLike<number>,
  percentile: number,
  options: { confidence?: number; tolerance?: number } = {},
): EarlyStoppingEstimate {
  const confidence = options.confidence ?? LOADGEN_CONFIDENCE
  const tolerance = options.tolerance ?? LOADGEN_TOLERANCE
  const finder = new MinPassingQueriesFinder()
  const queries = latencies.length
  let t = 1
  const hMin = finder.find(1, percentile, tolerance, confidence)
  if (queries < hMin + 1) {
    return {
      ok: false,
      queries,
      minQueries: hMin + 1,
      message: `Only processed ${queries} queries. Need to process at least ${hMin + 1} queries for early stopping.`,
    }
  }
  for (let i = 2; i < queries + 1; ++i) {
    const h = finder.find(i, percentile, tolerance, confidence)
    if (queries < h + i) {
      t = i - 1
      break
    }
  }
  const sorted = Float64Array.from(latencies).sort()
  return { ok: true, queries, minQueries: hMin + 1, discarded: t - 1, estimate: sorted[queries - t] as number }
}

/** The outcome of LoadGen's Server-scenario early-stopping check for one latency limit. */
export interface ServerEarlyStopping {
  /** True when the run processed enough queries for its over-latency count (`queries >= h + t`). */
  ok: boolean
  queries: number
  /** Queries whose latency exceeded the limit (t). */
  overLatency: number
  /** Queries needed for that many over-latency queries (`h + t`). */
  requiredQueries: number
}

/**
 * LoadGen's Server-scenario early stopping (results.cc, `case TestScenario::Server`): t = queries
 * over `limit`, h = MinPassingQueriesFinder(t, percentile, 0, 0.99); the run passes when it
 * processed at least h + t queries.
 */
export function serverEarlyStopping(
  latencies: ArrayLike<number>,
  limit: number,
  percentile: number,
  options: { confidence?: number; tolerance?: number } = {},
): ServerEarlyStopping {
  const finder = new MinPassingQueriesFinder()
  let overLatency = 0
  for (let i = 0; i < latencies.length; i++) if ((latencies[i] as number) > limit) overLatency++
  const h = finder.find(
    overLatency,
    percentile,
    options.tolerance ?? LOADGEN_TOLERANCE,
    options.confidence ?? LOADGEN_CONFIDENCE,
  )
  const queries = latencies.length
  return { ok: queries >= h + overLatency, queries, overLatency, requiredQueries: h + overLatency }
}
