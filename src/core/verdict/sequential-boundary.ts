import { studentTQuantile } from './special-functions.ts'
import { createRandom } from '../platform/random.ts'
import type { PairLimits } from './paired-verdict.ts'

/**
 * The confidence of each look of a paired sequence. A verdict is looked at after every pair from
 * `max(min, 2)` to `max`, and each look is one more chance of a false verdict, so no look may use
 * the sequence's confidence itself. Each look k (pairs so far) is held to a one-sided level
 * `a · k / max` (a nominal level growing linearly with the pairs: early looks, on few pairs, are
 * held tighter, the last nearly to the sequence's own level), and `a` is calibrated so that a ratio
 * exactly at a gate's limit crosses it at any look with probability (1 - confidence) / 2, the
 * one-sided error of one interval at `confidence`.
 *
 * Calibrated by simulation, as Pinpoint calibrates its sequential thresholds: the paired t
 * statistic of normal log-ratios at the limit does not depend on their spread, so seeded paths of
 * it give the crossing rate of any (confidence, min, max) exactly enough (100,000 paths: the
 * crossing rate to about ±0.0005 at 0.025). It replaces Bonferroni over the looks (each look at
 * 1 - (1 - confidence) / looks), which ignores that the looks share their pairs: for 3 to 6 pairs
 * Bonferroni held each look to 98.75 % and crossed 1.8 % at the limit, not 2.5 %; the calibrated
 * levels are 98.79 / 98.39 / 97.99 / 97.59 % and their last look's interval is 16 % narrower.
 *
 * The verdict at a look is judged on all pairs so far, and the sequence stops at `max` or earlier;
 * stopping earlier (decided, or the time budget) only lowers the crossing rate. Computed once per
 * (confidence, min, max) and remembered: 0.1 s for 3 to 6 pairs, 0.25 s for 60 looks (2-core machine,
 * quiet). Sequences of more than 60 looks (a `pairs.max` left to the time budget) get Bonferroni's
 * levels instead: conservative, and free.
 */
export function lookConfidence(confidence: number, limits: Pick<PairLimits, 'min' | 'max'>, pairs: number): number {
  const first = Math.max(limits.min, 2)
  const last = Math.max(limits.max, first)
  if (first === last) return confidence
  const k = Math.min(Math.max(pairs, first), last)
  // Beyond this many looks Bonferroni (conservative) instead: the simulation would cost seconds and memory.
  if (last - first + 1 > MAX_CALIBRATED_LOOKS) return 1 - (1 - confidence) / (last - first + 1)
  const key = `${confidence}:${first}:${last}`
  let scale = scales.get(key)
  if (scale === undefined) {
    scale = calibratedScale((1 - confidence) / 2, first, last)
    scales.set(key, scale)
  }
  return 1 - 2 * scale * (k / last)
}

const scales = new Map<string, number>()

/** Looks calibrated by simulation at most (`pairs.max` 61 from 2): 20,000 paths, 9.6 MB of statistics. */
const MAX_CALIBRATED_LOOKS = 60

/** Paths simulated per calibration, fewer for long sequences so that a calibration stays near a second. */
function pathCount(looks: number): number {
  return Math.max(20_000, Math.min(100_000, Math.floor(1_200_000 / looks)))
}

/**
 * The `a` of {@link lookConfidence}: the largest scale whose levels `a · k / last` let seeded paths
 * of the paired t statistic at the limit cross at some look from `first` to `last` with probability
 * at most `alpha` (one-sided).
 */
function calibratedScale(alpha: number, first: number, last: number): number {
  const looks = last - first + 1
  const paths = pathCount(looks)
  const random = createRandom(0x5e9b0a7d)
  // t statistics by look, path after path: statistics[(k - first) * paths + path].
  const statistics = new Float64Array(looks * paths)
  for (let path = 0; path < paths; path++) {
    let sum = 0
    let squares = 0
    for (let n = 1; n <= last; n++) {
      const x = random.normal()
      sum += x
      squares += x * x
      if (n < first) continue
      const mean = sum / n
      const sd = Math.sqrt(Math.max(0, squares - n * mean * mean) / (n - 1))
      statistics[(n - first) * paths + path] = sd > 0 ? mean / (sd / Math.sqrt(n)) : 0
    }
  }
  const crossing = (scale: number): number => {
    const thresholds = Array.from({ length: looks }, (_, i) =>
      studentTQuantile(1 - scale * ((first + i) / last), first + i - 1),
    )
    let crossed = 0
    for (let path = 0; path < paths; path++) {
      for (let i = 0; i < looks; i++) {
        if ((statistics[i * paths + path] ?? 0) >= (thresholds[i] ?? Infinity)) {
          crossed++
          break
        }
      }
    }
    return crossed / paths
  }
  // The last look's level is `scale`: at most alpha (one look alone), at least alpha / looks (Bonferroni).
  let low = alpha / looks
  let high = alpha
  for (let i = 0; i < 30; i++) {
    const mid = (low + high) / 2
    if (crossing(mid) > alpha) high = mid
    else low = mid
  }
  return low
}
