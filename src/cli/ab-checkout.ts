/** The revisions `ab` and `bisect` measure: git, and a revision's package checked out beside the working tree. */
import { existsSync } from 'node:fs'
import { readFile, symlink } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { execa } from 'execa'
import { AbError } from './ab-error.ts'

export async function git(cwd: string, args: string[]): Promise<string> {
  const run = await execa('git', args, { cwd, reject: false })
  if (run.exitCode !== 0)
    throw new AbError(`git ${args.join(' ')} failed: ${String(run.stderr).trim() || `exit ${String(run.exitCode)}`}`)
  return String(run.stdout).trim()
}

const readText = async (path: string): Promise<string | undefined> => readFile(path, 'utf8').catch(() => undefined)

/** A revision checked out: its worktree and the package folder in it. */
export interface CheckedOut {
  tree: string
  dir: string
  /** How its dependencies were provided (linked, or installed with `npm ci`). */
  dependencies: string
}

/**
 * A revision's package beside the working tree: a git worktree of `sha` in `work/<label>`, its
 * dependencies linked to the working tree's when both lock files agree (else installed with
 * `npm ci`). Returns the worktree, the package folder inside it and how its dependencies were provided.
 */
export async function checkoutRevision(
  root: string,
  packageDir: string,
  sha: string,
  work: string,
  say: (line: string) => void,
  label = 'base',
): Promise<CheckedOut> {
  const tree = join(work, label)
  await git(root, ['worktree', 'add', '--detach', '--quiet', tree, sha])
  const dir = join(tree, relative(root, packageDir))
  const modules = join(packageDir, 'node_modules')
  if (!existsSync(modules))
    throw new AbError(
      `${modules} does not exist: run \`npm install\` first (the ${label} revision's benches run on the same dependencies).`,
    )
  if (!existsSync(join(dir, 'package.json')))
    throw new AbError(
      `the ${label} revision has no package at ${relative(root, packageDir) || '.'}: nothing to measure it with.`,
    )
  const [headLock, baseLock] = await Promise.all([
    readText(join(packageDir, 'package-lock.json')),
    readText(join(dir, 'package-lock.json')),
  ])
  if (headLock === baseLock) {
    await symlink(modules, join(dir, 'node_modules'), 'dir')
    return { tree, dir, dependencies: "linked to the working tree's node_modules (package-lock.json is the same)" }
  }
  // Minutes on a large project: said before, timed after, so that a silent wait is never mistaken for a hang.
  say(`ab: package-lock.json differs from the working tree's: installing the ${label} revision's dependencies (npm ci)`)
  const started = performance.now()
  const install = await execa('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, reject: false, all: true })
  const seconds = ((performance.now() - started) / 1000).toFixed(0)
  if (install.exitCode !== 0)
    throw new AbError(
      `npm ci in the ${label} revision failed after ${seconds} s:\n` +
        String(install.all).split('\n').slice(-20).join('\n'),
    )
  return {
    tree,
    dir,
    dependencies: `installed with npm ci in ${seconds} s (package-lock.json differs from the working tree)`,
  }
}
