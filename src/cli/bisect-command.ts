/**
 * `vitest-llm-bench bisect --good <ref> --bad <ref> [bench files] [-t <name>]`: which commit changed
 * the speed. First a paired verdict of bad against good (the method and gates of `ab`, arms together
 * where they fit); if no bench fails, the regression is not confirmed. Then the first-parent commits
 * between them are bisected, each midpoint judged against good on the benches that failed: a fail
 * puts the change at or before it, a pass after it; an undecided midpoint is judged against bad too,
 * and a midpoint whose bench is missing, changed or does not load is skipped, as `git bisect skip`.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import type { AbBenchVerdict } from '../bench/ab-verdict.ts'
import { NAME_FLAG, type CliCommand, type CliFlagValues, type CliIo } from './cli-command.ts'
import { AbError } from './ab-error.ts'
import { git } from './ab-checkout.ts'
import { pairFlags, pairsAsked, runRevisionJob } from './revision-job.ts'
import { measureRevisions, type RevisionsRun } from './ab-measure.ts'
import { bisectOrderAfter, bisectProfile, runCampaign, type BisectOutcome } from '../core/campaign/index.ts'

/** A commit of the range. */
interface Commit {
  sha: string
  subject: string
}

/** One paired verdict of the bisection. */
export interface BisectStep {
  /** The commit judged (head) and what it was judged against (base). */
  head: Commit
  base: Commit
  /** What the step says of `head`: at or after the change (`bad`), before it (`good`), or neither. */
  outcome: BisectOutcome
  /** The failed or undecided gates, or why the commit was skipped. */
  why: string
  pairs: number
  seconds: number
}

/** What the bisection found. */
export interface BisectResult {
  good: Commit
  bad: Commit
  /** First-parent commits after good up to bad. */
  commits: number
  steps: BisectStep[]
  /** The first bad commit, when one was named. */
  culprit?: Commit & { authorDate: string; files: string[]; gates: string[] }
  /** Commits that could not be judged. */
  skipped: Commit[]
  /** When no single commit could be named: the commits the change is among, oldest first. */
  range?: Commit[]
  /** 0 a culprit named, 1 the regression not confirmed (no gate failed), 2 the range not narrowed to one commit. */
  exit: 0 | 1 | 2
  durationMs: number
}

/** The gates of the benches that moved, as `ttftMs p50 2.310x [1.980, 2.700]`. */
function movedGates(verdicts: readonly AbBenchVerdict[], status: 'fail' | 'inconclusive'): string[] {
  return verdicts.flatMap((v) =>
    (v.paired?.checks ?? [])
      .filter((check) => check.status === status)
      .map((check) => {
        const stat = check.statistic === 'value' ? '' : ` ${check.statistic}`
        const ci =
          check.ciLow === null || check.ciHigh === null
            ? ''
            : ` [${check.ciLow.toFixed(3)}, ${check.ciHigh.toFixed(3)}]`
        // An undecided gate says why (every pair measured on a disturbed machine, more pairs needed).
        const why = status === 'inconclusive' && check.reason ? ` (${check.reason})` : ''
        return `${v.name}: ${check.metric}${stat} ${check.ratio?.toFixed(3) ?? '?'}x${ci}${why}`
      }),
  )
}

const keyOf = (v: Pick<AbBenchVerdict, 'file' | 'name'>): string => `${v.file} > ${v.name}`

/** What a paired verdict says of head on the benches that moved. */
function outcomeOf(
  verdicts: readonly AbBenchVerdict[],
  targets: ReadonlySet<string>,
): { outcome: BisectOutcome; why: string } {
  const judged = verdicts.filter((v) => targets.has(keyOf(v)))
  const missing = [...targets].filter((key) => !judged.some((v) => keyOf(v) === key))
  if (missing.length > 0) return { outcome: 'skipped', why: `not measured there: ${missing.join(', ')}` }
  const unusable = judged.filter((v) => !['pass', 'fail', 'inconclusive'].includes(v.status))
  if (unusable.length > 0)
    return {
      outcome: 'skipped',
      why: unusable.map((v) => `${keyOf(v)}: ${v.status}${v.fault ? ` (${v.fault})` : ''}`).join('; '),
    }
  if (judged.some((v) => v.status === 'fail')) return { outcome: 'bad', why: movedGates(judged, 'fail').join('; ') }
  if (judged.every((v) => v.status === 'pass')) return { outcome: 'good', why: 'every gate passed' }
  return { outcome: 'undecided', why: movedGates(judged, 'inconclusive').join('; ') }
}

/** Good, bad and the first-parent commits after good up to bad, oldest first; an error that says what to do. */
async function rangeOf(
  root: string,
  goodRef: string,
  badRef: string,
): Promise<{ good: Commit; bad: Commit; commits: Commit[] }> {
  const resolveRef = (ref: string) =>
    git(root, ['rev-parse', '--verify', `${ref}^{commit}`]).catch(() => {
      throw new AbError(`\`${ref}\` is not a commit here. Is it fetched? (GitHub Actions: \`fetch-depth: 0\`)`)
    })
  const [goodSha, badSha] = [await resolveRef(goodRef), await resolveRef(badRef)]
  const subjectOf = async (sha: string): Promise<Commit> => ({
    sha,
    subject: await git(root, ['log', '-1', '--format=%s', sha]),
  })
  const listed = await git(root, [
    'rev-list',
    '--reverse',
    '--first-parent',
    '--ancestry-path',
    `${goodSha}..${badSha}`,
  ])
  const shas = listed.split('\n').filter(Boolean)
  if (shas.length === 0)
    throw new AbError(`${badRef} is not after ${goodRef} on its first-parent line: nothing to bisect.`)
  const commits = await Promise.all(shas.map(subjectOf))
  return { good: await subjectOf(goodSha), bad: commits.at(-1) as Commit, commits }
}

/**
 * A midpoint judged against good on the benches that moved; undecided, against bad too (a fail of bad puts the
 * change after it); one that cannot be measured (an `AbError`: its bench does not load, a server fails) is skipped.
 */
async function judgeMidpoint(
  judge: (base: Commit, head: Commit) => Promise<AbBenchVerdict[]>,
  at: { good: Commit; commit: Commit; bad: Commit },
  targets: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<{ outcome: BisectOutcome; why: string; verdicts: AbBenchVerdict[] }> {
  try {
    const verdicts = await judge(at.good, at.commit)
    const o = outcomeOf(verdicts, targets)
    if (o.outcome !== 'undecided') return { ...o, verdicts }
    const later = outcomeOf(await judge(at.commit, at.bad), targets)
    if (later.outcome === 'bad')
      return { outcome: 'good', why: `undecided against good; bad fails against it: ${later.why}`, verdicts }
    if (later.outcome === 'good')
      return { outcome: 'bad', why: 'undecided against good; bad passes against it', verdicts }
    return { ...o, verdicts }
  } catch (error) {
    if (!(error instanceof AbError) || signal.aborted) throw error
    return { outcome: 'skipped', why: error.message.split('\n')[0] ?? 'it could not be measured', verdicts: [] }
  }
}

/** The first bad commit as reported: its author date, the files it changed, and the gates of the step that named it. */
async function culpritOf(
  root: string,
  c: Commit,
  steps: readonly BisectStep[],
): Promise<NonNullable<BisectResult['culprit']>> {
  const shown = await git(root, ['show', '--name-only', '--format=%aI', c.sha])
  const [authorDate = '', ...files] = shown.split('\n').filter(Boolean)
  const named = steps.findLast((s) => s.head.sha === c.sha && s.outcome === 'bad') ?? steps[0]
  return { ...c, authorDate, files, gates: (named?.why ?? '').split('; ') }
}

async function runBisect(flags: CliFlagValues, io: CliIo, operands: readonly string[]): Promise<number> {
  const [goodRef, badRef] = [flags.good, flags.bad]
  if (typeof goodRef !== 'string' || goodRef === '' || typeof badRef !== 'string' || badRef === '') {
    io.err(
      'vitest-llm-bench bisect: --good <git ref> and --bad <git ref> are both required, e.g. `--good v1.2.0 --bad HEAD`.',
    )
    return 2
  }
  const pairs = pairsAsked(flags)
  if ('usage' in pairs) {
    io.err(`vitest-llm-bench bisect: ${pairs.usage}`)
    return 2
  }
  const packageDir = process.cwd()
  const out = resolve(String(flags.out))
  const started = performance.now()
  const unfinished = async (message: string) => {
    await mkdir(out, { recursive: true })
    await writeFile(
      join(out, 'bisect.json'),
      `${JSON.stringify({ tool: 'vitest-llm-bench', kind: 'bisect', error: message }, null, 2)}\n`,
    )
  }
  return runRevisionJob({ command: 'bisect', io, packageDir, unfinished, errorExit: 2 }, async (job) => {
    const { root, work, signal } = job
    const { good, bad, commits } = await rangeOf(root, goodRef, badRef)
    await mkdir(join(out, 'logs'), { recursive: true })
    io.out(`bisect: good ${good.sha.slice(0, 12)} ${good.subject}`)
    io.out(`bisect: bad ${bad.sha.slice(0, 12)} ${bad.subject}, ${commits.length} first-parent commits after good`)
    const checkout = (sha: string) => job.checkout(sha, `r-${sha.slice(0, 12)}`)
    let stepCount = 0
    const steps: BisectStep[] = []
    const judge = async (base: Commit, head: Commit, only: readonly string[]): Promise<AbBenchVerdict[]> => {
      stepCount++
      const stepWork = join(work, `step-${stepCount}`)
      await mkdir(stepWork, { recursive: true })
      const logDir = join(out, 'logs', `step-${stepCount}`)
      await mkdir(logDir, { recursive: true })
      io.out(`\nbisect: step ${stepCount}: ${head.sha.slice(0, 12)} ${head.subject} against ${base.sha.slice(0, 12)}`)
      const [b, h] = [await checkout(base.sha), await checkout(head.sha)]
      const run: RevisionsRun = {
        dirs: { base: b.dir, head: h.dir },
        work: stepWork,
        logDir,
        operands: only,
        ...pairs,
        signal,
        io,
      }
      return (await measureRevisions(run)).verdicts
    }
    const record = (
      base: Commit,
      head: Commit,
      o: { outcome: BisectOutcome; why: string },
      verdicts: readonly AbBenchVerdict[],
      since: number,
    ) => {
      const pairs = Math.max(0, ...verdicts.map((v) => v.pairs))
      const step: BisectStep = { head, base, ...o, pairs, seconds: (performance.now() - since) / 1000 }
      steps.push(step)
      io.out(
        `bisect: ${head.sha.slice(0, 12)} is ${o.outcome}${o.why ? `: ${o.why}` : ''} (${pairs} pairs, ${step.seconds.toFixed(0)} s)`,
      )
    }
    // 1. The regression itself: bad against good, on the benches given.
    let since = performance.now()
    const first = await judge(good, bad, operands)
    const failed = first.filter((v) => v.status === 'fail')
    const targets = new Set(failed.map(keyOf))
    record(
      good,
      bad,
      failed.length > 0
        ? { outcome: 'bad', why: movedGates(failed, 'fail').join('; ') }
        : outcomeOf(first, new Set(first.map(keyOf))),
      first,
      since,
    )
    const result: BisectResult = { good, bad, commits: commits.length, steps, skipped: [], exit: 1, durationMs: 0 }
    if (failed.length === 0) {
      // Not confirmed, whether every gate passed or some stayed undecided (then why: a busy machine, too few pairs).
      const undecided = steps[0]?.outcome === 'undecided'
      io.out(
        `\nbisect: not confirmed: no bench of ${bad.sha.slice(0, 12)} fails against ${good.sha.slice(0, 12)}` +
          `${undecided ? ` (undecided: ${steps[0]?.why ?? ''})` : ''}; nothing to bisect.`,
      )
      return await finish(result)
    }
    // Only the bench files that moved (their paths are relative to the package, as the arms ran them).
    const only = [...new Set(failed.map((v) => v.file))]
    // 2. The commits between, a profile of the campaign driver: each midpoint judged, until one commit is left.
    const { measured } = await runCampaign({
      profile: bisectProfile(commits.length),
      measure: async (mid) => {
        const commit = commits[mid] as Commit
        since = performance.now()
        const { verdicts, ...o } = await judgeMidpoint(
          (base, head) => judge(base, head, only),
          { good, commit, bad },
          targets,
          signal,
        )
        record(good, commit, o, verdicts, since)
        if (o.outcome === 'skipped') result.skipped.push(commit)
        if (commit.sha !== bad.sha) await job.drop(commit.sha)
        return { index: mid, outcome: o.outcome }
      },
      judge: () => undefined,
    })
    const found = bisectOrderAfter(commits.length, measured).found()
    if (found.culprit !== undefined) {
      const culprit = await culpritOf(root, commits[found.culprit] as Commit, steps)
      result.culprit = culprit
      result.exit = 0
      io.out(`\nbisect: first bad commit ${culprit.sha.slice(0, 12)} ${culprit.subject} (${culprit.authorDate})`)
      io.out(`bisect: files changed: ${culprit.files.join(', ') || 'none'}`)
      io.out(`bisect: ${culprit.gates.join('; ')}`)
    } else {
      result.range = found.range.map((i) => commits[i] as Commit)
      result.exit = 2
      io.out(
        `\nbisect: the change is among ${result.range.length} commits, not narrowed to one: ${result.range.map((c) => c.sha.slice(0, 12)).join(' ')}`,
      )
    }
    return await finish(result)
  })

  async function finish(result: BisectResult): Promise<number> {
    result.durationMs = performance.now() - started
    await writeFile(
      join(out, 'bisect.json'),
      `${JSON.stringify({ tool: 'vitest-llm-bench', kind: 'bisect', ...result }, null, 2)}\n`,
    )
    await writeFile(join(out, 'comment.md'), formatBisectComment(result))
    io.out(
      `bisect: ${result.steps.length} steps in ${(result.durationMs / 60_000).toFixed(1)} min; ${relative(packageDir, out) || '.'}/: bisect.json, comment.md written`,
    )
    return result.exit
  }
}

/** The Markdown of a bisection for an issue: the culprit (or why none), then every step. */
export function formatBisectComment(r: BisectResult): string {
  const short = (c: Commit) => `\`${c.sha.slice(0, 12)}\` ${c.subject}`
  const head =
    r.culprit !== undefined
      ? `### vitest-llm-bench bisect: first bad commit ${short(r.culprit)}\n\nAuthored ${r.culprit.authorDate}; files: ${r.culprit.files.map((f) => `\`${f}\``).join(', ') || 'none'}.\n\nWhat moved: ${r.culprit.gates.join('; ')}.`
      : r.exit === 1
        ? `### vitest-llm-bench bisect: not confirmed\n\nNo bench of ${short(r.bad)} fails against ${short(r.good)}.`
        : `### vitest-llm-bench bisect: among ${r.range?.length ?? 0} commits\n\n${(r.range ?? []).map((c) => `- ${short(c)}`).join('\n')}`
  const rows = r.steps.map(
    (s, i) =>
      `| ${i + 1} | ${short(s.head)} | \`${s.base.sha.slice(0, 12)}\` | ${s.outcome} | ${s.why.replace(/\|/g, '\\|')} | ${s.pairs} | ${s.seconds.toFixed(0)} |`,
  )
  const skipped = r.skipped.length > 0 ? `\n\nSkipped (could not be judged): ${r.skipped.map(short).join(', ')}.` : ''
  return `${head}\n\nGood ${short(r.good)}, bad ${short(r.bad)}: ${r.commits} first-parent commits, ${r.steps.length} steps in ${(r.durationMs / 60_000).toFixed(1)} min.${skipped}\n\n| step | commit | against | outcome | why | pairs | s |\n| --- | --- | --- | --- | --- | --- | --- |\n${rows.join('\n')}\n`
}

export const bisectCommand: CliCommand = {
  summary: 'Find the commit between a good and a bad revision that changed the speed, by paired verdicts',
  operands: '[bench files]',
  flags: {
    good: { type: 'string', description: 'Git ref of a revision without the change (e.g. v1.2.0)' },
    bad: { type: 'string', description: 'Git ref of a revision with it (e.g. HEAD)' },
    name: NAME_FLAG,
    ...pairFlags(' per step'),
    out: {
      type: 'string',
      description: 'Folder for bisect.json, comment.md and the logs',
      default: 'llm-bench-bisect',
    },
  },
  exits: '0 the first bad commit named; 1 the regression not confirmed; 2 not narrowed to one commit, or a usage error',
  run: runBisect,
}
