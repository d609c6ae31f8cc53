import type { BenchmarkResult } from '../contract/result.ts'

/**
 * Share of failed requests above which a run is not judged (and never becomes a baseline) unless the bench sets
 * its own `slo.errors`: its latencies describe a server that was failing. One rule for benches, sweep points and
 * compared trials.
 */
export const DEFAULT_MAX_ERROR_RATE = 0.01

/** How {@link failureRuling} words the limit for a judged run (`bench.llm`, `diff`'s second run, `toNotRegress`). */
export const RUN_MAY_LOSE = 'a run may lose and still be judged'

/**
 * Failures a disturbed machine can cause: a request that outlived its timeout or the drain. A status code, an
 * error event, a malformed or cut-off stream or a dropped connection come from the server, on any machine.
 */
const MACHINE_FAILURES: ReadonlySet<string> = new Set(['timeout', 'cancelled'])

/** Requests of a run that failed by the server's doing (not a timeout or the drain), whatever the machine did. */
function serverFailures(result: Pick<BenchmarkResult, 'errors'>): number {
  return result.errors.filter((error) => !MACHINE_FAILURES.has(error.kind)).reduce((sum, error) => sum + error.count, 0)
}

/** A run (or sweep point) that lost more requests than the rule allows. */
export interface FailureExcess {
  /** True when the server's own failures alone are beyond the rule: a fail on any machine. */
  byServer: boolean
  /** `10 of 410 requests failed (2.4 %), above the 1 % <allowed>; most often 10 x http: …`. */
  text: string
}

/**
 * The failure rule applied to `result`: undefined when it lost no more than {@link DEFAULT_MAX_ERROR_RATE} of its
 * requests (or completed none, which is said apart); `allowed` words the limit (`a run may lose and still be judged`).
 */
export function failureExcess(
  result: Pick<BenchmarkResult, 'counts' | 'errors'>,
  allowed: string,
): FailureExcess | undefined {
  const { failed, total, completed } = result.counts
  if (total === 0 || completed === 0 || failed / total <= DEFAULT_MAX_ERROR_RATE) return undefined
  const top = result.errors[0]
  return {
    byServer: serverFailures(result) / total > DEFAULT_MAX_ERROR_RATE,
    text:
      `${failed} of ${total} requests failed (${((failed / total) * 100).toFixed(1)} %), above the ${DEFAULT_MAX_ERROR_RATE * 100} % ${allowed}` +
      `${top ? `; most often ${top.count} x ${top.kind}: ${top.message}` : ''}`,
  }
}

/** The failure rule's ruling on a run (or sweep point) that lost more requests than it allows. */
export interface FailureRuling extends FailureExcess {
  /**
   * `fail`: the server's own failures are beyond the rule, or the machine was quiet. `excused`: only timeouts and
   * drained requests went beyond it on a disturbed machine: not judged, and not failed either.
   */
  status: 'fail' | 'excused'
  /** What disturbed the machine (`client.selfCheck.disturbed`); empty when nothing did. */
  disturbed: readonly string[]
}

/**
 * The failure rule, one ruling for `bench.llm` runs, sweep points and compared trials: undefined when the run is
 * within {@link DEFAULT_MAX_ERROR_RATE} (see {@link failureExcess}). `excuseDisturbed` (default true): timeouts and
 * drained requests on a disturbed machine are excused; a compared trial is not excused (both arms of its pair meet
 * the same machine, and a pair with a failing arm cannot be compared).
 */
export function failureRuling(
  result: Pick<BenchmarkResult, 'counts' | 'errors' | 'client'>,
  allowed: string,
  { excuseDisturbed = true }: { excuseDisturbed?: boolean } = {},
): FailureRuling | undefined {
  const excess = failureExcess(result, allowed)
  if (excess === undefined) return undefined
  const disturbed = result.client.selfCheck?.disturbed ?? []
  const excused = excuseDisturbed && !excess.byServer && disturbed.length > 0
  return { ...excess, status: excused ? 'excused' : 'fail', disturbed }
}
