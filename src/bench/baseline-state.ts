import type { BaselineMatch } from '../core/baseline/index.ts'

/** The baseline state of a run that was neither compared nor written because the machine was disturbed. */
export const NOT_JUDGED = 'not judged'

/**
 * The baseline state of a run that is one part of a verdict made elsewhere: a segment of a split load (judged
 * after `vitest-llm-bench merge`) or one arm of a side-by-side pair (judged by `vitest-llm-bench ab`).
 */
export const DEFERRED = 'deferred'

/**
 * The baseline state of a run written as a provisional entry: measured while the machine was disturbed, so no
 * verdict passes against it and the next quiet run replaces it (`BaselineEntry.provisional`).
 */
export const PROVISIONAL = 'provisional'

/**
 * The baseline state of a run that `stopWhen` ended early: neither compared nor written, on any machine and
 * under `-u` too (its figures describe a server in trouble and a shortened load).
 */
export const STOPPED = 'stopped early'

/**
 * What happened to a bench's baseline entry: the store's match state (`compare`, `written`, `updated`,
 * `missing`, `mismatch`); `provisional`: written or updated as a provisional entry; `not judged`: a run on a disturbed machine that lost too many requests (or whose
 * requests were cut off) to be compared or written; `deferred`: a segment or an arm, judged elsewhere; `stopped early`:
 * a load that `stopWhen` ended, never judged against or recorded as a baseline.
 */
export type BaselineState =
  BaselineMatch['state'] | typeof PROVISIONAL | typeof NOT_JUDGED | typeof DEFERRED | typeof STOPPED
