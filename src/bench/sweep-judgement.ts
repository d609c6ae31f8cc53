import { canonicalConfig } from '../core/plan/index.ts'
import { BaselineStore, baselinePathFor } from '../core/baseline/index.ts'
import {
  adjustSweepChecks,
  checkSweep,
  formatSweepHeadlines,
  formatSweepTable,
  judgedSweepOf,
  sweepBaselineEntryOf,
  sweepCurveOf,
  sweepFailureChecks,
  type SweepBaselineCurve,
  type SweepCheck,
  type SweepExpectations,
  type SweepResult,
} from '../core/sweep/index.ts'
import type { JudgedRun } from '../core/verdict/index.ts'
import type { LlmBenchProvided } from './provided.ts'
import { FORCE_BASELINE_ENV } from './bench-judgement.ts'
import type { LlmBenchSweepTaskMeta } from './sweep-meta.ts'
import { shownPath } from '../core/platform/shown-path.ts'
import { disturbancesText } from '../core/contract/disturbances-text.ts'
import { NOT_JUDGED, PROVISIONAL } from './baseline-state.ts'

/** What a sweep's judge reads: the sweep, its expectations and where its baseline lives. */
export interface SweepJudgeInput {
  /** The baseline key: the sweep's name with its describe path. */
  name: string
  /** Absolute path of the bench file; its baseline file is `__llm_baselines__/<file name>.json` beside it. */
  file: string
  result: SweepResult
  /** The sweep's `expect`; undefined: only the checks no sweep may fail. */
  expect: SweepExpectations | undefined
  /** False: neither read nor write a baseline. */
  baseline: boolean
  provided: Pick<LlmBenchProvided, 'update' | 'ci' | 'baselineDir'>
  /** Environment the force switch ({@link FORCE_BASELINE_ENV}) is read from. Default `process.env`. */
  env?: Record<string, string | undefined>
}

/** What a sweep bench measured and concluded; `failure` is the assertion text when it failed. */
export interface SweepJudgement {
  meta: LlmBenchSweepTaskMeta
  failure?: string
}

/**
 * Judges a sweep as `bench.llm` judges a run: a point beyond the failure rule leaves the curve neither compared
 * nor recorded (failed, or not judged on a disturbed machine when the failures are the machine's); otherwise the
 * baseline is read, recorded (provisionally when a point was disturbed) or compared, and the relative checks pass
 * the verdict's downgrade rules (`VERDICT_ADJUSTERS`). The failure text names every failed check.
 */
export async function judgeSweep(input: SweepJudgeInput): Promise<SweepJudgement> {
  const { result, name, provided } = input
  const blocks: string[] = []
  const meta: LlmBenchSweepTaskMeta = { result, checks: [] }
  let baselineCurve: SweepBaselineCurve | undefined
  let judged: JudgedRun | undefined
  const recording: SweepCheck[] = []
  // A curve that lost requests is neither compared nor recorded, as a bench.llm run is not.
  const failures = sweepFailureChecks(result)
  if (failures.length > 0 && input.baseline) {
    recording.push({ name: 'baseline', status: 'skip', message: 'not compared or written: points lost requests' })
    // As a bench's failures on a disturbed machine: not judged, and never a pass in the reports.
    if (failures.every((check) => check.status !== 'fail')) meta.baselineState = NOT_JUDGED
  }
  if (input.baseline && failures.length === 0 && result.points.some((point) => point.result.counts.completed > 0)) {
    const path = baselinePathFor(input.file, provided.baselineDir)
    meta.baselinePath = path
    const store = await BaselineStore.open(path, {
      updateMode: provided.update,
      ci: provided.ci,
      identity: canonicalConfig,
    })
    const entry = sweepBaselineEntryOf(result)
    if (entry) {
      const forced = (input.env ?? process.env)[FORCE_BASELINE_ENV] === '1'
      if (forced) delete entry.provisional
      const match = store.match(name, entry)
      meta.baselineState = match.state
      if ((match.state === 'written' || match.state === 'updated') && entry.provisional !== undefined) {
        // As a bench's: not a pass in the reports.
        meta.baselineState = PROVISIONAL
        const shown = disturbancesText(entry.provisional)
        recording.push({
          name: 'baseline',
          status: 'skip',
          message:
            `recorded provisionally: the machine was disturbed (${shown}); ` +
            'no check passes against it until a quiet run replaces it (`vitest bench`, or `-u`)',
        })
      }
      if (match.state === 'compare') {
        judged = judgedSweepOf(result, match.entry)
        baselineCurve = sweepCurveOf(match.entry)
        if (!baselineCurve)
          blocks.push(
            `The baseline entry for '${name}' in ${path} holds no sweep curve (it was recorded by bench.llm?): ` +
              `run \`vitest bench -u\` and commit ${shownPath(path)}.`,
          )
      } else if (match.state === 'missing' || match.state === 'mismatch') {
        blocks.push(match.error.message)
      }
      await store.save()
    }
  }
  const checked = [...recording, ...checkSweep(result, input.expect, baselineCurve)]
  // One judge with bench.llm: the same rules turn a relative fail (or pass) inconclusive.
  const checks = judged ? adjustSweepChecks(checked, judged).checks : checked
  meta.checks = checks
  const failed = checks.filter((check) => check.status === 'fail')
  if (failed.length === 0 && blocks.length === 0) return { meta }
  const headline = `${name}: ${result.points.length} points in ${(result.durationMs / 1000).toFixed(1)} s`
  const text = failed.map((check) => `${check.name}: ${check.message}`).join('\n')
  const parts = [
    headline,
    ...(text ? [text] : []),
    formatSweepHeadlines(result).join('\n'),
    formatSweepTable(result),
    ...blocks,
  ]
  return { meta, failure: parts.filter((part) => part !== '').join('\n\n') }
}
