import type { InFlightRequests } from './in-flight.ts'

/** How long aborted requests get to settle before the run gives up on them, ms. */
const SETTLE_AFTER_ABORT_MS = 5_000

/**
 * After the last send: requests in flight get `drainGraceMs` to finish (none when the run was
 * aborted or a dispatch failed: `abortNow`), then their signals are aborted and they get
 * {@link SETTLE_AFTER_ABORT_MS} to settle. Returns a warning when some never did.
 */
export async function drain(
  run: InFlightRequests,
  options: { abortNow: boolean; drainGraceMs: number; signal: AbortSignal | undefined },
): Promise<string | undefined> {
  if (!options.abortNow) {
    const graceEnd = performance.now() + options.drainGraceMs
    while (run.size > 0 && !options.signal?.aborted && !run.failure) {
      const left = graceEnd - performance.now()
      if (left <= 0) break
      await run.waker.wait(left)
    }
  }
  run.abortAll()
  const settleEnd = performance.now() + SETTLE_AFTER_ABORT_MS
  while (run.size > 0) {
    const left = settleEnd - performance.now()
    if (left <= 0)
      return `${run.size} cancelled requests did not settle within ${SETTLE_AFTER_ABORT_MS} ms of their abort signal: the dispatch function ignores it.`
    await run.waker.wait(left)
  }
  return undefined
}
