/**
 * `ab` with arms together, one bench at a time: both revisions' `vitest bench` processes are started
 * with that bench alone and kept up for its whole campaign; each pair is a profile step of the one
 * campaign driver (counterbalanced order, sequential stop), and inside it the arms' servers are
 * started one after the other in the pair's order, then loaded in turn in the duet order
 * (A B B A …), as `bench.llm.compare` does within one process (docs/verdicts.md, "Arms together").
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa, type ResultPromise } from 'execa'
import { AB_ARMS, judgeAb, type AbBenchVerdict } from '../bench/ab-verdict.ts'
import { ARM_DIR_ENV, ARM_ENV, ARM_MODE_ENV, type ArmMode } from '../bench/arm-env.ts'
import { readArmFiles, type ArmFile } from '../bench/arm-file.ts'
import type { TurnAsk } from '../bench/arm-turns.ts'
import type { GateConfidence } from '../bench/compare-bench.ts'
import { duetOrder, pairsProfile, runCampaign, type PairStep } from '../core/campaign/index.ts'
import { cpuTicksOf, PROC_TICKS_PER_SECOND, procStatFields } from '../core/platform/proc-stat.ts'
import type { PairLimits } from '../core/verdict/index.ts'
import { outOfMemoryBeside } from '../core/server/index.ts'
import { AbError } from './ab-error.ts'
import { TurnServer } from './ab-turn-server.ts'

type Arm = (typeof AB_ARMS)[number]

/** One bench measured with arms together. */
export interface TogetherBench {
  /** Bench file relative to the package root, `/` separators. */
  file: string
  /** Full name (`describe > … > name`). */
  name: string
}

/** What a bench's campaign with arms together measured and decided. */
export interface TogetherOutcome {
  verdicts: AbBenchVerdict[]
  files: ArmFile[]
  /** The order of each pair. */
  order: string[][]
  stopped: string
  durationMs: number
  /** The most CPU an idle arm's server used while the other was loaded, share of one core; absent where unread. */
  idleCpu?: number
}

/** What measuring a bench with arms together needs. */
export interface TogetherRun {
  bench: TogetherBench
  /** Each arm's package folder. */
  dirs: Record<Arm, string>
  /** Where the arms write their files for this bench (a folder of its own). */
  armsDir: string
  /** Where each arm's log is written (`<arm>-<tag>.log`). */
  logDir: string
  tag: string
  limits: PairLimits
  slices: number
  levelAt: GateConfidence
  signal: AbortSignal
  log: (line: string) => void
  /** Called after each pair is judged, with what the pairs so far decided (the outputs of a stopped `ab`). */
  onJudged?: (soFar: Pick<TogetherOutcome, 'verdicts' | 'files' | 'order'>) => void
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The `-t` pattern of one bench alone: its full name at the end of Vitest's full test name (` > ` between the
 * describe names in Vitest 5, a space in older lines).
 */
export function benchNamePattern(name: string): string {
  return `(^|[ >])${name.split(' > ').map(escape).join('(?: > | )')}$`
}

/**
 * How long the arms get to stop their servers and end by themselves once `ab` stops them, ms (a slice in flight
 * finishes first); after it they are stopped with SIGTERM, then SIGKILL 15 s later.
 */
const ARM_STOP_GRACE_MS = 30_000

/** CPU seconds a process group leader has used so far, undefined where it cannot be read. */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  const fields = pid === undefined ? undefined : procStatFields(pid)
  return fields === undefined ? undefined : cpuTicksOf(fields) / PROC_TICKS_PER_SECOND
}

/** Measures one bench with both arms up, pair after pair, until its gates are decided or the limits say stop. */
export async function measureTogether(t: TogetherRun): Promise<TogetherOutcome> {
  const turns = await TurnServer.start()
  // Stopping: the turn server closes first, so that each arm stops its own server and ends; a hard stop only after.
  const stop = new AbortController()
  const onAbort = () => void turns.close()
  t.signal.addEventListener('abort', onAbort, { once: true })
  const procs = new Map<Arm, ResultPromise>()
  let stopping = false
  const logs = new Map<Arm, string>()
  for (const arm of AB_ARMS) {
    const mode: ArmMode = {
      kind: 'turns',
      url: turns.url,
      pairs: t.limits.max,
      file: t.bench.file,
      name: t.bench.name,
    }
    const vitest = join(t.dirs[arm], 'node_modules', 'vitest', 'vitest.mjs')
    const proc = execa(
      process.execPath,
      [vitest, 'bench', '--run', t.bench.file, '-t', benchNamePattern(t.bench.name)],
      {
        cwd: t.dirs[arm],
        env: { [ARM_ENV]: `${arm}:0`, [ARM_DIR_ENV]: t.armsDir, [ARM_MODE_ENV]: JSON.stringify(mode) },
        reject: false,
        all: true,
        cancelSignal: stop.signal,
        forceKillAfterDelay: 15_000,
      },
    )
    procs.set(arm, proc)
    const log = join(t.logDir, `${arm}-${t.tag}.log`)
    logs.set(arm, log)
    void proc.then(async (run) => {
      await writeFile(log, String(run.all ?? '')).catch(() => undefined)
      if (stopping) return
      const tail =
        turns.reasonOf(arm) ??
        String(run.all ?? '')
          .split('\n')
          .slice(-25)
          .join('\n')
      const other = arm === 'head' ? 'base' : 'head'
      const memory = outOfMemoryBeside(String(run.all ?? ''), `the ${other} arm`)
      turns.fail(
        arm,
        new AbError(
          t.signal.aborted
            ? `stopped during ${t.bench.file} > ${t.bench.name}.`
            : `the ${arm} arm of ${t.bench.file} > ${t.bench.name} ended (vitest bench exit ${String(run.exitCode)}) ` +
                `while both arms were up; its log is ${log}:\n${tail}${memory ? `\n${memory}` : ''}`,
        ),
      )
    })
  }
  // Each arm's open `next` ask, read and not answered yet: the arm is ready for a pair (or the stop).
  const ready = new Set<Arm>()
  const expect = async (arm: Arm, kind: TurnAsk['kind']): Promise<TurnAsk> => {
    const ask = await turns.arrive(arm)
    if (ask.kind !== kind) throw new AbError(`the ${arm} arm asked for '${ask.kind}' where '${kind}' was due.`)
    return ask
  }
  const toNext = async (arm: Arm) => {
    if (!ready.has(arm)) await expect(arm, 'next')
    ready.add(arm)
  }
  let idleCpu: number | undefined
  const measure = async (step: PairStep<Arm>): Promise<string[]> => {
    const pgid = new Map<Arm, number | undefined>()
    for (const arm of step.order) {
      await toNext(arm)
      ready.delete(arm)
      t.log(`ab: ${t.bench.name}: pair ${step.pair}, starting ${arm}`)
      turns.answer(arm, { pair: step.pair, slices: t.slices })
      const up = await expect(arm, 'slice')
      pgid.set(arm, up.kind === 'slice' ? up.pgid : undefined)
    }
    for (const loaded of duetOrder(step.order, t.slices)) {
      const idle = step.order.filter((arm) => arm !== loaded).map((arm) => pgid.get(arm))
      const before = idle.map(cpuSecondsOf)
      const started = performance.now()
      turns.answer(loaded, { go: true })
      const done = await turns.arrive(loaded)
      if (done.kind !== 'slice' && done.kind !== 'release')
        throw new AbError(`the ${loaded} arm asked for '${done.kind}' in the middle of pair ${step.pair}.`)
      const seconds = (performance.now() - started) / 1000
      idle.forEach((pid, i) => {
        const [was, now] = [before[i], cpuSecondsOf(pid)]
        if (was !== undefined && now !== undefined && seconds > 0)
          idleCpu = Math.max(idleCpu ?? 0, (now - was) / seconds)
      })
    }
    // Every slice done: the servers are stopped, and each arm writes its pair's file before asking for the next.
    for (const arm of step.order) turns.answer(arm, { go: true })
    for (const arm of step.order) await toNext(arm)
    return [...step.order]
  }
  let files: ArmFile[] = []
  try {
    const campaign = await runCampaign({
      profile: pairsProfile<Arm, string[], AbBenchVerdict[]>(AB_ARMS, t.limits, {
        undecided: (verdicts) =>
          verdicts.filter((verdict) => verdict.status === 'inconclusive').flatMap((v) => v.paired?.checks ?? []),
        fault: () => undefined,
      }),
      measure,
      judge: async (measured) => {
        files = await readArmFiles(t.armsDir)
        const verdicts = judgeAb(files, t.levelAt)
        t.onJudged?.({ verdicts, files, order: [...measured] })
        return verdicts
      },
      signal: t.signal,
    })
    stopping = true
    for (const arm of AB_ARMS) {
      await toNext(arm)
      turns.answer(arm, { stop: true })
    }
    for (const arm of AB_ARMS) await procs.get(arm)
    return {
      verdicts: campaign.judgement ?? [],
      files,
      order: campaign.measured,
      stopped: campaign.stopped,
      durationMs: campaign.durationMs,
      ...(idleCpu !== undefined ? { idleCpu } : {}),
    }
  } catch (error) {
    if (t.signal.aborted && !(error instanceof AbError))
      throw new AbError(`stopped during ${t.bench.file} > ${t.bench.name}.`)
    throw error
  } finally {
    stopping = true
    await turns.close()
    const ended = Promise.all([...procs.values()].map((proc) => proc.catch(() => undefined)))
    let timer: NodeJS.Timeout | undefined
    const grace = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ARM_STOP_GRACE_MS)))
    if ((await Promise.race([ended, grace])) === 'late') stop.abort(new Error('ab stopped'))
    clearTimeout(timer)
    await ended
    t.signal.removeEventListener('abort', onAbort)
  }
}
