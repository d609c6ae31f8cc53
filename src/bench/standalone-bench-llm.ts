/**
 * `bench.llm` for test runners other than Vitest (`bun:test`, `Deno.test`): the same options,
 * baseline files and verdicts, through the same {@link runBench}. No Vitest import here or below
 * (the adapters load it in runtimes whose runner is not Vitest); a runner adapter only says how to
 * register a test.
 */
import { fileURLToPath } from 'node:url'
import { OptionsError } from '../core/contract/errors.ts'
import { resolveUpdateMode } from '../core/baseline/index.ts'
import { benchTimedOut, runnerTimeoutMs } from './bench-timeout.ts'
import type { BenchLlmOptions } from './bench-options.ts'
import { isCI } from './ci.ts'
import type { LlmBenchProvided, UpdateMode } from './provided.ts'
import { withUpdateCommand } from './with-update-command.ts'
import { armFromEnv } from './arm-env.ts'
import { planBench } from './plan-bench.ts'
import { DEFAULT_SWEEP_TIMEOUT_MS, validateBenchSweepOptions, type BenchSweepOptions } from './sweep-bench-options.ts'
import { runSweepBenchmark } from './sweep-bench.ts'
import { formatSweepTable } from '../core/sweep/index.ts'
import { planCompare, type BenchCompareOptions } from './compare-bench-options.ts'
import { runCompareBench } from './compare-bench.ts'
import { assertionError, FailedAfterMeasuringError, runBench, summaryLine } from './run-bench.ts'

/**
 * Environment variable that updates baselines outside Vitest (where there is no `-u`):
 * `1`, `true` or `all` rewrite every entry the run touches; `new` writes missing ones only;
 * `0`, `false` or `none` write nothing. Unset: `none` under CI (a missing baseline fails), else `new`.
 */
export const UPDATE_ENV = 'LLM_BENCH_UPDATE'

/** Environment variable naming a folder for baseline files instead of `__llm_baselines__` beside each bench file. */
export const BASELINE_DIR_ENV = 'LLM_BENCH_BASELINE_DIR'

/** The update mode {@link UPDATE_ENV} asks for. Throws {@link OptionsError} for a value it does not know. */
export function updateModeFromEnv(env: Record<string, string | undefined>): UpdateMode {
  const raw = env[UPDATE_ENV]
  if (raw === undefined || raw === '') return resolveUpdateMode({ update: false, ci: isCI(env) })
  const value = raw.trim().toLowerCase()
  if (value === '1' || value === 'true' || value === 'all') return 'all'
  if (value === 'new') return 'new'
  if (value === '0' || value === 'false' || value === 'none') return 'none'
  throw new OptionsError(
    UPDATE_ENV,
    `${JSON.stringify(raw)} is not an update mode`,
    'Use 1 (rewrite baselines), new (write missing ones) or 0.',
  )
}

/**
 * Environment variable that counts a judged run as one more session of its stored baseline on this machine (`1`):
 * the verdict then knows how far the machine moves between sessions (docs/verdicts.md, "Between sessions").
 */
export const ADD_SESSION_ENV = 'LLM_BENCH_ADD_SESSION'

/** Whether {@link ADD_SESSION_ENV} asks to count this run as a session. Throws {@link OptionsError} for another value. */
export function addSessionFromEnv(env: Record<string, string | undefined>): boolean {
  const raw = (env[ADD_SESSION_ENV] ?? '').trim().toLowerCase()
  if (raw === '' || raw === '0' || raw === 'false') return false
  if (raw === '1' || raw === 'true') return true
  throw new OptionsError(
    ADD_SESSION_ENV,
    `${JSON.stringify(env[ADD_SESSION_ENV])} is not 1 or 0`,
    'Use 1 to count this run as a session.',
  )
}

/** What the Vitest plugin would provide, read from the environment instead. */
export function standaloneProvided(
  env: Record<string, string | undefined> = process.env,
): Pick<LlmBenchProvided, 'update' | 'ci' | 'baselineDir' | 'addSession'> {
  const dir = env[BASELINE_DIR_ENV]
  return {
    update: updateModeFromEnv(env),
    ci: isCI(env),
    ...(dir ? { baselineDir: dir } : {}),
    ...(addSessionFromEnv(env) ? { addSession: true } : {}),
  }
}

/** A stack frame's file: `(/abs/file.ts:3:5)`, `at /abs/file.ts:3:5` (Bun) or `file:///abs/file.ts:3:5` (Deno). */
const FRAME_FILE = /(?:\(|at |@)((?:file:\/\/)?(?:\/|[A-Za-z]:[\\/])[^():]*?):\d+:\d+\)?\s*$/

/**
 * The first file in `stack` that is not one of this package's adapter files: the bench file that
 * called `bench.llm`. Undefined when no frame names a file.
 */
export function callerFileOf(stack: string | undefined, isOwnFile: (file: string) => boolean): string | undefined {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const match = FRAME_FILE.exec(line.trim())
    if (!match?.[1]) continue
    const file = match[1].startsWith('file://') ? fileURLToPath(match[1]) : match[1]
    if (!isOwnFile(file)) return file
  }
  return undefined
}

/** Files of this package that a `bench.llm` call passes through before it reaches the bench file. */
function isAdapterFile(file: string): boolean {
  return (
    /[\\/](?:src|dist[\\/]src)[\\/](?:bun|deno)[\\/][^\\/]+\.[jt]s$/.test(file) ||
    /[\\/]standalone-bench-llm\.[jt]s$/.test(file)
  )
}

/** How a runner registers a test: `mode` `skip` and `only` as the runner spells them. */
export type RegisterTest = (
  mode: 'run' | 'skip' | 'only',
  name: string,
  fn: () => Promise<void>,
  timeoutMs: number,
) => void

/** `bench.llm(name, options)` of a runner adapter. */
export type StandaloneBenchFn = (name: string, options: BenchLlmOptions) => void

/** `bench.llm` with the variants Vitest's has. */
export interface StandaloneBenchLlm extends StandaloneBenchFn {
  skip: StandaloneBenchFn
  only: StandaloneBenchFn
  /** Skips the bench when `condition` is truthy. */
  skipIf(condition: unknown): StandaloneBenchFn
  /** Runs the bench only when `condition` is truthy. */
  runIf(condition: unknown): StandaloneBenchFn
  /** `bench.llm.sweep(name, options)`: a curve, a capacity search or an MLPerf scenario, as under Vitest. */
  sweep: StandaloneSweep
  /** `bench.llm.compare(name, options)`: variants side by side, as under Vitest. */
  compare: StandaloneCompare
}

/** `bench.llm.compare(name, options)` of a runner adapter. */
export type StandaloneCompareFn = (name: string, options: BenchCompareOptions) => void

/** `bench.llm.compare` with its variants. */
export interface StandaloneCompare extends StandaloneCompareFn {
  skip: StandaloneCompareFn
  only: StandaloneCompareFn
}

/** `bench.llm.sweep(name, options)` of a runner adapter. */
export type StandaloneSweepFn = (name: string, options: BenchSweepOptions) => void

/** `bench.llm.sweep` with its variants. */
export interface StandaloneSweep extends StandaloneSweepFn {
  skip: StandaloneSweepFn
  only: StandaloneSweepFn
}

/** Options of {@link createStandaloneBenchLlm}. */
export interface StandaloneBenchLlmOptions {
  /** Environment the update mode and CI flag are read from when a bench runs. Default `process.env`. */
  env?: Record<string, string | undefined>
  /** Where the bench's notes go (baseline written, inconclusive checks). Default `console.log`. */
  log?: (line: string) => void
  /** The bench file, when the call stack cannot tell (tests). Default: the caller of `bench.llm`. */
  file?: string
  /** The runner's command that updates baselines, named in messages instead of `vitest bench -u`, e.g. `LLM_BENCH_UPDATE=1 bun test`. */
  updateCommand?: string
}

/**
 * The bench file that registers `what` (`bench.llm`, `.sweep`, `.compare`): the settings' file, else the first caller
 * outside the adapters on the stack. Throws {@link OptionsError} when a call is not made from a bench file's top level.
 */
function benchFileOf(given: string | undefined, what: string, name: string): string {
  const file = given ?? callerFileOf(new Error().stack, isAdapterFile)
  if (file === undefined) {
    throw new OptionsError(
      'bench file',
      `cannot tell which file called ${what}('${name}')`,
      `Call ${what} at the top level of a bench file.`,
    )
  }
  return file
}

/**
 * Builds `bench.llm` on a runner's `register`: validates the options when the file is loaded,
 * remembers the calling file (for the baseline path), and registers a test that runs the bench,
 * prints its notes and throws an `LlmBenchAssertionError` with the verdict when it fails.
 */
export function createStandaloneBenchLlm(
  register: RegisterTest,
  settings: StandaloneBenchLlmOptions = {},
): StandaloneBenchLlm {
  const log = settings.log ?? ((line: string) => console.log(line))
  const registerIn =
    (mode: 'run' | 'skip' | 'only'): StandaloneBenchFn =>
    (name, options) => {
      const plan = planBench(name, options)
      const file = benchFileOf(settings.file, 'bench.llm', name)
      const { limit } = plan
      register(
        mode,
        name,
        async () => {
          // The bench's own limit, before the runner's: the run stops, and the failure says which option to raise.
          const signal = AbortSignal.timeout(limit.ms)
          const { result, judgement } = await runBench({
            name,
            file,
            options,
            plan,
            provided: standaloneProvided(settings.env ?? process.env),
            signal,
          }).catch((error: unknown) => {
            if (signal.aborted)
              throw assertionError(
                benchTimedOut(name, limit, error instanceof FailedAfterMeasuringError ? error.result : undefined),
              )
            throw error
          })
          log(summaryLine(name, result, judgement))
          for (const note of judgement.notes) log(withUpdateCommand(note, settings.updateCommand))
          if (signal.aborted) throw assertionError(benchTimedOut(name, limit, result))
          if (judgement.failure) throw assertionError(withUpdateCommand(judgement.failure, settings.updateCommand))
        },
        runnerTimeoutMs(limit.ms),
      )
    }
  // `ab` measures `bench.llm` benches only: a sweep or a comparison of its own is skipped in its arms.
  const inArm = (mode: 'run' | 'skip' | 'only') => (armFromEnv(settings.env ?? process.env) ? 'skip' : mode)
  const sweepIn =
    (given: 'run' | 'skip' | 'only'): StandaloneSweepFn =>
    (name, options) => {
      const mode = inArm(given)
      validateBenchSweepOptions(name, options)
      const file = benchFileOf(settings.file, 'bench.llm.sweep', name)
      const timeoutMs = options.timeoutMs ?? DEFAULT_SWEEP_TIMEOUT_MS
      register(
        mode,
        name,
        async () => {
          const signal = AbortSignal.timeout(timeoutMs)
          const { meta, failure } = await runSweepBenchmark({
            name,
            file,
            options,
            provided: standaloneProvided(settings.env ?? process.env),
            signal,
          })
          log(
            `${name}: ${meta.result.points.length} points in ${(meta.result.durationMs / 1000).toFixed(1)} s${meta.baselineState ? ` · baseline ${meta.baselineState}` : ''}`,
          )
          log(formatSweepTable(meta.result))
          if (failure) throw assertionError(withUpdateCommand(failure, settings.updateCommand))
        },
        timeoutMs,
      )
    }
  const compareIn =
    (given: 'run' | 'skip' | 'only'): StandaloneCompareFn =>
    (name, options) => {
      const mode = inArm(given)
      const plan = planCompare(name, options)
      const file = benchFileOf(settings.file, 'bench.llm.compare', name)
      register(
        mode,
        name,
        async () => {
          const signal = AbortSignal.timeout(plan.timeoutMs)
          const { failure, notes } = await runCompareBench({ name, file, options, plan, signal })
          for (const note of notes) log(note)
          if (failure) throw assertionError(failure)
        },
        plan.timeoutMs,
      )
    }
  return Object.assign(registerIn('run'), {
    skip: registerIn('skip'),
    only: registerIn('only'),
    skipIf: (condition: unknown) => registerIn(condition ? 'skip' : 'run'),
    runIf: (condition: unknown) => registerIn(condition ? 'run' : 'skip'),
    sweep: Object.assign(sweepIn('run'), { skip: sweepIn('skip'), only: sweepIn('only') }),
    compare: Object.assign(compareIn('run'), { skip: compareIn('skip'), only: compareIn('only') }),
  })
}
