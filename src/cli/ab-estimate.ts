import type { PairLimits } from '../core/verdict/index.ts'

/**
 * What `ab` says once its first pair is in: how long that pair took and how long the run may take at most, e.g.
 * `pair 1 took 21 s; at most 6 pairs: at most ~2.1 min`. The bound is the pair limit at the first pair's pace (a
 * later pair with arms together is shorter: its servers are up) or the time budget, whichever is less, for each
 * bench (arms together measure one bench after the other, each with its own pairs).
 */
export function abEstimateLine(firstPairMs: number, limits: PairLimits, benches: number): string {
  const byPairs = limits.max * firstPairMs
  const perBench = Math.min(byPairs, limits.budgetMs)
  const each = benches > 1 ? ` for each of ${benches} benches` : ''
  const bound = byPairs > limits.budgetMs ? ' (the time budget, --budget-min)' : ''
  const minutes = (benches * perBench) / 60_000
  const took = `pair 1 took ${(firstPairMs / 1000).toFixed(0)} s`
  return `${took}; at most ${limits.max} pairs${each}: at most ~${minutes.toFixed(1)} min${bound}`
}
