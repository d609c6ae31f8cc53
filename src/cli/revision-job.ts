/**
 * What `ab` and `bisect` share around their measuring: the pair flags and their reading, the git top level, a
 * scratch folder with the revisions checked out in it, a stop by signal or by the parent's end, and on the way out
 * every worktree removed and an error that says what to do written where a CI step looks for it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { COMPARE_DEFAULTS } from '../bench/compare-bench-options.ts'
import type { CliFlag, CliFlagValues, CliIo } from './cli-command.ts'
import { AbError } from './ab-error.ts'
import { checkoutRevision, git, type CheckedOut } from './ab-checkout.ts'
import type { RevisionsRun } from './ab-measure.ts'

const HELD_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** The flags of how the pairs run, worded for what one verdict is (`ab`: the run; `bisect`: each step). */
export function pairFlags(each: string): Record<string, CliFlag> {
  return {
    'min-pairs': {
      type: 'integer',
      description: `Pairs measured before any verdict${each}`,
      default: COMPARE_DEFAULTS.minPairs,
      min: 2,
    },
    'max-pairs': {
      type: 'integer',
      description: `Pairs at most${each}, while a gate is undecided (default ${COMPARE_DEFAULTS.maxPairsTogether} with arms together, ${COMPARE_DEFAULTS.maxPairs} apart)`,
      min: 2,
    },
    arms: {
      type: 'string',
      description:
        "together: both revisions' servers up at once, loaded in turn in slices; apart: one arm after the other; auto: together where both fit",
      default: COMPARE_DEFAULTS.arms,
      choices: ['auto', 'together', 'apart'],
    },
    slices: {
      type: 'integer',
      description: "Arms together: slices of each arm's load per pair (A B B A A B B A for 4)",
      default: COMPARE_DEFAULTS.slices,
      min: 1,
    },
    'budget-min': {
      type: 'number',
      description: `Minutes the pairs may take${each}; another pair starts only if one more fits`,
      default: COMPARE_DEFAULTS.budgetMs / 60_000,
      min: 0,
    },
  }
}

/** How the pairs of a verdict run, read from {@link pairFlags}. */
export type PairsAsked = Pick<RevisionsRun, 'name' | 'asked' | 'slices' | 'minPairs' | 'maxPairs' | 'budgetMs'>

/** The pair flags read once; a usage error (said as the command's own line) where they contradict. */
export function pairsAsked(flags: CliFlagValues): PairsAsked | { usage: string } {
  const minPairs = Number(flags['min-pairs'])
  const maxPairs = flags['max-pairs'] === undefined ? undefined : Number(flags['max-pairs'])
  if (maxPairs !== undefined && maxPairs < minPairs)
    return { usage: `--max-pairs (${maxPairs}) is below --min-pairs (${minPairs}).` }
  return {
    name: typeof flags.name === 'string' ? flags.name : undefined,
    asked: flags.arms as RevisionsRun['asked'],
    slices: Number(flags.slices),
    minPairs,
    maxPairs,
    budgetMs: Number(flags['budget-min']) * 60_000,
  }
}

/** What a job's body works with. */
export interface RevisionJob {
  /** The git top level of the working tree. */
  root: string
  /** The job's scratch folder, removed at the end. */
  work: string
  /** Aborted by SIGINT, SIGTERM, SIGHUP or the parent's end; its reason is an Error named for the signal. */
  signal: AbortSignal
  /** `sha` checked out in `work/<label>` (once; later calls give the same), its dependencies provided. */
  checkout(sha: string, label: string): Promise<CheckedOut>
  /** Removes a revision's worktree now (a bisection drops each midpoint once judged). */
  drop(sha: string): Promise<void>
}

/** The command a job serves and what it leaves when it cannot go on. */
export interface RevisionJobSpec {
  /** `ab`, `bisect`: the prefix of its error line and of its scratch folder. */
  command: string
  io: CliIo
  /** The package folder the command runs in (the working tree's). */
  packageDir: string
  /** Writes what a CI step reads when there is no verdict (the message says why and what to do). */
  unfinished: (message: string) => Promise<void>
  /** The exit status of a job that could not go on. */
  errorExit: number
}

/**
 * Runs `body` as a job over revisions: the signals held until every worktree is removed (`vitest bench` signals its
 * whole process group when stopped, and a second SIGTERM with no listener would end this process before it cleans
 * up); an `AbError` or a workload error is said, left for CI by `unfinished`, and ends with `errorExit`.
 */
export async function runRevisionJob(
  spec: RevisionJobSpec,
  body: (job: RevisionJob) => Promise<number>,
): Promise<number> {
  const { command, io, packageDir } = spec
  const controller = new AbortController()
  void io.stopRequested().then((signal) => controller.abort(new Error(signal)))
  const held = (signal: NodeJS.Signals) => controller.abort(new Error(signal))
  for (const signal of HELD_SIGNALS) process.on(signal, held)
  let root = packageDir
  let work: string | undefined
  const trees = new Map<string, CheckedOut>()
  const remove = (tree: string) => git(root, ['worktree', 'remove', '--force', tree]).catch(() => undefined)
  try {
    root = await git(packageDir, ['rev-parse', '--show-toplevel'])
    const scratch = await mkdtemp(join(tmpdir(), `llm-bench-${command}-`))
    work = scratch
    return await body({
      root,
      work: scratch,
      signal: controller.signal,
      checkout: async (sha, label) => {
        const had = trees.get(sha)
        if (had) return had
        const made = await checkoutRevision(root, packageDir, sha, scratch, (line) => io.out(line), label)
        trees.set(sha, made)
        return made
      },
      drop: async (sha) => {
        const had = trees.get(sha)
        if (had === undefined) return
        trees.delete(sha)
        await remove(had.tree)
      },
    })
  } catch (error) {
    if (!(error instanceof AbError) && !(error instanceof Error && error.name === 'WorkloadError')) throw error
    io.err(`vitest-llm-bench ${command}: ${error.message}`)
    await spec.unfinished(error.message).catch(() => undefined)
    return spec.errorExit
  } finally {
    for (const { tree } of trees.values()) await remove(tree)
    if (work !== undefined) await rm(work, { recursive: true, force: true })
    for (const signal of HELD_SIGNALS) process.off(signal, held)
  }
}
