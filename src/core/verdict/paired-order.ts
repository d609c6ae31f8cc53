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
