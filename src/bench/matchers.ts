import { baselineEntryFrom, type BaselineEntry } from '../core/baseline/index.ts'
import {
  compare,
  asParsedPolicy,
  defaultRegressionPolicy,
  formatVerdict,
  type RegressionPolicy,
} from '../core/verdict/index.ts'
import { checkSlo, failureRuling, RUN_MAY_LOSE, formatSloChecks, type SloOptions } from '../core/slo/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { describeRegressions } from './regression-summary.ts'
import { isRecord } from '../core/contract/is-record.ts'
import { isBenchmarkResult } from '../core/contract/result-guard.ts'

function isBaselineEntry(value: unknown): value is BaselineEntry {
  return (
    isRecord(value) &&
    typeof value.configHash === 'string' &&
    isRecord(value.metrics) &&
    isRecord(value.throughput) &&
    isRecord(value.histograms)
  )
}

function requireResult(matcher: string, received: unknown): BenchmarkResult {
  if (!isBenchmarkResult(received)) {
    throw new TypeError(
      `${matcher}: expected the BenchmarkResult that runBenchmark() returns, got ${received === null ? 'null' : typeof received}.`,
    )
  }
  return received
}

/**
 * The matchers of vitest-llm-bench, in the shape `expect.extend` takes (Vitest's, and Bun's), e.g.
 * through `installMatchers` from the root entry:
 * - `expect(result).toMeetSlo(slo)`: every SLO limit holds (inconclusive ones, e.g. GPU limits
 *   without telemetry, do not fail);
 * - `expect(result).toNotRegress(baseline, policy?)`: the regression verdict against `baseline`
 *   (a `BaselineEntry`, or an earlier `BenchmarkResult`) is not `fail`. Default policy: that of the
 *   result's API (`DEFAULT_REGRESSION_POLICY`; embeddings and rerank `DEFAULT_INPUTS_REGRESSION_POLICY`).
 *   An inconclusive verdict passes: the data do not show a regression.
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

  toNotRegress(received: unknown, baseline: BaselineEntry | BenchmarkResult, policy?: RegressionPolicy) {
    const result = requireResult('toNotRegress', received)
    let entry: BaselineEntry
    if (isBaselineEntry(baseline)) entry = baseline
    else if (isBenchmarkResult(baseline)) entry = baselineEntryFrom(baseline)
    else
      throw new TypeError(
        'toNotRegress: the baseline must be a BaselineEntry (from a baseline file or baselineEntryFrom()) or an earlier BenchmarkResult.',
      )
    // The failure rule of `vitest bench`: a result that lost more requests than a run may is a fail, never judged.
    const lost = failureRuling(result, RUN_MAY_LOSE)
    if (lost?.status === 'fail') {
      return {
        pass: false,
        message: () => `expected no regression against the baseline, but the result cannot be judged: ${lost.text}`,
      }
    }
    const gates = policy ?? defaultRegressionPolicy(result.config.target)
    const verdict = compare(entry, result, asParsedPolicy(gates, 'toNotRegress(policy)'))
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
