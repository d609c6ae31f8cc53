import { BaselineMissingError } from '../contract/errors.ts'

/**
 * How baselines may be written, as Vitest's snapshot update states: `all` rewrites every entry
 * that ran (`vitest bench -u`) and removes obsolete ones, `new` writes only missing entries (the
 * local default), `none` writes nothing (the default under CI).
 */
export type UpdateMode = 'all' | 'new' | 'none'

/** The update mode Vitest would use: `-u` gives `all`, otherwise `none` under CI and `new` locally. */
export function resolveUpdateMode(options: { update: boolean; ci: boolean }): UpdateMode {
  if (options.update) return 'all'
  return options.ci ? 'none' : 'new'
}

/** What to do about a bench with no stored baseline. */
export type MissingBaselineDecision = { action: 'write' } | { action: 'fail'; error: BaselineMissingError }

/**
 * Decides for a missing entry: write it (`-u`, or `new` outside CI) or fail with
 * "No baseline for 'X' in <path>. Run `vitest bench -u` locally and commit <path>." (under CI,
 * where a freshly written baseline would vanish with the runner, or with update mode `none`).
 * `ci` wins over `new`, so a CI job without `-u` never records baselines by accident.
 */
export function decideMissingBaseline(
  benchName: string,
  path: string,
  options: { updateMode: UpdateMode; ci: boolean },
): MissingBaselineDecision {
  if (options.updateMode === 'all' || (options.updateMode === 'new' && !options.ci)) return { action: 'write' }
  return { action: 'fail', error: new BaselineMissingError(benchName, path) }
}
