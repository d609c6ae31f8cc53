import { existsSync } from 'node:fs'
import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { driftOf } from '../bench/ab-drift.ts'
import { abFailed, type AbBenchVerdict } from '../bench/ab-verdict.ts'
import { BASELINE_DIR_ENV } from '../bench/standalone-bench-llm.ts'
import { readSkippedInArms } from '../bench/arm-file.ts'
import { formatCompareTable } from '../bench/compare-bench.ts'
import { formatCompareNotes } from '../bench/compare-table.ts'
import { DEFAULT_CONFIDENCE } from '../core/verdict/index.ts'
import { formatSloChecks } from '../core/slo/index.ts'
import { NAME_FLAG, type CliCommand, type CliFlagValues, type CliIo } from './cli-command.ts'
import { AbError } from './ab-error.ts'
import { git } from './ab-checkout.ts'
import { pairFlags, pairsAsked, runRevisionJob } from './revision-job.ts'
import { measureRevisions, type AbSoFar, type RevisionsMeasured, type RevisionsRun } from './ab-measure.ts'
import { abEstimateLine } from './ab-estimate.ts'
import {
  formatAbComment,
  formatAbErrorComment,
  notComparedLine,
  workflowRunUrl,
  type AbSummary,
} from '../../reporters/ab-comment.ts'
import { abMachineLine, abMachineOf } from '../../reporters/ab-machine.ts'
import { abBenchReports, renderAbHtml, renderAbMarkdown } from '../../reporters/ab-report.ts'

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
  const pairs = pairsAsked(flags)
  if ('usage' in pairs) {
    io.err(`vitest-llm-bench ab: ${pairs.usage}`)
    return 2
  }
  const packageDir = process.cwd()
  const out = resolve(String(flags.out))
  const unfinished = async (message: string) => {
    // A sticky-comment step after `ab` posts comment.md whatever the exit: it says why there is no verdict.
    await mkdir(out, { recursive: true })
    await writeFile(join(out, 'comment.md'), formatAbErrorComment(message))
    await writeFile(
      join(out, 'ab.json'),
      `${JSON.stringify({ tool: 'vitest-llm-bench', kind: 'ab', error: message }, null, 2)}\n`,
    )
  }
  return runRevisionJob({ command: 'ab', io, packageDir, unfinished, errorExit: 1 }, async (job) => {
    const { sha, headSha, dirty } = await revisionsOf(job.root, baseRef, out, operands, packageDir)
    const base = await job.checkout(sha, 'base')
    const logDir = join(out, 'logs')
    await mkdir(logDir, { recursive: true })
    io.out(
      `ab: base ${baseRef} at the merge base ${sha.slice(0, 12)}, head ${headSha.slice(0, 12)}${dirty ? ' with uncommitted changes' : ''}`,
    )
    io.out(`ab: base dependencies ${base.dependencies}`)
    const run = { dirs: { base: base.dir, head: packageDir }, work: job.work, logDir, operands, ...pairs }
    const { measured, interrupted } = await measureUntilStopped({ ...run, signal: job.signal, io })
    const { placement, levelAt, verdicts, files, order, stopped, durationMs, baseBroken } = measured
    for (const verdict of verdicts) {
      const baseFiles = files.filter(
        (file) => file.arm === 'base' && file.file === verdict.file && file.name === verdict.name,
      )
      const drift = await driftOf(base.dir, baseFiles, process.env[BASELINE_DIR_ENV])
      if (drift !== undefined) verdict.drift = drift
    }
    const together = placement.mode === 'together'
    // The arms listed their benches (and what they skip) first, unless asked to run apart.
    const skippedIn = join(job.work, together ? 'listed' : 'arms')
    const notCompared = existsSync(skippedIn) ? await readSkippedInArms(skippedIn) : []
    io.out('')
    const lastLookConfidence = levelAt(order.length)
    for (const verdict of verdicts) {
      const own = measured.benches?.get(`${verdict.file} > ${verdict.name}`)
      const level = own ? levelAt(own.order.length) : lastLookConfidence
      const lines = verdictLines(
        verdict,
        own?.order ?? order,
        own?.stopped ?? stopped,
        level,
        own?.durationMs ?? durationMs,
      )
      io.out(lines.join('\n'))
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
        ? `arms together, ${pairs.slices} slices per arm and pair: ${placement.why}`
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
    await writeAbFiles(out, summary, measured, notCompared)
    io.out(`\nab: ${abMachineLine(summary.machine)}`)
    const outcome = failed ? 'FAILED' : interrupted !== undefined ? 'stopped' : 'ok'
    io.out(
      `ab: ${verdicts.length} bench${verdicts.length === 1 ? '' : 'es'}, ${order.length} pairs ` +
        `in ${(durationMs / 1000).toFixed(0)} s (${stopped}): ${outcome}`,
    )
    io.out(`ab: ${relative(packageDir, out) || '.'}/: ab.json, comment.md, summary.md and report.html written`)
    return failed || interrupted !== undefined ? 1 : 0
  })
}

/** The base (the merge base of `baseRef` and HEAD), head, and whether the working tree has changes beside ab's own. */
async function revisionsOf(
  root: string,
  baseRef: string,
  out: string,
  operands: readonly string[],
  packageDir: string,
): Promise<{ sha: string; headSha: string; dirty: boolean }> {
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
  return { sha, headSha, dirty }
}

/**
 * The pairs measured and judged, the run's length estimated once the first pair is judged. Stopped (a signal) after
 * a finished pair: what was measured is judged and given back, marked as stopped; `interrupted` names the signal.
 */
async function measureUntilStopped(
  run: RevisionsRun,
): Promise<{ measured: RevisionsMeasured; interrupted: string | undefined }> {
  const { io, signal } = run
  const started = performance.now()
  let soFar: AbSoFar | undefined
  let placed: Pick<RevisionsMeasured, 'placement' | 'limits' | 'levelAt'> | undefined
  try {
    const measured = await measureRevisions({
      ...run,
      onPlaced: (placing) => (placed = placing),
      onJudged: (now, limits, benches) => {
        if (soFar === undefined && now.order.length > 0)
          io.out(`ab: ${abEstimateLine(performance.now() - started, limits, benches)}`)
        soFar = now
      },
    })
    return { measured, interrupted: undefined }
  } catch (error) {
    const pairs = soFar?.order.length ?? 0
    if (!signal.aborted || soFar === undefined || pairs === 0 || placed === undefined) throw error
    const interrupted = (signal.reason as Error | undefined)?.message ?? 'a stop'
    io.err(`vitest-llm-bench ab: ${(error as Error).message}`)
    io.out(`ab: stopped (${interrupted}) after ${pairs} pair${pairs === 1 ? '' : 's'}: what it measured is written`)
    const stopped = `stopped by ${interrupted} after ${pairs} pair${pairs === 1 ? '' : 's'}`
    return {
      measured: { ...placed, ...soFar, stopped, durationMs: performance.now() - started, logs: [] },
      interrupted,
    }
  }
}

/** ab.json, comment.md, summary.md and report.html in `out`; the summary appended to GitHub's step summary. */
async function writeAbFiles(
  out: string,
  summary: AbSummary,
  measured: RevisionsMeasured,
  notCompared: Parameters<typeof formatAbComment>[2],
): Promise<void> {
  const { verdicts, files } = measured
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
    ...pairFlags(''),
    out: { type: 'string', description: 'Folder for ab.json, comment.md and the arm logs', default: 'llm-bench-ab' },
  },
  run: runAb,
}
