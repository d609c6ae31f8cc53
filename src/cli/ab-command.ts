import { existsSync } from 'node:fs'
import { appendFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { execa } from 'execa'
import { driftOf } from '../bench/ab-drift.ts'
import { AB_ARMS, abFailed, judgeAb, type AbBenchVerdict } from '../bench/ab-verdict.ts'
import { BASELINE_DIR_ENV } from '../bench/standalone-bench-llm.ts'
import { ARM_DIR_ENV, ARM_ENV } from '../bench/arm-env.ts'
import { readArmFiles, readSkippedInArms, type ArmFile } from '../bench/arm-file.ts'
import { formatCompareTable } from '../bench/compare-bench.ts'
import { formatCompareNotes } from '../bench/compare-table.ts'
import { COMPARE_DEFAULTS } from '../bench/compare-bench-options.ts'
import { DEFAULT_CONFIDENCE } from '../core/baseline/index.ts'
import { formatSloChecks } from '../core/slo/index.ts'
import { pairsProfile, runCampaign } from '../core/campaign/index.ts'
import { lookConfidence, type PairLimits } from '../core/verdict/index.ts'
import { NAME_FLAG, type CliCommand, type CliFlagValues, type CliIo } from './cli-command.ts'
import { AbError } from './ab-error.ts'
import { placeAb, type AbPlacing } from './ab-placement.ts'
import { measureTogether, type TogetherBench } from './ab-together.ts'
import { abEstimateLine } from './ab-estimate.ts'
import { formatAbComment, formatAbErrorComment, notComparedLine, workflowRunUrl } from '../../reporters/ab-comment.ts'
import { abMachineLine, abMachineOf } from '../../reporters/ab-machine.ts'
import { abBenchReports, renderAbHtml, renderAbMarkdown } from '../../reporters/ab-report.ts'

const HELD_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

async function git(cwd: string, args: string[]): Promise<string> {
  const run = await execa('git', args, { cwd, reject: false })
  if (run.exitCode !== 0)
    throw new AbError(`git ${args.join(' ')} failed: ${String(run.stderr).trim() || `exit ${String(run.exitCode)}`}`)
  return String(run.stdout).trim()
}

const readText = async (path: string): Promise<string | undefined> => readFile(path, 'utf8').catch(() => undefined)

/**
 * The base revision's package beside the working tree: a git worktree at the merge base, its
 * dependencies linked to the working tree's when both lock files agree (else installed with
 * `npm ci`). Returns the package folder inside it and how its dependencies were provided.
 */
export async function checkoutBase(
  root: string,
  packageDir: string,
  sha: string,
  work: string,
  say: (line: string) => void,
): Promise<{ tree: string; dir: string; dependencies: string }> {
  const tree = join(work, 'base')
  await git(root, ['worktree', 'add', '--detach', '--quiet', tree, sha])
  const dir = join(tree, relative(root, packageDir))
  const modules = join(packageDir, 'node_modules')
  if (!existsSync(modules))
    throw new AbError(
      `${modules} does not exist: run \`npm install\` first (the base revision's benches run on the same dependencies).`,
    )
  if (!existsSync(join(dir, 'package.json')))
    throw new AbError(
      `the base revision has no package at ${relative(root, packageDir) || '.'}: nothing to measure it with.`,
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
  say("ab: package-lock.json differs from the working tree's: installing the base revision's dependencies (npm ci)")
  const started = performance.now()
  const install = await execa('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, reject: false, all: true })
  const seconds = ((performance.now() - started) / 1000).toFixed(0)
  if (install.exitCode !== 0)
    throw new AbError(
      `npm ci in the base revision failed after ${seconds} s:\n` +
        String(install.all).split('\n').slice(-20).join('\n'),
    )
  return {
    tree,
    dir,
    dependencies: `installed with npm ci in ${seconds} s (package-lock.json differs from the working tree)`,
  }
}

interface ArmLog {
  arm: string
  pair: number
  log: string
  seconds: number
}

/** One `vitest bench` of one arm: every `bench.llm` measures one trial and writes it for the judge. */
async function measureArm(
  dir: string,
  arm: string,
  pair: number,
  armsDir: string,
  logDir: string,
  operands: readonly string[],
  name: string | undefined,
  signal: AbortSignal,
): Promise<ArmLog> {
  const started = performance.now()
  const vitest = join(dir, 'node_modules', 'vitest', 'vitest.mjs')
  // A revision without bench files (a pull request adding the first one) measures nothing rather than failing.
  const args = [vitest, 'bench', '--run', '--passWithNoTests', ...operands, ...(name === undefined ? [] : ['-t', name])]
  const run = await execa(process.execPath, args, {
    cwd: dir,
    env: { [ARM_ENV]: `${arm}:${pair}`, [ARM_DIR_ENV]: armsDir },
    reject: false,
    all: true,
    cancelSignal: signal,
    forceKillAfterDelay: 15_000,
  })
  const log = join(logDir, `${arm}-${pair}.log`)
  await writeFile(log, String(run.all ?? ''))
  if (signal.aborted) throw new AbError(`stopped during the ${arm} arm of pair ${pair}.`)
  if (run.exitCode !== 0) {
    const tail = String(run.all ?? '')
      .split('\n')
      .slice(-25)
      .join('\n')
    throw new AbError(
      `the ${arm} arm of pair ${pair} failed (vitest bench exit ${String(run.exitCode)}); its log is ${log}:\n${tail}`,
    )
  }
  return { arm, pair, log, seconds: (performance.now() - started) / 1000 }
}

/** What the pairs of an `ab` run measured and decided, together or apart. */
interface AbMeasured {
  verdicts: AbBenchVerdict[]
  files: ArmFile[]
  /** The order of each pair (with arms together: of the bench that took the most pairs). */
  order: string[][]
  stopped: string
  durationMs: number
  /** Arms together: each bench's own campaign, by `<file> > <name>`. */
  benches?: Map<string, { order: string[][]; stopped: string; durationMs: number }>
  /** Why the base arm could not be measured (head then measured alone). */
  baseBroken?: string
  /** Arms together: the most CPU an idle arm's server used, share of one core. */
  idleCpu?: number
  /** Apart: each arm process's log and time. */
  logs: ArmLog[]
}

interface AbMeasuring {
  dirs: Record<(typeof AB_ARMS)[number], string>
  logDir: string
  limits: PairLimits
  levelAt: (pairs: number) => number
  signal: AbortSignal
  /** Called after each pair is judged, with everything decided so far. */
  onJudged: (soFar: AbSoFar) => void
}

/** What the pairs measured so far decided: written as the outputs when `ab` is stopped after a finished pair. */
type AbSoFar = Pick<AbMeasured, 'verdicts' | 'files' | 'order'>

/** Apart: pairs of whole `vitest bench` processes, one arm after the other, each starting its own servers. */
async function measureApartAll(
  m: AbMeasuring & { armsDir: string; operands: readonly string[]; name: string | undefined; io: CliIo },
): Promise<AbMeasured> {
  // The base arm failing in the first pair (a syntax error, a bench the pull request fixes): head is measured
  // alone, its benches judged as new (their SLOs only), and every output says why.
  let baseBroken: string | undefined
  let files: ArmFile[] = []
  const campaign = await runCampaign({
    profile: pairsProfile<(typeof AB_ARMS)[number], ArmLog[], AbBenchVerdict[]>(AB_ARMS, m.limits, {
      // A bench that failed or passed is decided: only an undecided one is worth another pair.
      undecided: (verdicts) =>
        verdicts.filter((verdict) => verdict.status === 'inconclusive').flatMap((v) => v.paired?.checks ?? []),
      fault: () => (baseBroken === undefined ? undefined : 'the base arm failed, so head was measured alone'),
    }),
    measure: async (step) => {
      const measured: ArmLog[] = []
      for (const arm of step.order) {
        let log: ArmLog
        try {
          log = await measureArm(m.dirs[arm], arm, step.pair, m.armsDir, m.logDir, m.operands, m.name, m.signal)
        } catch (error) {
          if (!(error instanceof AbError) || arm !== 'base' || step.pair !== 1 || m.signal.aborted) throw error
          baseBroken = error.message
          m.io.out(`ab: ${error.message}\nab: head is measured alone; its benches are judged on their SLOs only.`)
          // Pair 1 is base then head: head runs next, alone.
          await rm(m.armsDir, { recursive: true, force: true })
          continue
        }
        measured.push(log)
        m.io.out(`ab: pair ${step.pair}, ${arm}: ${log.seconds.toFixed(0)} s`)
      }
      return measured
    },
    judge: async (measured) => {
      files = existsSync(m.armsDir) ? await readArmFiles(m.armsDir) : []
      if (files.length === 0)
        throw new AbError(
          `no bench.llm bench ran in either arm${m.operands.length > 0 ? ` (files ${m.operands.join(' ')})` : ''}${m.name ? ` (-t ${m.name})` : ''}; the logs are in ${m.logDir}.`,
        )
      const verdicts = judgeAb(files, m.levelAt)
      m.onJudged({ verdicts, files, order: measured.map((pair) => pair.map((arm) => arm.arm)) })
      return verdicts
    },
  })
  return {
    verdicts: campaign.judgement ?? [],
    files,
    order: campaign.measured.map((pair) => pair.map((arm) => arm.arm)),
    stopped: campaign.stopped,
    durationMs: campaign.durationMs,
    logs: campaign.measured.flat(),
    ...(baseBroken !== undefined ? { baseBroken } : {}),
  }
}

/** Together: each bench in turn, both revisions' servers up at once, loaded in turn in slices. */
async function measureAllTogether(
  benches: readonly TogetherBench[],
  m: AbMeasuring & { work: string; slices: number; log: (line: string) => void },
): Promise<AbMeasured> {
  const started = performance.now()
  const out: AbMeasured = {
    verdicts: [],
    files: [],
    order: [],
    stopped: '',
    durationMs: 0,
    benches: new Map(),
    logs: [],
  }
  for (const [index, bench] of benches.entries()) {
    const outcome = await measureTogether({
      bench,
      dirs: m.dirs,
      armsDir: join(m.work, 'arms', String(index + 1)),
      logDir: m.logDir,
      tag: `bench${index + 1}`,
      limits: m.limits,
      slices: m.slices,
      levelAt: m.levelAt,
      signal: m.signal,
      log: m.log,
      onJudged: (bench) =>
        m.onJudged({
          verdicts: [...out.verdicts, ...bench.verdicts],
          files: [...out.files, ...bench.files],
          order: bench.order.length >= out.order.length ? bench.order : out.order,
        }),
    })
    out.verdicts.push(...outcome.verdicts)
    out.files.push(...outcome.files)
    out.benches?.set(`${bench.file} > ${bench.name}`, outcome)
    if (outcome.order.length >= out.order.length) {
      out.order = outcome.order
      out.stopped = outcome.stopped
    }
    if (outcome.idleCpu !== undefined) out.idleCpu = Math.max(out.idleCpu ?? 0, outcome.idleCpu)
  }
  out.durationMs = performance.now() - started
  return out
}

/** The console lines of one bench's verdict: its table, then what was left out and what would decide each open gate. */
export function verdictLines(
  verdict: AbBenchVerdict,
  order: string[][],
  stopped: string,
  confidence: number,
  durationMs: number,
): string[] {
  const head = `${verdict.file} > ${verdict.name}: ${verdict.status}`
  const lines = [head]
  if (verdict.status === 'new') lines.push('  new in head: no base arm to compare with; its SLOs still apply')
  if (verdict.status === 'gone') lines.push('  in base only: not in the working tree')
  if (verdict.status === 'changed')
    lines.push(
      `  its workload or load differs between the revisions, so no relative verdict: ${(verdict.changes ?? []).join(', ')}`,
    )
  if (verdict.fault !== undefined) lines.push(`  ${verdict.fault}`)
  if (verdict.drift !== undefined) lines.push(`  ${verdict.drift}`)
  if (verdict.paired) {
    lines.push(
      ...formatCompareTable({
        control: 'base',
        order,
        trials: [],
        variants: [verdict.paired],
        stopped,
        confidence: DEFAULT_CONFIDENCE,
        lastLookConfidence: confidence,
        durationMs,
      })
        .split('\n')
        .map((line) => `  ${line}`),
      ...formatCompareNotes({ variants: [verdict.paired] }).map((line) => `  ${line}`),
    )
  }
  if (verdict.sloChecks && verdict.sloChecks.length > 0)
    lines.push(
      ...formatSloChecks(verdict.sloChecks)
        .split('\n')
        .map((line) => `  ${line}`),
    )
  return lines
}

/**
 * `vitest-llm-bench ab --base <ref> [bench files] [-t <name>]`: the bench files of the base revision
 * (a worktree at the merge base of `<ref>` and HEAD) and of the working tree, measured in
 * counterbalanced pairs (base head, head base, …), each arm one `vitest bench` process (so each
 * trial starts its own server), and every bench of head judged against base on the pairs. Exit 1
 * on a failed gate, a failing server or a failed SLO.
 */
async function runAb(flags: CliFlagValues, io: CliIo, operands: readonly string[]): Promise<number> {
  const baseRef = flags.base
  if (typeof baseRef !== 'string' || baseRef === '') {
    io.err(
      'vitest-llm-bench ab: --base <git ref> is required, e.g. `--base origin/main` (in GitHub Actions check out with `fetch-depth: 0`).',
    )
    return 2
  }
  const limits: PairLimits = {
    min: Number(flags['min-pairs']),
    max: Number(flags['max-pairs'] ?? COMPARE_DEFAULTS.maxPairs),
    budgetMs: Number(flags['budget-min']) * 60_000,
  }
  if (flags['max-pairs'] !== undefined && limits.max < limits.min) {
    io.err(`vitest-llm-bench ab: --max-pairs (${limits.max}) is below --min-pairs (${limits.min}).`)
    return 2
  }
  const packageDir = process.cwd()
  const out = resolve(String(flags.out))
  const controller = new AbortController()
  void io.stopRequested().then((signal) => controller.abort(new Error(signal)))
  // Held until the worktree is removed: `vitest bench` signals its whole process group when it is
  // stopped, and a second SIGTERM with no listener would end this process before it cleans up.
  const held = (signal: NodeJS.Signals) => controller.abort(new Error(signal))
  for (const signal of HELD_SIGNALS) process.on(signal, held)
  let work: string | undefined
  /** The signal that stopped the pairs after at least one was judged; undefined when they ran to their end. */
  let interrupted: string | undefined
  let root = packageDir
  let tree: string | undefined
  try {
    root = await git(packageDir, ['rev-parse', '--show-toplevel'])
    const sha = await git(root, ['merge-base', baseRef, 'HEAD']).catch((error: unknown) => {
      throw new AbError(
        `${(error as Error).message}\nIs \`${baseRef}\` fetched? With a shallow clone fetch the base first (GitHub Actions: \`fetch-depth: 0\`).`,
      )
    })
    const headSha = await git(root, ['rev-parse', 'HEAD'])
    // ab's own output folder is not a change of the working tree.
    const outInTree = relative(root, out)
    const exclude = outInTree !== '' && !outInTree.startsWith('..') ? [`:(exclude)${outInTree}`] : []
    const dirty = (await git(root, ['status', '--porcelain', '--', '.', ...exclude])) !== ''
    const missing = operands.filter((operand) => /[/\\]|\.[cm]?[jt]sx?$/.test(operand) && !existsSync(resolve(operand)))
    if (missing.length > 0)
      throw new AbError(
        `${missing.join(', ')}: no such bench file in the working tree (${packageDir}). Give bench files as \`vitest bench\` takes them, relative to this folder.`,
      )
    work = await mkdtemp(join(tmpdir(), 'llm-bench-ab-'))
    const base = await checkoutBase(root, packageDir, sha, work, (line) => io.out(line))
    tree = base.tree
    const armsDir = join(work, 'arms')
    const logDir = join(out, 'logs')
    await mkdir(logDir, { recursive: true })
    io.out(
      `ab: base ${baseRef} at the merge base ${sha.slice(0, 12)}, head ${headSha.slice(0, 12)}${dirty ? ' with uncommitted changes' : ''}`,
    )
    io.out(`ab: base dependencies ${base.dependencies}`)
    const name = typeof flags.name === 'string' ? flags.name : undefined
    const dirs = { base: base.dir, head: packageDir }
    const listDir = join(work, 'listed')
    const placement = await placeAb({
      asked: flags.arms as AbPlacing['asked'],
      dirs,
      listDir,
      logDir,
      operands,
      name,
      slices: Number(flags.slices),
      signal: controller.signal,
    })
    const together = placement.mode === 'together'
    const slices = Number(flags.slices)
    io.out(`ab: arms ${placement.mode}${together ? ` (${slices} slices per arm and pair)` : ''}: ${placement.why}`)
    limits.max =
      flags['max-pairs'] !== undefined
        ? Number(flags['max-pairs'])
        : Math.max(limits.min, together ? COMPARE_DEFAULTS.maxPairsTogether : COMPARE_DEFAULTS.maxPairs)
    const levelAt = (pairs: number): number => lookConfidence(DEFAULT_CONFIDENCE, limits, pairs)
    const measuringStarted = performance.now()
    const benchCount = together ? placement.benches.length : 1
    let soFar: AbSoFar | undefined
    const onJudged = (now: AbSoFar) => {
      if (soFar === undefined && now.order.length > 0)
        io.out(`ab: ${abEstimateLine(performance.now() - measuringStarted, limits, benchCount)}`)
      soFar = now
    }
    let measured: AbMeasured
    try {
      measured = together
        ? await measureAllTogether(placement.benches, {
            dirs,
            work,
            logDir,
            limits,
            slices,
            levelAt,
            signal: controller.signal,
            log: (line) => io.out(line),
            onJudged,
          })
        : await measureApartAll({
            dirs,
            armsDir,
            logDir,
            operands,
            name,
            limits,
            levelAt,
            signal: controller.signal,
            io,
            onJudged,
          })
    } catch (error) {
      // Stopped after a finished pair: what was measured is judged and written, marked as stopped.
      const pairs = soFar?.order.length ?? 0
      if (!controller.signal.aborted || soFar === undefined || pairs === 0) throw error
      interrupted = (controller.signal.reason as Error | undefined)?.message ?? 'a stop'
      io.err(`vitest-llm-bench ab: ${(error as Error).message}`)
      io.out(`ab: stopped (${interrupted}) after ${pairs} pair${pairs === 1 ? '' : 's'}: what it measured is written`)
      const stopped = `stopped by ${interrupted} after ${pairs} pair${pairs === 1 ? '' : 's'}`
      measured = { ...soFar, stopped, durationMs: performance.now() - measuringStarted, logs: [] }
    }
    const { verdicts, files, order, stopped, durationMs, baseBroken } = measured
    for (const verdict of verdicts) {
      const baseFiles = files.filter(
        (file) => file.arm === 'base' && file.file === verdict.file && file.name === verdict.name,
      )
      const drift = await driftOf(base.dir, baseFiles, process.env[BASELINE_DIR_ENV])
      if (drift !== undefined) verdict.drift = drift
    }
    // The arms listed their benches (and what they skip) first, unless asked to run apart.
    const skippedIn = together ? listDir : armsDir
    const notCompared = existsSync(skippedIn) ? await readSkippedInArms(skippedIn) : []
    io.out('')
    const lastLookConfidence = levelAt(order.length)
    for (const verdict of verdicts) {
      const own = measured.benches?.get(`${verdict.file} > ${verdict.name}`)
      const level = own ? levelAt(own.order.length) : lastLookConfidence
      io.out(
        verdictLines(verdict, own?.order ?? order, own?.stopped ?? stopped, level, own?.durationMs ?? durationMs).join(
          '\n',
        ),
      )
    }
    if (notCompared.length > 0) io.out(`ab: ${notComparedLine(notCompared)}`)
    const failed = abFailed(verdicts)
    const summary = {
      base: { ref: baseRef, sha },
      head: { sha: headSha, dirty },
      dependencies: base.dependencies,
      order,
      stopped,
      placement: together
        ? `arms together, ${slices} slices per arm and pair: ${placement.why}`
        : `arms apart: ${placement.why}`,
      ...(measured.idleCpu !== undefined ? { idleArmCpu: measured.idleCpu } : {}),
      ...(baseBroken !== undefined ? { baseFailed: baseBroken } : {}),
      ...(interrupted !== undefined ? { interrupted } : {}),
      confidence: DEFAULT_CONFIDENCE,
      lastLookConfidence,
      durationMs,
      machine: abMachineOf(files),
      ...(workflowRunUrl(process.env) !== undefined ? { reportUrl: workflowRunUrl(process.env) } : {}),
    }
    const trials = files.map((file) => ({ ...file, result: { ...file.result, requests: undefined } }))
    await writeFile(
      join(out, 'ab.json'),
      `${JSON.stringify({ tool: 'vitest-llm-bench', kind: 'ab', ...summary, verdicts, notCompared, arms: measured.logs, trials }, null, 2)}\n`,
    )
    await writeFile(join(out, 'comment.md'), formatAbComment(verdicts, summary, notCompared))
    const reports = abBenchReports(verdicts, files)
    const markdown = renderAbMarkdown(reports, summary, notCompared)
    await writeFile(join(out, 'summary.md'), markdown)
    await writeFile(join(out, 'report.html'), renderAbHtml(reports, summary, notCompared))
    // GitHub collects the step summary after the step; other steps may have written to it, so append.
    const stepSummary = process.env.GITHUB_STEP_SUMMARY
    if (stepSummary) await appendFile(stepSummary, `${markdown}\n`)
    io.out(`\nab: ${abMachineLine(summary.machine)}`)
    const outcome = failed ? 'FAILED' : interrupted !== undefined ? 'stopped' : 'ok'
    io.out(
      `ab: ${verdicts.length} bench${verdicts.length === 1 ? '' : 'es'}, ${order.length} pairs ` +
        `in ${(durationMs / 1000).toFixed(0)} s (${stopped}): ${outcome}`,
    )
    io.out(`ab: ${relative(packageDir, out) || '.'}/: ab.json, comment.md, summary.md and report.html written`)
    return failed || interrupted !== undefined ? 1 : 0
  } catch (error) {
    if (!(error instanceof AbError) && !(error instanceof Error && error.name === 'WorkloadError')) throw error
    io.err(`vitest-llm-bench ab: ${error.message}`)
    // A sticky-comment step after `ab` posts comment.md whatever the exit: it says why there is no verdict.
    await mkdir(out, { recursive: true })
      .then(async () => {
        await writeFile(join(out, 'comment.md'), formatAbErrorComment(error.message))
        await writeFile(
          join(out, 'ab.json'),
          `${JSON.stringify({ tool: 'vitest-llm-bench', kind: 'ab', error: error.message }, null, 2)}\n`,
        )
      })
      .catch(() => undefined)
    return 1
  } finally {
    if (tree !== undefined) await git(root, ['worktree', 'remove', '--force', tree]).catch(() => undefined)
    if (work !== undefined) await rm(work, { recursive: true, force: true })
    for (const signal of HELD_SIGNALS) process.off(signal, held)
  }
}

export const abCommand: CliCommand = {
  summary: 'Measure the base revision and the working tree side by side, in pairs, and judge head against base',
  operands: '[bench files]',
  exits: '0 no gate failed; 1 a gate, a server or an SLO failed, or no verdict (comment.md says why); 2 a usage error',
  flags: {
    base: {
      type: 'string',
      description: 'Git ref of the base; its merge base with HEAD is measured (e.g. origin/main)',
    },
    name: NAME_FLAG,
    'min-pairs': {
      type: 'integer',
      description: 'Pairs measured before any verdict',
      default: COMPARE_DEFAULTS.minPairs,
      min: 2,
    },
    'max-pairs': {
      type: 'integer',
      description: `Pairs at most, while a gate is undecided (default ${COMPARE_DEFAULTS.maxPairsTogether} with arms together, ${COMPARE_DEFAULTS.maxPairs} apart)`,
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
      description: 'Minutes the pairs may take; another pair starts only if one more fits',
      default: COMPARE_DEFAULTS.budgetMs / 60_000,
      min: 0,
    },
    out: { type: 'string', description: 'Folder for ab.json, comment.md and the arm logs', default: 'llm-bench-ab' },
  },
  run: runAb,
}
