/**
 * The file system as the baseline store needs it (as `SnapshotEnvironment` for @vitest/snapshot):
 * the store's logic stays free of I/O, tests can run it in memory, and other hosts (a browser
 * runner, a remote store) can provide their own.
 */
export interface BaselineEnvironment {
  /** The file's text, or `null` when it does not exist. */
  readFile(path: string): Promise<string | null>
  /**
   * Replaces the file's content so that readers see the old or the new text, never a mix or an
   * empty file; creates missing directories.
   */
  writeFileAtomic(path: string, content: string): Promise<void>
  /** Removes the file; does nothing when it does not exist. */
  removeFile(path: string): Promise<void>
  /**
   * Runs `critical` while no other process runs `exclusive` for the same `path` (a read-merge-write
   * of several runs on one file must not interleave), and clears what an earlier holder that died
   * mid-write left behind (temporary files).
   */
  exclusive<T>(path: string, critical: () => Promise<T>): Promise<T>
}
