/**
 * `bench.llm` for test runners other than Vitest (`bun:test`, `Deno.test`): the same options,
 * baseline files and verdicts, through the same {@link judgeBench}. No Vitest import here or below
 * (the adapters load it in runtimes whose runner is not Vitest); a runner adapter only says how to
 * register a test.
 */
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BaselineMismatchError, OptionsError } from '../core/contract/errors.ts'
import { runPlan } from '../core/run.ts'
import { canonicalConfig, checkTarget } from '../core/plan/index.ts'
import {
  asParsedPolicy,
  resolveUpdateMode,
  BaselineStore,
  baselinePathFor,
  compare,
  DEFAULT_PARSED_POLICY,
  defaultRegressionPolicy,
  closestMachineEntry,
  decideMissingBaseline,
  diffMachine,
  fingerprintOf,
} from '../core/baseline/index.ts'
import { collectEnvironment } from '../core/telemetry/index.ts'
import type { BaselineEntry, RegressionPolicy } from '../core/baseline/index.ts'
import { mergeTrials } from '../core/trials/index.ts'
import { benchTimedOut, runnerTimeoutMs } from './bench-timeout.ts'
import type { ResolvedTrials } from './bench-trials.ts'
import type { RunContext } from '../core/run.ts'
import { prefixCacheResetUnsupported, resetPrefixCache } from '../core/server/index.ts'
import type { BenchmarkResult, Progress, TargetOptions } from '../core/contract/types.ts'
import { judgeBench, stopFailure } from './bench-judgement.ts'
import type { BenchJudgement } from './bench-judgement.ts'
import type { BenchLlmOptions } from './bench-options.ts'
import { acquireTarget } from './bench-target.ts'
import { isCI } from './ci.ts'
import type { LlmBenchProvided, UpdateMode } from './provided.ts'
import { withUpdateCommand } from './with-update-command.ts'
import { writeSegmentFile } from './segment-file.ts'
import { writeArmFile } from './arm-file.ts'
import { armFromEnv } from './arm-env.ts'
import { DEFERRED } from './baseline-state.ts'
import { planBench, type BenchPlan } from './plan-bench.ts'
import { DEFAULT_SWEEP_TIMEOUT_MS, validateBenchSweepOptions, type BenchSweepOptions } from './sweep-bench-options.ts'
import { runSweepBenchmark } from './sweep-bench.ts'
import { formatSweepTable } from '../core/sweep/index.ts'
import { planCompare, type BenchCompareOptions } from './compare-bench-options.ts'
import { runCompareBench } from './compare-bench.ts'

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

/** What the Vitest plugin would provide, read from the environment instead. */
export function standaloneProvided(
  env: Record<string, string | undefined> = process.env,
): Pick<LlmBenchProvided, 'update' | 'ci' | 'baselineDir'> {
  const dir = env[BASELINE_DIR_ENV]
  return { update: updateModeFromEnv(env), ci: isCI(env), ...(dir ? { baselineDir: dir } : {}) }
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
    /[\\/]standalone-bench\.[jt]s$/.test(file)
  )
}

/** One bench run: what `bench.llm` under Vitest and the runner adapters both do. */
export interface StandaloneBenchRun {
  /** The baseline key: the name given to `bench.llm` (under Vitest with its describe path). */
  name: string
  /** Absolute path of the bench file; its baseline file is `__llm_baselines__/<file name>.json` beside it. */
  file: string
  options: BenchLlmOptions
  /** The options parsed at collection ({@link planBench}); planned here when not given. */
  plan?: BenchPlan
  provided: Pick<LlmBenchProvided, 'update' | 'ci' | 'baselineDir'>
  /** Stops the run (the runner's timeout). */
  signal?: AbortSignal
  /** A server the test runner already started for every bench (the Vitest plugin's), used when the options name none. */
  shared?: { url?: string; server?: RunContext['server'] }
  /** The regression policy when it is not `options.baseline` (the plugin's default tolerance). */
  policy?: RegressionPolicy | false
  /** Progress while the load runs. */
  /** Live progress of each trial; `stage` names the trial (`trial 2`) when the bench measures more than one. */
  onProgress?: (progress: Progress, stage: string | undefined) => void
  /** Called once the run has finished, before it is judged. */
  afterRun?: () => Promise<void> | void
}

/** What a bench run measured and what it means. */
export interface StandaloneBenchOutcome {
  result: BenchmarkResult
  judgement: BenchJudgement
}

/** Runs the benchmark on its target (starting a simulator or server as `options` say), trial by trial, then judges it. */
export async function runStandaloneBench(run: StandaloneBenchRun): Promise<StandaloneBenchOutcome> {
  const { options } = run
  const bench = run.plan ?? planBench(run.name, options)
  const { trials } = bench
  // Parsed once: the plugin's tolerance here, the bench's own at collection.
  const fromPlugin = bench.policy === undefined && run.policy !== undefined
  const given = bench.policy ?? run.policy ?? defaultRegressionPolicy(options.target)
  const policy = given === false ? false : asParsedPolicy(given, fromPlugin ? 'llmBench({ tolerance })' : 'baseline')
  // The baseline file is read before any load is sent: a broken file fails in seconds, not after the run.
  // A segment (one host's slice of a load over several machines) measures once and is judged after the merge.
  const segment = bench.run.segment
  // An arm of an `ab` run measures one trial; `ab` judges the pairs.
  const { arm } = bench
  const store = policy === false || segment || arm ? undefined : await openBaselines(run)
  let acquired = await acquireTarget(options.server, options.target, run.shared, { simulator: bench.simulator })
  try {
    // The machine is known before the first request: a baseline from another GPU fails now, not after a trial.
    const plan =
      store === undefined
        ? { trials: 1, compareWith: undefined, stored: undefined }
        : await planTrials(run, trials, store, acquired.context)
    const {
      server: _server,
      slo: _slo,
      baseline: _baseline,
      timeoutMs: _timeout,
      target: _target,
      resetPrefixCache: reset,
      trials: _trials,
      ...rest
    } = options
    const results: BenchmarkResult[] = []
    const notes: string[] = []
    let remeasured = 0
    // Disturbed measurements of the trial being measured, each measured again.
    let attemptsOfTrial = 0
    for (;;) {
      const recording = plan.compareWith === undefined && plan.trials > 1
      const restart = trials.restartServer === 'always' || (trials.restartServer === 'record' && recording)
      if ((results.length > 0 || remeasured > 0) && restart && acquired.restart) acquired = await acquired.restart()
      const resetWarning = reset ? await emptyPrefixCache(acquired.target) : undefined
      const trialOptions = {
        ...rest,
        target: acquired.target,
        ...(run.signal ? { signal: run.signal } : {}),
        ...(run.onProgress
          ? { onProgress: trialProgress(run.onProgress, results.length + remeasured + 1, plan.trials) }
          : {}),
      }
      const measured = await runPlan(
        { target: checkTarget(acquired.target), run: bench.run, options: trialOptions },
        // Dataset and tokenizer paths written in a bench file are relative to that file.
        { ...acquired.context, baseDir: dirname(run.file) },
      )
      const disturbed = measured.client.selfCheck?.disturbed ?? []
      // A baseline is recorded from quiet trials: a disturbed one is measured again (a few times at most).
      // A stopped trial is not measured again: the safety stop is the server's doing on any machine.
      const stopped = measured.stopped !== undefined
      if (
        recording &&
        disturbed.length > 0 &&
        !stopped &&
        remeasured < MAX_REMEASURED_TRIALS &&
        !acquired.serverEnded()
      ) {
        remeasured++
        attemptsOfTrial++
        notes.push(
          `trial ${results.length + 1} was measured again (attempt ${attemptsOfTrial + 1}): the machine was disturbed ` +
            `(${disturbed.join('; ')})`,
        )
        continue
      }
      results.push(resetWarning ? { ...measured, warnings: [...measured.warnings, resetWarning] } : measured)
      attemptsOfTrial = 0
      // No trial after a safety stop: a server in trouble gets no more load.
      if (acquired.serverEnded() || run.signal?.aborted || stopped) break
      if (results.length < plan.trials) continue
      if (plan.compareWith === undefined || results.length >= trials.max) break
      // Another trial until every check passes: an undecided check needs more data, and a fail is
      // confirmed on more trials, so one unlucky trial cannot fail a pull request (one at 2.4x the
      // baseline's TTFT p99 did on llama-server). Not on a busy machine: more of it decides nothing.
      const merged = mergeTrials(results)
      if ((merged.client.selfCheck?.disturbed.length ?? 0) > 0) break
      const status = compare(plan.compareWith, merged, policy || DEFAULT_PARSED_POLICY).status
      // Against a provisional entry nothing passes: more trials can only confirm a fail.
      if (status === 'pass' || (plan.compareWith.provisional !== undefined && status !== 'fail')) break
    }
    const merged = mergeTrials(results)
    const result = notes.length > 0 ? { ...merged, warnings: [...merged.warnings, ...notes] } : merged
    await run.afterRun?.()
    const serverEnded = acquired.serverEnded()
    if (segment) {
      const path = await writeSegmentFile(run.file, run.name, policy, bench.slo, result)
      const note = `segment ${segment.index} of ${segment.count}: judged after the merge (npx vitest-llm-bench merge --dir <the hosts' segment folders>); written to ${path}`
      return {
        result,
        judgement: {
          failure: undefined,
          sloChecks: [],
          notes: [note],
          baselineState: DEFERRED,
          deferred: { policy, slo: bench.slo },
        },
      }
    }
    if (arm) {
      const path = await writeArmFile(
        arm,
        run.file,
        run.name,
        bench.policy ?? (fromPlugin ? policy : undefined),
        bench.slo,
        result,
      )
      return {
        result,
        judgement: {
          // A server in trouble stops `ab` too (the arm fails, and ab with it), unless the stop was expected.
          failure: result.stopped && !result.stopped.expected ? stopFailure(result.stopped) : undefined,
          sloChecks: [],
          notes: [`${arm.label} arm of pair ${arm.pair}: judged by \`vitest-llm-bench ab\`; written to ${path}`],
          baselineState: DEFERRED,
        },
      }
    }
    let judgement: BenchJudgement
    try {
      judgement = await judgeBench({
        name: run.name,
        file: run.file,
        result,
        ...(serverEnded ? { serverEnded } : {}),
        slo: bench.slo,
        policy,
        provided: run.provided,
        trials,
      })
    } catch (error) {
      // The load ran: its numbers are not lost with the error (the baseline file broke meanwhile...).
      throw new FailedAfterMeasuringError(run.name, result, error)
    }
    return { result, judgement }
  } finally {
    await acquired.release()
  }
}

/**
 * Disturbed trials measured again while a baseline is recorded, at most: a machine busy for longer
 * gives a provisional baseline rather than being measured on (with two CPU hogs, 5 re-measures per bench
 * made a `-u` of two 100-request benches take 653 s).
 */
const MAX_REMEASURED_TRIALS = 2

/** A trial's progress, named `trial N` where the bench may measure more than one (a recording, a re-measure). */
function trialProgress(
  onProgress: NonNullable<StandaloneBenchRun['onProgress']>,
  trial: number,
  planned: number,
): (progress: Progress) => void {
  const stage = trial > 1 || planned > 1 ? `trial ${trial}` : undefined
  return (progress) => onProgress(progress, stage)
}

/** The bench file's baselines, read before any server starts: a broken file fails in seconds. */
function openBaselines(run: StandaloneBenchRun): Promise<BaselineStore> {
  return BaselineStore.open(baselinePathFor(run.file, run.provided.baselineDir), {
    updateMode: run.provided.update,
    ci: run.provided.ci,
    identity: canonicalConfig,
  })
}

/**
 * How many trials to measure first, the entry to compare with when more may follow, and the stored entry
 * (unless `-u` replaces it): this machine's entry (GPU model and count, driver, CPU model, runtime major, read
 * before any load). A bench recorded only on other machines is recorded for this one where a missing entry
 * would be; where it may not be (CI), it fails now with what changed, not after a trial.
 */
async function planTrials(
  run: StandaloneBenchRun,
  trials: ResolvedTrials,
  store: BaselineStore,
  context: RunContext,
): Promise<{ trials: number; compareWith: BaselineEntry | undefined; stored: BaselineEntry | undefined }> {
  if (run.provided.update === 'all') return { trials: trials.record, compareWith: undefined, stored: undefined }
  const recordNow = { trials: trials.record, compareWith: undefined, stored: undefined }
  if (store.get(run.name).state === 'missing') {
    // Missing: recorded now, unless this run may not write (CI), where it fails after one trial.
    return run.provided.update === 'none' ? { ...recordNow, trials: 1 } : recordNow
  }
  const host = await collectEnvironment({ skipGpu: context.skipGpu, ...(context.gpus ? { gpus: context.gpus } : {}) })
  const machine = fingerprintOf({ ...host, server: {} })
  const found = store.get(run.name, machine)
  if (found.state === 'other machine') {
    const { update, ci } = run.provided
    if (decideMissingBaseline(run.name, store.path, { updateMode: update, ci }).action === 'write') return recordNow
    const closest = closestMachineEntry(found.entries, machine)
    throw new BaselineMismatchError(run.name, store.path, diffMachine(closest.fingerprint, machine), [])
  }
  const stored = found.state === 'found' ? found.entry : undefined
  // A provisional entry that a quiet local run will replace is measured as a recording is (its trials).
  if (stored !== undefined && stored.provisional !== undefined && run.provided.update === 'new' && !run.provided.ci) {
    return { trials: trials.record, compareWith: undefined, stored }
  }
  return { trials: 1, compareWith: stored, stored }
}

/** `resetPrefixCache`: empties the target's prefix cache; the warning when the server offers no way to. */
async function emptyPrefixCache(target: TargetOptions): Promise<string | undefined> {
  const done = await resetPrefixCache(target.baseUrl, target.apiKey ? { apiKey: target.apiKey } : {})
  return done
    ? undefined
    : `resetPrefixCache: ${prefixCacheResetUnsupported(target.baseUrl)}; the bench may reuse cached prefixes.`
}

/** One line per bench, as the Vitest reporters' summary: counts, p99 TTFT, output tokens/s, baseline state. */
export function summaryLine(name: string, result: BenchmarkResult, judgement: BenchJudgement): string {
  return `${measuredLine(name, result)}, baseline: ${judgement.verdict?.status ?? judgement.baselineState ?? 'no baseline'}`
}

/** `name: 30/30 completed, TTFT p99 41.2 ms, 1200 output tok/s`. */
function measuredLine(name: string, result: BenchmarkResult): string {
  const ttft = result.metrics.ttftMs.count > 0 ? `${result.metrics.ttftMs.p99.toFixed(1)} ms` : 'n/a'
  return `${name}: ${result.counts.completed}/${result.counts.total} completed, TTFT p99 ${ttft}, ${result.throughput.outputTokensPerSec.toFixed(0)} output tok/s`
}

/**
 * A bench that measured and then failed (judging, reading or writing its baseline file): the error
 * says what failed and what was measured, and carries the result so that reports still show it.
 */
export class FailedAfterMeasuringError extends Error {
  /** What the load measured before the failure. */
  readonly result: BenchmarkResult

  constructor(name: string, result: BenchmarkResult, cause: unknown) {
    super(
      `${cause instanceof Error ? cause.message : String(cause)}\nThe load itself ran and is in the reports: ${measuredLine(name, result)}.`,
      { cause },
    )
    this.result = result
    this.name = cause instanceof Error ? cause.name : 'FailedAfterMeasuringError'
  }
}

/** The error a failed bench throws, under Vitest and the other runners alike. */
export function assertionError(message: string): Error {
  const error = new Error(message)
  error.name = 'LlmBenchAssertionError'
  return error
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
      const file = settings.file ?? callerFileOf(new Error().stack, isAdapterFile)
      if (file === undefined) {
        throw new OptionsError(
          'bench file',
          `cannot tell which file called bench.llm('${name}')`,
          'Call bench.llm at the top level of a bench file.',
        )
      }
      const { limit } = plan
      register(
        mode,
        name,
        async () => {
          // The bench's own limit, before the runner's: the run stops, and the failure says which option to raise.
          const signal = AbortSignal.timeout(limit.ms)
          const { result, judgement } = await runStandaloneBench({
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
      const file = settings.file ?? callerFileOf(new Error().stack, isAdapterFile)
      if (file === undefined) {
        throw new OptionsError(
          'bench file',
          `cannot tell which file called bench.llm.sweep('${name}')`,
          'Call bench.llm.sweep at the top level of a bench file.',
        )
      }
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
      const file = settings.file ?? callerFileOf(new Error().stack, isAdapterFile)
      if (file === undefined) {
        throw new OptionsError(
          'bench file',
          `cannot tell which file called bench.llm.compare('${name}')`,
          'Call bench.llm.compare at the top level of a bench file.',
        )
      }
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
