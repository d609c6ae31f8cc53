import type { BaselineMatch } from '../core/baseline/index.ts'

/** The baseline state of a run that was neither compared nor written because the machine was disturbed. */
export const NOT_JUDGED = 'not judged'

/**
 * What happened to a bench's baseline entry: the store's match state (`compare`, `written`, `updated`,
 * `missing`, `mismatch`), or `not judged`: a run on a disturbed machine that lost too many requests
 * (or whose requests were cut off) to be compared or written.
 */
export type BaselineState = BaselineMatch['state'] | typeof NOT_JUDGED
