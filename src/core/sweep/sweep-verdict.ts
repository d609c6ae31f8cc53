import { type BaselineEntry } from '../baseline/index.ts'
import { judgedRunOf } from '../verdict/index.ts'
import { adjustChecks, type JudgedRun } from '../verdict/index.ts'
import type { SweepCheck } from './check-sweep.ts'
import { axisLabelOf, type SweepResult } from './sweep-result.ts'

/**
 * What the verdict's downgrade rules read of a sweep judged against its stored entry, as of a bench of several
 * trials: the client kept up only if it did at every point, the worst steal, and every point's disturbances
 * (a machine slower than the baseline's among them), each named by its point (`concurrency 8: ...`).
 */
export function judgedSweepOf(
  result: Pick<SweepResult, 'points' | 'axis' | 'serverArg'>,
  baseline: Pick<BaselineEntry, 'selfCheck' | 'provisional'>,
): JudgedRun {
  const axis = axisLabelOf(result)
  const runs = result.points.map((point) => ({
    at: `${axis} ${point.value}`,
    run: judgedRunOf(point.result, baseline),
  }))
  const behind = runs.find(({ run }) => !run.keptUp)
  const steals = runs.flatMap(({ run }) => (run.stealShare === undefined ? [] : [run.stealShare]))
  return {
    keptUp: behind === undefined,
    ...(behind?.run.keptUpWarning !== undefined ? { keptUpWarning: `${behind.at}: ${behind.run.keptUpWarning}` } : {}),
    ...(steals.length > 0 ? { stealShare: Math.max(...steals) } : {}),
    disturbed: runs.flatMap(({ at, run }) => run.disturbed.map((why) => `${at}: ${why}`)),
    ...(baseline.provisional !== undefined ? { baselineProvisional: baseline.provisional } : {}),
  }
}

/** A check of the sweep against its baseline (`... vs baseline`): the checks the verdict's rules judge. */
const relative = (check: SweepCheck): boolean => check.name.endsWith('vs baseline')

/**
 * The sweep's checks after the downgrade rules of every verdict against a baseline (`VERDICT_ADJUSTERS`), as a
 * bench's: its relative checks (a pass or a fail against the baseline) may turn inconclusive, their message led
 * by the rule's reason. Absolute expectations are left, as a bench's SLOs are. Also the rules' notes.
 */
export function adjustSweepChecks(
  checks: readonly SweepCheck[],
  run: JudgedRun,
): { checks: SweepCheck[]; notes: string[] } {
  const judged = checks.flatMap((check) =>
    relative(check) && (check.status === 'pass' || check.status === 'fail')
      ? [{ check, status: check.status, reason: check.message }]
      : [],
  )
  const adjusted = adjustChecks(judged, run)
  const byCheck = new Map(adjusted.checks.map((entry) => [entry.check, entry]))
  return {
    checks: checks.map((check) => {
      const entry = byCheck.get(check)
      if (entry === undefined || entry.status === check.status) return check
      return { ...check, status: entry.status, message: entry.reason ?? check.message }
    }),
    notes: adjusted.notes,
  }
}
