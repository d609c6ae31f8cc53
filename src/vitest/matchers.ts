import { expect } from 'vitest'
import type { BaselineEntry } from '../core/baseline/index.ts'
import type { RegressionPolicy } from '../core/verdict/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import type { SloOptions } from '../core/slo/index.ts'
import { llmBenchMatchers } from '../bench/matchers.ts'

export { llmBenchMatchers }

/**
 * Adds `toMeetSlo` and `toNotRegress` to Vitest's `expect`. Call it once per test file, or in a
 * `setupFiles` module (`import { installMatchers } from 'vitest-llm-bench'; installMatchers()`).
 * Calling it again is harmless.
 */
export function installMatchers(): void {
  expect.extend(llmBenchMatchers)
}

declare module 'vitest' {
  // The type parameters must match Vitest's declaration for the merge; T is unused here.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface Matchers<R extends void | Promise<void> = void | Promise<void>, T = unknown> {
    /**
     * Every SLO limit holds for this `BenchmarkResult`, e.g.
     * `expect(result).toMeetSlo({ ttftMs: { p99: 500 }, errors: { maxRate: 0 } })`.
     * Needs {@link installMatchers}.
     */
    toMeetSlo(slo: SloOptions): R
    /**
     * The regression verdict of this `BenchmarkResult` against `baseline` (a `BaselineEntry` or
     * an earlier `BenchmarkResult`) is not `fail`, e.g.
     * `expect(result).toNotRegress(entry, { ttftMs: { p99: '+10%' } })`. Needs {@link installMatchers}.
     */
    toNotRegress(baseline: BaselineEntry | BenchmarkResult, policy?: RegressionPolicy): R
  }
}
