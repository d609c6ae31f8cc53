import { DISTURBED_REMEASURES, type BenchLimit } from './bench-trials.ts'
import { formatDurationMs } from '../core/platform/format-figure.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'

/**
 * Time a runner's own test timeout is given beyond a bench's, ms: after the bench's limit the run
 * is stopped, its server stopped and what it measured reported, and the bench fails with its own
 * message (`timeoutMs`), before the runner's ("configure testTimeout") could.
 */
export const RUNNER_TIMEOUT_MARGIN_MS = 60_000

/** The runner's test timeout for a bench whose whole limit is `benchMs`. */
export function runnerTimeoutMs(benchMs: number): number {
  return benchMs + RUNNER_TIMEOUT_MARGIN_MS
}

/** The failure of a bench stopped at its whole limit, with what it measured (`result`) if it got that far. */
export function benchTimedOut(name: string, limit: BenchLimit, result: BenchmarkResult | undefined): string {
  const measured =
    result === undefined
      ? 'before it measured anything'
      : `with ${result.counts.completed} of ${result.counts.total} requests completed, which are in the reports`
  return (
    `${name}: stopped at its time limit, ${formatDurationMs(limit.ms)} (\`timeoutMs\` ${formatDurationMs(limit.perTrialMs)} per trial, ` +
    `times the ${limit.trials} trials it may run: those it records or compares, plus ${DISTURBED_REMEASURES} re-measures of a disturbed trial), ${measured}. ` +
    'Raise `timeoutMs` in the bench options, or lower the load.'
  )
}
