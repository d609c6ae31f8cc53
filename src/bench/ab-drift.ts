/**
 * The drift guard of an `ab` run: the base arm, unchanged code, against the stored baseline of the
 * same configuration. When it moved beyond the bench's tolerance, the machine moved since the
 * baseline was recorded, and the stored verdicts of this machine cannot be trusted until `-u`.
 */
import { join } from 'node:path'
import {
  baselineEntryFrom,
  baselineConfigOf,
  baselineMismatchOf,
  baselinePathFor,
  BaselineStore,
} from '../core/baseline/index.ts'
import { compare } from '../core/verdict/index.ts'
import { canonicalConfig } from '../core/plan/index.ts'
import { formatFigure } from '../core/platform/format-figure.ts'
import { mergeTrials } from '../core/trials/index.ts'
import type { ArmFile } from './arm-file.ts'

/**
 * One line on the base arm against the stored baseline of `baseDir` (the base revision's package),
 * or undefined when there is no comparable entry (none stored, another machine or config).
 */
export async function driftOf(
  baseDir: string,
  base: readonly ArmFile[],
  baselineDir: string | undefined,
): Promise<string | undefined> {
  const first = base[0]
  if (first === undefined || first.policy === false) return undefined
  const path = baselinePathFor(join(baseDir, first.file), baselineDir)
  const store = await BaselineStore.open(path, { updateMode: 'none', ci: true, identity: canonicalConfig }).catch(
    () => undefined,
  )
  const merged = mergeTrials(base.map((file) => file.result))
  // Read through the same identity as the stored entries (every default written out, the model left out).
  const config = canonicalConfig(baselineConfigOf(merged.config)) as Record<string, unknown>
  const current = baselineEntryFrom(merged, { config })
  const found = store?.get(first.name, current.fingerprint)
  if (found?.state !== 'found') return undefined
  if (baselineMismatchOf(first.name, path, found.entry, current) !== undefined) return undefined
  const verdict = compare(found.entry, merged, first.policy, { stored: true })
  const gates = verdict.checks
    .filter((check) => check.ratio !== null)
    .map(
      (check) =>
        `${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`} ${formatFigure(check.ratio ?? 0)}x`,
    )
    .join(', ')
  const when = found.entry.recordedAt.slice(0, 16).replace('T', ' ')
  // The point estimate beyond the tolerance is enough to say so: the stored verdict would be unsure
  // of it too (a run with fewer trials than the recording, a machine slower than then).
  const beyond = verdict.checks.some(
    (check) =>
      check.ratio !== null &&
      (check.tolerance >= 0 ? check.ratio > 1 + check.tolerance : check.ratio < 1 + check.tolerance),
  )
  if (verdict.status === 'fail' || beyond)
    return `the machine moved since the baseline was recorded (${when}): base arm ${gates}; refresh it with \`vitest bench -u\` on this machine`
  if (verdict.status === 'pass') return `the base arm matches the stored baseline (${when}): ${gates}`
  return `the base arm is within the stored baseline's tolerances (${when}), undecided: ${gates}`
}
