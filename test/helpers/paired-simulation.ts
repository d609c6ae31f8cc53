import {
  counterbalancedOrder,
  judgePairedGate,
  nextPair,
  lookConfidence,
  type PairedCheck,
  type PairLimits,
} from '../../src/core/verdict/index.ts'
import { seededRandom } from './metrics-fixtures.ts'

/** One simulated job's truth: each trial's figure is exp(log truth of its arm + drift x its position + noise). */
export interface PairedTruth {
  /** True variant / control ratio. */
  ratio: number
  /** Log-normal sigma of one trial's figure (its run-to-run noise). */
  sigma: number
  /** Added to the log figure per trial position in the job (a machine drifting linearly). */
  driftPerTrial: number
  /** Signed tolerance of the gate (+0.1: a latency may be 10 % higher). */
  tolerance: number
  /** `balanced`: A B, B A, …; `fixed`: A B, A B, … */
  order: 'balanced' | 'fixed'
}

/** A standard normal draw (Box–Muller) from `random`. */
export function normal(random: () => number): number {
  const u = 1 - random()
  const v = random()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}

/** Runs one paired job of `limits` on synthetic data: the check it ends with. */
export function simulateJob(truth: PairedTruth, limits: PairLimits, random: () => number): PairedCheck {
  const ratios = []
  let position = 0
  let check: PairedCheck | undefined
  for (let pair = 0; ; pair++) {
    const arms =
      truth.order === 'balanced'
        ? counterbalancedOrder(['control', 'variant'] as const, pair)
        : (['control', 'variant'] as const)
    const figure: Record<string, number> = {}
    for (const arm of arms) {
      const truthLog = arm === 'variant' ? Math.log(truth.ratio) : 0
      figure[arm] = Math.exp(truthLog + truth.driftPerTrial * position + truth.sigma * normal(random))
      position++
    }
    ratios.push({ ratio: (figure.variant ?? 1) / (figure.control ?? 1), ciLow: null, ciHigh: null })
    check = judgePairedGate(
      { metric: 'e2eMs', statistic: 'p50', unit: 'ms', tolerance: truth.tolerance },
      ratios,
      lookConfidence(0.95, limits, ratios.length),
    )
    if (!nextPair([check], { pairs: ratios.length, elapsedMs: 0, longestPairMs: 0 }, limits).another) return check
  }
}

/** The share of `jobs` seeded jobs ending in each status. */
export function simulateRates(
  truth: PairedTruth,
  limits: PairLimits,
  jobs: number,
  seed: number,
): { fail: number; pass: number; inconclusive: number; meanPairs: number } {
  const random = seededRandom(seed)
  const counts = { fail: 0, pass: 0, inconclusive: 0 }
  let pairs = 0
  for (let i = 0; i < jobs; i++) {
    const check = simulateJob(truth, limits, random)
    counts[check.status]++
    pairs += check.pairs
  }
  return {
    fail: counts.fail / jobs,
    pass: counts.pass / jobs,
    inconclusive: counts.inconclusive / jobs,
    meanPairs: pairs / jobs,
  }
}
