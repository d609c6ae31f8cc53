import { counterbalancedOrder, nextPair, type PairedCheck, type PairLimits } from '../verdict/index.ts'
import type { CampaignProfile } from './campaign-driver.ts'

/** One pair of a paired campaign: every arm once, in a counterbalanced order. */
export interface PairStep<A> {
  /** The pair's number, from 1. */
  pair: number
  /** The arms in the order they are measured (or, arms together, loaded first). */
  order: A[]
}

/** What the pairs profile reads of a measured pair and of the judgement. */
export interface PairsReading<M, J> {
  /** The checks of the verdicts still undecided: only those are worth another pair. */
  undecided(judgement: J): readonly PairedCheck[]
  /** Why a measured pair ends the campaign at once (an arm's server failing); undefined when it does not. */
  fault?(measured: M): string | undefined
}

/**
 * Counterbalanced pairs (A B, B A, A B, …) with sequential stopping: `limits.min` pairs, then one more
 * while a gate is undecided, fewer than `limits.max` were measured and one more as long as the
 * longest so far fits the budget (`nextPair`). A pair with a fault ends the campaign.
 */
export function pairsProfile<A, M, J>(
  arms: readonly A[],
  limits: PairLimits,
  reading: PairsReading<M, J>,
): CampaignProfile<PairStep<A>, M, J> {
  return {
    next(progress, judgement) {
      const last = progress.measured.at(-1)
      const fault = last === undefined ? undefined : reading.fault?.(last)
      if (fault !== undefined) return { stop: fault }
      const pairs = progress.measured.length
      const decision = nextPair(
        judgement === undefined ? [] : reading.undecided(judgement),
        { pairs, elapsedMs: progress.elapsedMs, longestPairMs: progress.longestStepMs },
        limits,
      )
      if (!decision.another) return { stop: decision.why }
      return { step: { pair: pairs + 1, order: counterbalancedOrder(arms, pairs) }, why: decision.why }
    },
  }
}
