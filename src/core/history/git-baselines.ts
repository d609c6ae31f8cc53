/**
 * The committed history of the baseline files: every version of every `__llm_baselines__/*.json`
 * the repository tracks now, read with `git log --follow` (renames kept) and `git show`.
 */
import { execa } from 'execa'
import { BASELINE_DIR } from '../baseline/baseline-path.ts'
import { parseBaselineFile, type BaselineFile } from '../baseline/baseline-file.ts'
import { HistoryError } from './history-error.ts'

/** One committed version of a baseline file. */
export interface BaselineVersion {
  /** Full hash of the commit. */
  sha: string
  /** Its short hash, as `git log %h` gives it. */
  commit: string
  /** Committer date, ISO 8601. */
  date: string
  subject: string
  /** The file's path in that commit, relative to the repository root (renames followed). */
  path: string
  file: BaselineFile
}

/** A baseline file's committed versions, oldest first, and the versions that could not be read. */
export interface BaselineFileHistory {
  /** Path at HEAD, relative to the repository root. */
  path: string
  versions: BaselineVersion[]
  /** `<short hash> <path>: <why>` for each version skipped (not JSON, another schema version). */
  skipped: string[]
}

async function git(root: string, args: readonly string[]): Promise<string> {
  const result = await execa('git', args, { cwd: root, reject: false, stripFinalNewline: false })
  if (result.exitCode !== 0) {
    const why = String(result.stderr).trim() || `exit ${result.exitCode}`
    throw new HistoryError(`git ${args.slice(0, 2).join(' ')} failed in ${root}: ${why}.`)
  }
  return String(result.stdout)
}

/** The repository's top folder, or a {@link HistoryError} saying to run from a checkout. */
export async function repositoryRoot(cwd: string): Promise<string> {
  let result
  try {
    result = await execa('git', ['rev-parse', '--show-toplevel'], { cwd, reject: false })
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    throw new HistoryError(
      `git could not be run (${why}): install git and run history from your repository's checkout.`,
    )
  }
  if (result.exitCode !== 0) {
    throw new HistoryError(
      `${cwd} is not inside a git repository: ` +
        `run history from the checkout whose ${BASELINE_DIR}/ files are committed.`,
    )
  }
  return String(result.stdout).trim()
}

/** The baseline files git tracks now, relative to the repository root. */
export async function trackedBaselineFiles(root: string): Promise<string[]> {
  const out = await git(root, ['ls-files', '-z', '--', `:(glob)**/${BASELINE_DIR}/*.json`])
  return out.split('\0').filter((path) => path !== '')
}

const FIELD = '\x1f'
const RECORD = '\x1e'

/** How many `git show` processes run at once. */
const PARALLEL_READS = 8

/**
 * Every committed version of `path` (relative to `root`), oldest first; versions that do not parse
 * are skipped with a reason.
 */
export async function baselineFileHistory(root: string, path: string): Promise<BaselineFileHistory> {
  const log = await git(root, [
    'log',
    '--follow',
    '--name-only',
    `--format=${RECORD}%H${FIELD}%h${FIELD}%cI${FIELD}%s`,
    '--',
    path,
  ])
  const commits = log
    .split(RECORD)
    .filter((record) => record.trim() !== '')
    .map((record) => {
      const [header = '', ...names] = record.split('\n')
      const [sha = '', commit = '', date = '', subject = ''] = header.split(FIELD)
      return { sha, commit, date, subject, path: names.find((name) => name.trim() !== '')?.trim() ?? path }
    })
    .reverse()
  const versions: Array<BaselineVersion | string> = []
  for (let i = 0; i < commits.length; i += PARALLEL_READS) {
    const batch = commits.slice(i, i + PARALLEL_READS)
    versions.push(
      ...(await Promise.all(
        batch.map(async (commit): Promise<BaselineVersion | string> => {
          const shown = await execa('git', ['show', `${commit.sha}:${commit.path}`], { cwd: root, reject: false })
          // A commit that deleted the file (before it was added again) has no version to read.
          if (shown.exitCode !== 0) return `${commit.commit} ${commit.path}: not in that commit`
          try {
            return { ...commit, file: parseBaselineFile(String(shown.stdout), `${commit.path}@${commit.commit}`) }
          } catch (error) {
            return `${commit.commit} ${commit.path}: ${error instanceof Error ? error.message : String(error)}`
          }
        }),
      )),
    )
  }
  return {
    path,
    versions: versions.filter((v): v is BaselineVersion => typeof v !== 'string'),
    skipped: versions.filter((v): v is string => typeof v === 'string'),
  }
}
