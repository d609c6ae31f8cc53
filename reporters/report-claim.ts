import { mkdirSync, rmdirSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { claimFileSync } from '../src/core/platform/file-lock.ts'

/** The lock file a run keeps in each report folder it writes to, for as long as it runs. */
export const REPORT_CLAIM_FILE = '.vitest-llm-bench-run.lock'

/** Where a run writes the reports meant for one folder. */
interface FolderClaim {
  /** The folder the files go to: the one configured, or this run's own inside it when another run holds it. */
  folder: string
  /** Set when another run holds the configured folder: who, for the message. */
  heldBy?: string
}

const claims = new Map<string, FolderClaim>()
const releases: Array<() => void> = []
let exitHookInstalled = false

/**
 * Claims the folder of each of `files` (absolute paths) for this process, once per folder for all
 * reporters: two runs in one project would otherwise overwrite each other's reports. A folder
 * another live run holds is left to it; this run's files for it go to `run-<pid>/` inside it. The
 * claims are released when the process exits. Returns a line per folder moved, for the user.
 */
export function claimReportFolders(files: readonly string[]): string[] {
  const lines: string[] = []
  for (const folder of new Set(files.map((file) => dirname(file)))) {
    if (claims.has(folder)) continue
    const claim = claimFolder(folder)
    claims.set(folder, claim)
    if (claim.heldBy !== undefined)
      lines.push(
        `vitest-llm-bench: another run (${claim.heldBy}) writes its reports to ${folder}; ` +
          `this run's go to ${claim.folder} so that neither overwrites the other.`,
      )
  }
  return lines
}

/** Where `file` (absolute) is written: in this run's own folder when another run holds its folder. */
export function claimedPath(file: string): string {
  const claim = claims.get(dirname(file))
  return claim === undefined ? file : join(claim.folder, basename(file))
}

function claimFolder(folder: string): FolderClaim {
  let created: string | undefined
  try {
    created = mkdirSync(folder, { recursive: true })
  } catch {
    // Unwritable: the write at the end says so, one line per reporter.
    return { folder }
  }
  let claim: ReturnType<typeof claimFileSync>
  try {
    claim = claimFileSync(join(folder, REPORT_CLAIM_FILE))
  } catch {
    return { folder }
  }
  if (!claim.claimed) return { folder: join(folder, `run-${process.pid}`), heldBy: claim.holder }
  releases.push(() => {
    claim.release()
    // A folder this claim created and nothing was written to (a run without benches) goes again.
    if (created !== undefined) rmEmptyFolders(created, folder)
  })
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on('exit', releaseReportFolders)
  }
  return { folder }
}

/** Releases every folder this process claimed (at exit; tests call it directly). */
export function releaseReportFolders(): void {
  for (const release of releases.splice(0)) release()
  claims.clear()
}

/** Removes `folder` and its parents up to `top` (the first folder `mkdir` created) while they are empty. */
function rmEmptyFolders(top: string, folder: string): void {
  for (let current = folder; ; current = dirname(current)) {
    try {
      rmdirSync(current)
    } catch {
      return
    }
    if (current === top || dirname(current) === current) return
  }
}
