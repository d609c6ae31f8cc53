import { normalQuantile, studentTQuantile } from './special-functions.ts'
import type { VerdictStatus } from './verdict.ts'

/** One pair's figure for one gate: the variant's statistic over the control's, measured side by side. */
export interface PairRatio {
  /** variant / control, > 0. */
  ratio: number
  /** The within-run confidence interval of that ratio (from the two runs' own samples); null when none could be computed. */
  ciLow: number | null
  ciHigh: number | null
  /**
   * The pair's number in the job (1, 2, …); its parity is its order (pairs alternate A B, B A: see
   * `counterbalancedOrder`). Absent: the ratio's index in the list stands for it.
   */
  pair?: number
  /**
   * Arms together: the ratio of each slice pair of this pair (variant slice k over control slice k, loaded next
   * to each other). Given, the pair's figure is their geometric mean (`ratio` then only for its within-run interval,
   * whose width is used), and the interval estimates the pairs' noise from two levels: the spread between pairs and
   * the spread of slices within a pair (see `judgePairedGate`).
   */
  slices?: readonly number[]
}

/**
 * Weights of the pairs in the mean of their log-ratios: the two orders (odd and even pairs) weigh
 * half each, so that a linear drift within the job, which moves every pair of one order by the
 * same amount one way and the other order the other way, cancels at every look, an odd number of
 * pairs too. With as many pairs of each order this is the plain mean.
 */
function orderWeights(pairs: readonly number[]): number[] {
  const odd = pairs.filter((pair) => pair % 2 === 1).length
  const even = pairs.length - odd
  if (odd === 0 || even === 0) return pairs.map(() => 1 / pairs.length)
  return pairs.map((pair) => (pair % 2 === 1 ? 0.5 / odd : 0.5 / even))
}

/** A gate judged on pairs: which statistic, and how far the variant may move it. */
export interface PairedGate {
  /** e.g. `ttftMs`, `outputTokensPerSec`. */
  metric: string
  /** e.g. `p50`, or `value` for a run-level throughput. */
  statistic: string
  /** `ms`, `tok/s` or `req/s`. */
  unit: string
  /**
   * Signed fraction the variant may differ from the control by: +0.1 lets a latency be 10 % higher,
   * -0.05 lets a throughput be 5 % lower. The limit on the ratio is 1 + tolerance (an equivalence margin).
   */
  tolerance: number
}

/** A gate's paired verdict. */
export interface PairedCheck extends PairedGate {
  status: VerdictStatus
  /** Geometric mean of the pairs' ratios (variant / control). */
  ratio: number
  /** Confidence interval of that ratio; null with fewer than 2 pairs. */
  ciLow: number | null
  ciHigh: number | null
  /** Pairs the check is based on. */
  pairs: number
  /**
   * Pairs measured but left out of this check because the machine was disturbed while they ran (one arm, or for a
   * run-level figure both); absent when none were.
   */
  leftOut?: number
  /**
   * What set the interval's width: the spread between pairs (a paired t interval on the log-ratios)
   * or, where wider, the runs' own sampling error (their within-run intervals, combined).
   */
  width: 'between pairs' | 'between slices' | 'within runs'
  /** Why the check is inconclusive, or what it could not use. */
  reason?: string
  /**
   * For an inconclusive check: about how many pairs in all would decide at the noise measured
   * (the ratio and the spread staying as they are); absent when none up to 200 would (the ratio is at the limit).
   */
  pairsToDecide?: number
}

const tQuantiles = new Map<string, number>()
/** Student's t quantile, remembered: a sequence asks for the same few (confidence, pairs) again and again. */
function tQuantile(p: number, df: number): number {
  const key = `${p}:${df}`
  let value = tQuantiles.get(key)
  if (value === undefined) {
    value = studentTQuantile(p, df)
    tQuantiles.set(key, value)
  }
  return value
}

/**
 * The noise of one pair's log-ratio: its standard deviation, the degrees of freedom it is estimated with, and
 * the level it comes from. Without slices: the sample spread of the pairs (n - 1 df). With k >= 2 slices in
 * every pair (arms together), a one-way random-effects view (Kalibera & Jones, ISMM 2013: estimate each level's
 * share): a pair's mean varies by the launch-to-launch effect plus its slices' noise over k, and the mean square
 * between pairs (MSB, n - 1 df) estimates k times that; the mean square of slices about their pair's mean (MSW,
 * n(k - 1) df) estimates the slices' noise alone. A pair's variance is max(MSB, MSW) / k: where the pairs differ
 * by more than their slices explain, MSB and its n - 1 df (launch effects stay in the interval); where they do
 * not, MSW and its n(k - 1) df, so that three pairs of four slices are not judged on 2 df.
 */
function pairNoise(
  logs: readonly number[],
  mean: number,
  slices: readonly (readonly number[] | undefined)[],
): { sd: number; df: number; level: 'between pairs' | 'between slices' } {
  const n = logs.length
  const ss = logs.reduce((sum, x) => sum + (x - mean) ** 2, 0)
  const plain = { sd: Math.sqrt(ss / (n - 1)), df: n - 1, level: 'between pairs' as const }
  const k = slices[0]?.length ?? 0
  if (k < 2 || slices.some((list) => list === undefined || list.length !== k || list.some((r) => !(r > 0))))
    return plain
  let within = 0
  slices.forEach((list, i) => {
    const pairMean = logs[i] ?? 0
    for (const r of list ?? []) within += (Math.log(r) - pairMean) ** 2
  })
  const msw = within / (n * (k - 1))
  const msb = (k * ss) / (n - 1)
  return msb >= msw ? plain : { sd: Math.sqrt(msw / k), df: n * (k - 1), level: 'between slices' }
}

/** Beyond this many pairs an estimate of the pairs needed is not worth stating. */
const MAX_PAIRS_TO_DECIDE = 200

/**
 * Judges one gate on paired ratios. The statistic is the mean of the pairs' log-ratios (so a ratio
 * and its inverse weigh the same), the two orders of pairs weighing half each (a linear drift
 * within the job cancels at every look); its interval is the paired t interval on those log-ratios, widened
 * to the within-run interval when the runs' own sampling error is larger (a pair of short runs that
 * happen to agree must not look more certain than either run is).
 *
 * Why a t interval rather than a signed-rank one: with the 3 to 6 pairs a pull request can afford,
 * the Wilcoxon signed-rank interval cannot reach 95 % (the smallest two-sided p-value of 3 pairs is
 * 0.25, of 5 pairs 0.0625); the t interval can, and log-ratios of run-level statistics are close
 * enough to normal for it (each is a quantile or a mean over hundreds of requests).
 *
 * Pass: the whole interval is within the tolerance; fail: the whole interval is beyond it;
 * inconclusive otherwise, with about how many pairs would decide.
 */
export function judgePairedGate(gate: PairedGate, ratios: readonly PairRatio[], confidence: number): PairedCheck {
  const usable = ratios
    .map((r, index) => ({ ...r, pair: r.pair ?? index + 1 }))
    .filter((r) => r.ratio > 0 && Number.isFinite(r.ratio))
  // A pair measured in slices is the mean of its slices' log-ratios (arms together); else its own ratio.
  const logs = usable.map((r) =>
    r.slices !== undefined && r.slices.length > 0
      ? r.slices.reduce((sum, x) => sum + Math.log(x), 0) / r.slices.length
      : Math.log(r.ratio),
  )
  const n = logs.length
  const weights = orderWeights(usable.map((r) => r.pair))
  const mean = logs.reduce((sum, x, i) => sum + (weights[i] ?? 0) * x, 0)
  const base = { ...gate, ratio: Math.exp(mean), pairs: n }
  if (n < 2) {
    return {
      ...base,
      status: 'inconclusive',
      ciLow: null,
      ciHigh: null,
      width: 'between pairs',
      reason: `${n} pair${n === 1 ? '' : 's'}: a paired interval needs 2 at least`,
    }
  }
  // The spread about the plain mean (n - 1 degrees of freedom): a drift adds to it, never hides in it.
  const plainMean = logs.reduce((sum, x) => sum + x, 0) / n
  const noise = pairNoise(
    logs,
    plainMean,
    usable.map((r) => r.slices),
  )
  const sd = noise.sd
  const weightSquares = weights.reduce((sum, w) => sum + w * w, 0)
  const tail = 1 - (1 - confidence) / 2
  const between = tQuantile(tail, noise.df) * sd * Math.sqrt(weightSquares)
  const z = normalQuantile(tail)
  // Each pair's within-run standard error of its log-ratio, from its interval's width.
  const withinSe = usable.map((r) =>
    r.ciLow !== null && r.ciHigh !== null && r.ciLow > 0 && r.ciHigh > 0
      ? (Math.log(r.ciHigh) - Math.log(r.ciLow)) / (2 * z)
      : undefined,
  )
  const known = withinSe.filter((se): se is number => se !== undefined)
  const within =
    known.length === withinSe.length
      ? z * Math.sqrt(known.reduce((sum, se, i) => sum + (weights[i] ?? 0) ** 2 * se * se, 0))
      : undefined
  const half = Math.max(between, within ?? 0)
  const low = mean - half
  const high = mean + half
  const limit = Math.log1p(gate.tolerance)
  const higherIsWorse = gate.tolerance >= 0
  const fail = higherIsWorse ? low > limit : high < limit
  const pass = higherIsWorse ? high <= limit : low >= limit
  const status: VerdictStatus = fail ? 'fail' : pass ? 'pass' : 'inconclusive'
  const check: PairedCheck = {
    ...base,
    status,
    ciLow: Math.exp(low),
    ciHigh: Math.exp(high),
    width: within !== undefined && within > between ? 'within runs' : noise.level,
  }
  if (within === undefined)
    check.reason = 'some runs had too few samples for a within-run interval: the interval is from the pairs alone'
  if (status === 'inconclusive') {
    // The interval shrinks as 1/sqrt(pairs) at the per-pair noise measured (between pairs, or within runs where larger).
    const perPair = Math.max(sd, within !== undefined ? (within * Math.sqrt(n)) / z : 0)
    const distance = Math.abs(mean - limit)
    if (distance > 1e-12) {
      // From the normal approximation up, to where the t interval at that count clears the limit.
      let pairs = Math.max(n + 1, Math.ceil(((z * perPair) / distance) ** 2))
      while (pairs < MAX_PAIRS_TO_DECIDE && (tQuantile(tail, pairs - 1) * perPair) / Math.sqrt(pairs) >= distance)
        pairs++
      if (pairs < MAX_PAIRS_TO_DECIDE) check.pairsToDecide = pairs
    }
    const interval = `[${check.ciLow?.toFixed(3)}, ${check.ciHigh?.toFixed(3)}]`
    check.reason = [`the interval ${interval} straddles the limit ${(1 + gate.tolerance).toFixed(3)}`, check.reason]
      .filter(Boolean)
      .join('; ')
  }
  return check
}

/** Limits of a paired comparison's sequence of pairs. */
export interface PairLimits {
  /** Pairs measured before any verdict. */
  min: number
  /** Pairs at most. */
  max: number
  /** Milliseconds the pairs may take in all; another pair starts only if one more of the longest so far fits. */
  budgetMs: number
}

/**
 * Why more pairs cannot decide an inconclusive check on this machine now, or undefined when they may. The rule:
 * none of its pairs could be kept and at least 2 were left out because the machine was disturbed while they ran.
 * The disturbance then lasted through every pair so far, so the next is most likely disturbed too; and even a
 * quiet one could not decide alone, since a paired interval needs 2 kept pairs. Measured on the 2-core machine of
 * issue 50, such a gate was still at 0 kept pairs when `ab` stopped at its most pairs.
 */
export function beyondMorePairs(check: PairedCheck): string | undefined {
  const leftOut = check.leftOut ?? 0
  if (check.status !== 'inconclusive' || check.pairs > 0 || leftOut < 2) return undefined
  return `none of its ${leftOut} pairs could be kept (each measured on a disturbed machine)`
}

const gateLabel = (check: PairedCheck): string =>
  `${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`}`

/**
 * Whether to measure another pair: not before `min` pairs are in, then only while a check (give
 * those of the verdicts still undecided: a failed bench is decided whatever its other gates) is
 * inconclusive and more pairs may decide it ({@link beyondMorePairs}), fewer than `max` pairs were
 * measured and one more pair (as long as the longest so far) fits the budget. `why` says why it stopped.
 */
export function nextPair(
  checks: readonly PairedCheck[],
  measured: { pairs: number; elapsedMs: number; longestPairMs: number },
  limits: PairLimits,
): { another: boolean; why: string } {
  if (measured.pairs < limits.min) return { another: true, why: `${measured.pairs} of at least ${limits.min} pairs` }
  const open = checks.filter((check) => check.status === 'inconclusive')
  const beyond = open.filter((check) => beyondMorePairs(check) !== undefined)
  const undecided = open.length - beyond.length
  if (undecided === 0 && beyond.length > 0) {
    const why = [
      ...new Set(
        beyond.map((check) => `${gateLabel(check)} cannot be decided by more pairs: ${beyondMorePairs(check)}`),
      ),
    ]
    return { another: false, why: why.join('; ') }
  }
  if (undecided === 0) return { another: false, why: `every verdict decided after ${measured.pairs} pairs` }
  if (measured.pairs >= limits.max)
    return {
      another: false,
      why: `${undecided} gate${undecided === 1 ? '' : 's'} undecided after the most pairs allowed (${limits.max})`,
    }
  if (measured.elapsedMs + measured.longestPairMs > limits.budgetMs) {
    return {
      another: false,
      why: `${undecided} gate${undecided === 1 ? '' : 's'} undecided; another pair would pass the time budget (${Math.round(limits.budgetMs / 1000)} s)`,
    }
  }
  return {
    another: true,
    why: `${undecided} gate${undecided === 1 ? '' : 's'} undecided after ${measured.pairs} pairs`,
  }
}

/**
 * The order the arms of pair `pair` (from 0) are measured in: the given order for even pairs, the
 * mirrored one for odd pairs (A B, B A, A B, … for two arms; A B C, C B A, … for three). Over every
 * two pairs each arm's mean position is the same, so a drift that is linear in time over the job
 * adds the same to every arm and cancels in their ratios; in the fixed order A B A B it would add
 * to every pair's ratio alike and look like a change.
 */
export function counterbalancedOrder<T>(arms: readonly T[], pair: number): T[] {
  if (!Number.isInteger(pair) || pair < 0) throw new RangeError(`pair must be an integer >= 0, got ${pair}`)
  return pair % 2 === 0 ? [...arms] : [...arms].reverse()
}
