/**
 * `bench.llm` in an arm of `ab` with arms together: the bench `ab` named takes turns with the other
 * revision's ({@link takeTurns}); what it measured is written per pair for `ab` to judge.
 */
import { relative, sep } from 'node:path'
import type { RunPlan } from '../core/plan/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { writeArmFile, type ArmFile } from './arm-file.ts'
import { takeTurns } from './arm-turns.ts'
import type { ArmRun } from './arm-env.ts'
import { acquireTarget, type AcquiredTarget } from './bench-target.ts'
import { DEFERRED } from './baseline-state.ts'
import type { BenchJudgement } from './bench-judgement.ts'
import type { BenchPlan } from './plan-bench.ts'
import type { BenchLlmOptions } from './bench-options.ts'
import type { RunContext } from '../core/run.ts'
import { mergeSlices } from './slice-options.ts'
import { failIfEnded, runLoadOn } from './load-on.ts'

type TurnsArm = ArmRun & { mode: Extract<ArmRun['mode'], { kind: 'turns' }> }

/** The bench as the harness runs it (a `BenchRun`'s parts that taking turns reads). */
interface BenchRun {
  /** Full name. */
  name: string
  /** Absolute path of the bench file. */
  file: string
  options: BenchLlmOptions
  shared?: { url?: string; server?: RunContext['server'] }
  signal?: AbortSignal
}

/** One slice of the bench's load on the pair's server; a server that ended meanwhile fails the arm, named. */
async function measureSlice(run: BenchRun, acquired: AcquiredTarget, plan: RunPlan): Promise<BenchmarkResult> {
  const result = await runLoadOn(run, acquired, plan, { asPlanned: true })
  failIfEnded(acquired, (ended) => `${ended} during a slice; nothing is judged.`)
  return result
}

/** Runs the bench's pairs as `ab`'s turn server says; the outcome is the last pair's, judged by `ab`. */
export async function runArmTurns(
  run: BenchRun,
  bench: BenchPlan,
  arm: TurnsArm,
  policy: ArmFile['policy'],
): Promise<{ result: BenchmarkResult; judgement: BenchJudgement }> {
  const where = relative(process.cwd(), run.file).split(sep).join('/')
  if (where !== arm.mode.file || run.name !== arm.mode.name)
    throw new Error(
      `ab asked for '${arm.mode.name}' in ${arm.mode.file}, and '${run.name}' in ${where} matched its name pattern too; ` +
        'give the benches names that do not end in one another.',
    )
  const { last, files } = await takeTurns({
    arm,
    file: where,
    name: run.name,
    run: bench.run,
    acquire: (pool) =>
      acquireTarget(run.options.server, run.options.target, run.shared, { pool, simulator: bench.simulator }),
    measure: (acquired, plan) => measureSlice(run, acquired, plan),
    write: async (pair, slices) => {
      const result = mergeSlices(slices, run.options)
      return {
        path: await writeArmFile({ ...arm, pair }, run.file, run.name, policy, bench.slo, result, slices),
        result,
      }
    },
    ...(run.signal ? { signal: run.signal } : {}),
  })
  if (last === undefined) throw new Error(`${arm.label} arm: ab stopped before a pair was measured.`)
  return {
    result: last,
    judgement: {
      failure: undefined,
      sloChecks: [],
      notes: [`${arm.label} arm, arms together: ${files.length} pairs, judged by \`vitest-llm-bench ab\``],
      baselineState: DEFERRED,
    },
  }
}
