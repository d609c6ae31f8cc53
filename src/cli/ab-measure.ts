/** The pairs of `ab` (and `bisect`): both revisions measured apart or together, and judged per bench. */
import { existsSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import { AB_ARMS, judgeAb, type AbBenchVerdict } from '../bench/ab-verdict.ts'
import { ARM_DIR_ENV, ARM_ENV } from '../bench/arm-env.ts'
import { readArmFiles, type ArmFile } from '../bench/arm-file.ts'
import { pairsProfile, runCampaign } from '../core/campaign/index.ts'
import type { PairLimits } from '../core/verdict/index.ts'
import type { CliIo } from './cli-command.ts'
import { AbError } from './ab-error.ts'
import { measureTogether, type TogetherBench } from './ab-together.ts'
import { placeAb, type AbPlacement } from './ab-placement.ts'
import type { ArmsMode } from '../bench/arms-placement.ts'
import { COMPARE_DEFAULTS } from '../bench/compare-bench-options.ts'
import { DEFAULT_CONFIDENCE } from '../core/verdict/index.ts'
import { lookConfidence } from '../core/verdict/index.ts'

export interface ArmLog {
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
export interface AbMeasured {
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

export interface AbMeasuring {
  dirs: Record<(typeof AB_ARMS)[number], string>
  logDir: string
  limits: PairLimits
  levelAt: (pairs: number) => number
  signal: AbortSignal
  /** Called after each pair is judged, with everything decided so far. */
  onJudged: (soFar: AbSoFar) => void
}

/** What the pairs measured so far decided: written as the outputs when `ab` is stopped after a finished pair. */
export type AbSoFar = Pick<AbMeasured, 'verdicts' | 'files' | 'order'>

/** Apart: pairs of whole `vitest bench` processes, one arm after the other, each starting its own servers. */
export async function measureApartAll(
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
export async function measureAllTogether(
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

/** Two revisions' packages measured side by side: what `ab` and each step of `bisect` run. */
export interface RevisionsRun {
  /** Each arm's package folder. */
  dirs: Record<(typeof AB_ARMS)[number], string>
  /** A scratch folder of this comparison's own (listings, arm files). */
  work: string
  logDir: string
  operands: readonly string[]
  name: string | undefined
  asked: ArmsMode | 'auto'
  slices: number
  minPairs: number
  /** Undefined: the default of the placement (10 together, 6 apart). */
  maxPairs: number | undefined
  /** Minutes' worth of milliseconds the pairs may take. */
  budgetMs: number
  signal: AbortSignal
  io: CliIo
  /** Called once the arms are placed and the limits known. */
  onPlaced?: (placed: Pick<RevisionsMeasured, 'placement' | 'limits' | 'levelAt'>) => void
  /** Called after each pair is judged, with everything decided so far, the limits and how many benches take turns. */
  onJudged?: (soFar: AbSoFar, limits: PairLimits, benches: number) => void
}

/** What two revisions measured side by side gave, and how they were placed. */
export interface RevisionsMeasured extends AbMeasured {
  placement: AbPlacement
  limits: PairLimits
  /** The confidence of a look after that many pairs. */
  levelAt: (pairs: number) => number
}

/** Places the arms (together where both fit), measures the pairs and judges every bench of head against base. */
export async function measureRevisions(r: RevisionsRun): Promise<RevisionsMeasured> {
  const listDir = join(r.work, 'listed')
  const placement = await placeAb({
    asked: r.asked,
    dirs: r.dirs,
    listDir,
    logDir: r.logDir,
    operands: r.operands,
    name: r.name,
    slices: r.slices,
    signal: r.signal,
  })
  const together = placement.mode === 'together'
  r.io.out(`ab: arms ${placement.mode}${together ? ` (${r.slices} slices per arm and pair)` : ''}: ${placement.why}`)
  const defaultMax = together ? COMPARE_DEFAULTS.maxPairsTogether : COMPARE_DEFAULTS.maxPairs
  const limits: PairLimits = {
    min: r.minPairs,
    max: r.maxPairs ?? Math.max(r.minPairs, defaultMax),
    budgetMs: r.budgetMs,
  }
  const levelAt = (pairs: number): number => lookConfidence(DEFAULT_CONFIDENCE, limits, pairs)
  r.onPlaced?.({ placement, limits, levelAt })
  const benches = together ? placement.benches.length : 1
  const onJudged = (soFar: AbSoFar) => r.onJudged?.(soFar, limits, benches)
  const common = { dirs: r.dirs, logDir: r.logDir, limits, levelAt, signal: r.signal, onJudged }
  const measured = together
    ? await measureAllTogether(placement.benches, {
        ...common,
        work: r.work,
        slices: r.slices,
        log: (line) => r.io.out(line),
      })
    : await measureApartAll({ ...common, armsDir: join(r.work, 'arms'), operands: r.operands, name: r.name, io: r.io })
  return { ...measured, placement, limits, levelAt }
}
