import { expect } from 'vitest'
import { baselineEntryFrom, compare, DEFAULT_REGRESSION_POLICY, formatVerdict, type BaselineEntry, type RegressionPolicy } from '../core/baseline/index.ts'
import { checkSlo, formatSloChecks, type SloOptions } from '../core/slo/index.ts'
import type { BenchmarkResult } from '../core/contract/types.ts'
import { describeRegressions } from '../bench/regression-summary.ts'
import { isRecord } from '../core/contract/is-record.ts'
import { isBenchmarkResult } from '../core/contract/result-guard.ts'

function isBaselineEntry(value: unknown): value is BaselineEntry {
  return isRecord(value) && typeof value.configHash === 'string' && isRecord(value.metrics) && isRecord(value.throughput) && isRecord(value.histograms)
}

function requireResult(matcher: string, received: unknown): BenchmarkResult {
  if (!isBenchmarkResult(received)) {
    throw new TypeError(`${matcher}: expected the BenchmarkResult that runBenchmark() returns, got ${received === null ? 'null' : typeof received}.`)
  }
  return received
}

/**
 * The matchers of vitest-llm-bench, for `expect.extend(llmBenchMatchers)` (or {@link installMatchers}):
 * - `expect(result).toMeetSlo(slo)`: every SLO limit holds (inconclusive ones, e.g. GPU limits
 *   without telemetry, do not fail);
 * - `expect(result).toNotRegress(baseline, policy?)`: the regression verdict against `baseline`
 *   (a `BaselineEntry`, or an earlier `BenchmarkResult`) is not `fail`. Default policy:
 *   `DEFAULT_REGRESSION_POLICY`. An inconclusive verdict passes: the data do not show a regression.
 *
 * The failure message is the same block `bench.llm` prints: metric, limit, measured and baseline
 * figures, ratio with its confidence interval, and sample sizes.
 */
export const llmBenchMatchers = {
  toMeetSlo(received: unknown, slo: SloOptions) {
    const result = requireResult('toMeetSlo', received)
    const checks = checkSlo(result, slo)
    const failed = checks.filter((check) => check.status === 'fail')
    const pass = failed.length === 0
    return {
      pass,
      message: () =>
        pass
          ? `expected the result to miss an SLO, but every limit holds:\n\n${formatSloChecks(checks)}`
          : `expected the result to meet its SLOs; ${failed.length} of ${checks.length} limits failed:\n\n${formatSloChecks(checks)}`,
    }
  },

  toNotRegress(received: unknown, baseline: BaselineEntry | BenchmarkResult, policy: RegressionPolicy = DEFAULT_REGRESSION_POLICY) {
    const result = requireResult('toNotRegress', received)
    let entry: BaselineEntry
    if (isBaselineEntry(baseline)) entry = baseline
    else if (isBenchmarkResult(baseline)) entry = baselineEntryFrom(baseline)
    else throw new TypeError('toNotRegress: the baseline must be a BaselineEntry (from a baseline file or baselineEntryFrom()) or an earlier BenchmarkResult.')
    const verdict = compare(entry, result, policy)
    const pass = verdict.status !== 'fail'
    const table = formatVerdict(verdict)
    return {
      pass,
      message: () =>
        pass
          ? `expected a regression against the baseline, but the verdict is ${verdict.status}:\n\n${table}`
          : `expected no regression against the baseline recorded ${entry.recordedAt}:\n${describeRegressions(verdict)
              .map((line) => `  - ${line}`)
              .join('\n')}\n\n${table}`,
    }
  },
}

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
