import type { BenchmarkResult } from '../contract/types.ts'

/**
 * Share of failed requests above which a run is not judged (and never becomes a baseline) unless the bench sets
 * its own `slo.errors`: its latencies describe a server that was failing. One rule for benches, sweep points and
 * compared trials.
 */
export const DEFAULT_MAX_ERROR_RATE = 0.01

/**
 * Failures a disturbed machine can cause: a request that outlived its timeout or the drain. A status code, an
 * error event, a malformed or cut-off stream or a dropped connection come from the server, on any machine.
 */
const MACHINE_FAILURES: ReadonlySet<string> = new Set(['timeout', 'cancelled'])

/** Requests of a run that failed by the server's doing (not a timeout or the drain), whatever the machine did. */
export function serverFailures(result: Pick<BenchmarkResult, 'errors'>): number {
  return result.errors.filter((error) => !MACHINE_FAILURES.has(error.kind)).reduce((sum, error) => sum + error.count, 0)
}
