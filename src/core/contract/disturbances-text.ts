/**
 * Hypervisor steal above this share (0..1) disturbs a measurement: the self-check names it in `SelfCheck.disturbed`.
 * Below it, a verdict grades a fail by how much that steal can slow a server (`verdict/verdict-adjusters.ts`).
 */
export const STEAL_LIMIT = 0.05

/** How many disturbances a recording's note names before it counts the rest. */
const NAMED = 2

/**
 * What disturbed a run, for a one-line note: the first disturbances (one per trial or point, each with its busiest
 * processes), then how many more, so that a five-trial run on a busy machine says it in one readable line.
 */
export function disturbancesText(disturbed: readonly string[]): string {
  const more = disturbed.length - NAMED
  return disturbed.slice(0, NAMED).join('; ') + (more > 0 ? `; and ${more} more` : '')
}
