import { BaselineStore, baselinePathFor } from '../core/baseline/index.ts'
import { LlmBenchError } from '../core/contract/errors.ts'
import type { UpdateMode } from './provided.ts'

/** The test names one bench file registered in a run, and whether that list can be trusted. */
export interface BenchFileNames {
  /** Absolute path of the bench file. */
  file: string
  /** Full names (`describe > … > name`) of every test collected in it, skipped ones included. */
  names: Set<string>
  /**
   * True when the file was collected without errors and ran to the end, so a stored name that
   * is not in {@link names} belongs to a bench that no longer exists.
   */
  complete: boolean
}

/** What {@link reconcileObsoleteBaselines} found (and removed) in one baseline file. */
export interface ObsoleteBaselines {
  /** The baseline file. */
  path: string
  /** The bench file it belongs to. */
  benchFile: string
  /** Entries whose bench did not run, sorted. */
  names: string[]
  /** True when they were removed (`-u`). */
  removed: boolean
}

/**
 * For each completely run bench file with a baseline file: lists the entries of benches that did
 * not run; under `-u` (update mode `all`) removes them, like obsolete snapshots. Files that did
 * not run completely are left alone. A baseline file that does not parse is skipped (its benches
 * already failed with its path).
 */
export async function reconcileObsoleteBaselines(
  files: ReadonlyArray<BenchFileNames>,
  options: { update: UpdateMode; baselineDir?: string | undefined },
): Promise<ObsoleteBaselines[]> {
  const found: ObsoleteBaselines[] = []
  for (const file of files) {
    if (!file.complete) continue
    const path = baselinePathFor(file.file, options.baselineDir)
    let store: BaselineStore
    try {
      store = await BaselineStore.open(path, { updateMode: options.update === 'all' ? 'all' : 'none', ci: false })
    } catch (error) {
      if (error instanceof LlmBenchError) continue
      throw error
    }
    const obsolete = store.names().filter((name) => !file.names.has(name))
    if (obsolete.length === 0) continue
    if (options.update === 'all') {
      // Every registered name, not only those in the file when opened: another run of this file may add one before the save.
      for (const name of file.names) store.markChecked(name)
      const summary = await store.save({ removeObsolete: true })
      found.push({ path, benchFile: file.file, names: summary.removed, removed: true })
    } else {
      found.push({ path, benchFile: file.file, names: obsolete, removed: false })
    }
  }
  return found
}
