import type { BenchmarkResult } from '../core/contract/types.ts'

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

/** The failure of a bench stopped at its whole limit `benchMs`, with what it measured (`result`) if it got that far. */
export function benchTimedOut(name: string, benchMs: number, result: BenchmarkResult | undefined): string {
  const measured =
    result === undefined
      ? 'before it measured anything'
      : `with ${result.counts.completed} of ${result.counts.total} requests completed, which are in the reports`
  return (
    `${name}: stopped at its time limit, ${Math.round(benchMs / 1000)} s (\`timeoutMs\`, per trial, times the trials it may run), ${measured}. ` +
    'Raise `timeoutMs` in the bench options, or lower the load.'
  )
}
