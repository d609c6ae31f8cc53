/**
 * Paired campaigns on synthetic data with a known truth, through the campaign driver, the pairs profile and the
 * paired judge: a host whose speed moves in phases, each arm's launch effect, each slice's noise; arms together
 * (loaded in turn in slices, A B B A …) or apart (whole runs one after the other). Used by test/unit/campaign.test.ts
 * and printed by perf/duet-synthetic.ts.
 */
import { duetOrder, pairsProfile, runCampaign } from '../../src/core/campaign/index.ts'
import type { Random } from '../../src/core/platform/random.ts'
import { createRandom } from '../../src/core/platform/random.ts'
import { judgePairedGate, lookConfidence, type PairedCheck, type PairLimits } from '../../src/core/verdict/index.ts'

/** The host: its log speed is a level held for phases of about 30 s, drawn in ±0.25 (a 1.65x range), as measured. */
export function hostPhases(random: Random, totalS: number): (from: number, to: number) => number {
  const edges: { at: number; level: number }[] = []
  for (let at = 0; at < totalS; at += random.exponential(1 / 30)) edges.push({ at, level: (random.next() - 0.5) * 0.5 })
  const levelAt = (t: number) => {
    let level = edges[0]?.level ?? 0
    for (const edge of edges) if (edge.at <= t) level = edge.level
    return level
  }
  // The mean log speed over a window, by 0.1 s steps.
  return (from, to) => {
    let sum = 0
    let n = 0
    for (let t = from; t < to; t += 0.1, n++) sum += levelAt(t)
    return n === 0 ? levelAt(from) : sum / n
  }
}

export interface Truth {
  /** True log-ratio of the variant's figure over the control's. */
  logRatio: number
  arms: 'together' | 'apart'
  /** Sd of each arm's launch effect (a server start's own speed), log. */
  launchSd: number
  /** Sd of one slice's figure (its sampling noise), log; a whole run's is this over sqrt(slices). */
  sliceSd: number
  tolerance: number
  /** Pairs at most (at least 3). */
  maxPairs?: number
  /** Together: false judges the pairs alone, leaving their slices out of the interval. Default true. */
  slicesJudged?: boolean
}

const SLICES = 4
const SLICE_S = 1.5

/** One paired verdict of a 10% latency gate on synthetic figures, measured through the driver and the pairs profile. */
export async function campaignOf(truth: Truth, random: Random): Promise<PairedCheck> {
  const limits: PairLimits = { min: 3, max: truth.maxPairs ?? 6, budgetMs: Infinity }
  const phase = hostPhases(random, 1000)
  let clock = 0
  const measurePair = async (): Promise<{ log: number; slices?: number[] }> => {
    const launch = [truth.launchSd * random.normal(), truth.launchSd * random.normal()]
    const figure = (arm: 0 | 1, from: number, to: number, sd: number) =>
      phase(from, to) + (launch[arm] ?? 0) + (arm === 1 ? truth.logRatio : 0) + sd * random.normal()
    if (truth.arms === 'apart') {
      // One arm's whole run, a server start and warm-up (16 s, as `ab` takes), then the other's.
      const run = SLICES * SLICE_S
      const a = figure(0, clock, clock + run, truth.sliceSd / Math.sqrt(SLICES))
      clock += run + 16
      const b = figure(1, clock, clock + run, truth.sliceSd / Math.sqrt(SLICES))
      clock += run + 16
      return { log: b - a }
    }
    const figures: [number[], number[]] = [[], []]
    for (const arm of duetOrder([0, 1] as const, SLICES)) {
      figures[arm].push(figure(arm, clock, clock + SLICE_S, truth.sliceSd))
      clock += SLICE_S
    }
    clock += 16
    const slices = figures[1].map((f, k) => f - (figures[0][k] ?? 0))
    return { log: slices.reduce((sum, x) => sum + x, 0) / SLICES, slices: truth.slicesJudged === false ? [] : slices }
  }
  const gate = { metric: 'ttftMs', statistic: 'p50', unit: 'ms', tolerance: truth.tolerance }
  const outcome = await runCampaign({
    profile: pairsProfile<number, { log: number; slices?: number[] }, PairedCheck>([0, 1], limits, {
      undecided: (check) => (check.status === 'inconclusive' ? [check] : []),
    }),
    measure: measurePair,
    judge: (logs) =>
      judgePairedGate(
        gate,
        logs.map(({ log, slices }, i) => ({
          ratio: Math.exp(log),
          ciLow: null,
          ciHigh: null,
          pair: i + 1,
          ...(slices && slices.length > 0 ? { slices: slices.map(Math.exp) } : {}),
        })),
        lookConfidence(0.95, limits, logs.length),
      ),
  })
  return outcome.judgement as PairedCheck
}

export async function rates(truth: Truth, campaigns: number, seed: number) {
  const random = createRandom(seed)
  const counts = { pass: 0, fail: 0, inconclusive: 0, found: 0 }
  for (let i = 0; i < campaigns; i++) {
    const check = await campaignOf(truth, random)
    counts[check.status]++
    if ((check.ciLow ?? 0) > 1) counts.found++
  }
  return {
    pass: counts.pass / campaigns,
    fail: counts.fail / campaigns,
    inconclusive: counts.inconclusive / campaigns,
    found: counts.found / campaigns,
  }
}
