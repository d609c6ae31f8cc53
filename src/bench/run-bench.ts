/**
 * One `bench.llm`, run: its trials measured on its target (a simulator or server started as the options
 * say), merged, then judged against its SLOs and baseline by {@link judgeBench}. What the Vitest adapter
 * and the other runners' `bench.llm` (standalone-bench-llm.ts) both run. No Vitest import here or below.
 */
import { BaselineMismatchError } from '../core/contract/errors.ts'
import { canonicalConfig } from '../core/plan/index.ts'
import {
  BaselineStore,
  baselinePathFor,
  closestMachineEntry,
  decideMissingBaseline,
  diffMachine,
  fingerprintOf,
} from '../core/baseline/index.ts'
import { beyondMoreTrials, compare } from '../core/verdict/index.ts'
import { collectEnvironment } from '../core/telemetry/index.ts'
import type { BaselineEntry } from '../core/baseline/index.ts'
import { mergeTrials } from '../core/trials/index.ts'
import type { ResolvedTrials } from './bench-trials.ts'
import type { RunContext } from '../core/run.ts'
import { prefixCacheResetUnsupported, resetPrefixCache } from '../core/server/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import type { Progress, TargetOptions } from '../core/contract/options.ts'
import type { BenchJudgement } from './bench-judgement.ts'
import type { BenchLlmOptions } from './bench-options.ts'
import { acquireTarget } from './bench-target.ts'
import type { LlmBenchProvided } from './provided.ts'
import { outcomeSinkOf } from './outcome-sinks.ts'
import { runArmTurns } from './arm-bench.ts'
import { runLoadOn } from './load-on.ts'
import { planBench, type BenchPlan } from './plan-bench.ts'

/** One bench run: what `bench.llm` under Vitest and the runner adapters both do. */
export interface BenchRun {
  /** The baseline key: the name given to `bench.llm` (under Vitest with its describe path). */
  name: string
  /** Absolute path of the bench file; its baseline file is `__llm_baselines__/<file name>.json` beside it. */
  file: string
  options: BenchLlmOptions
  /** The options parsed at collection ({@link planBench}); planned here when not given. */
  plan?: BenchPlan
  provided: Pick<LlmBenchProvided, 'update' | 'ci' | 'baselineDir' | 'addSession'>
  /** Stops the run (the runner's timeout). */
  signal?: AbortSignal
  /** A server the test runner already started for every bench (the Vitest plugin's), used when the options name none. */
  shared?: { url?: string; server?: RunContext['server'] }
  /** Live progress of each trial; `stage` names the trial (`trial 2`) when the bench measures more than one. */
  onProgress?: (progress: Progress, stage: string | undefined) => void
  /** Called once the run has finished, before it is judged. */
  afterRun?: () => Promise<void> | void
}

/** What a bench run measured and what it means. */
export interface BenchOutcome {
  result: BenchmarkResult
  judgement: BenchJudgement
}

/** Runs the benchmark on its target (starting a simulator or server as `options` say), trial by trial, then judges it. */
export async function runBench(run: BenchRun): Promise<BenchOutcome> {
  const { options } = run
  const bench = run.plan ?? planBench(run.name, options)
  const { trials } = bench
  const { policy } = bench
  // Arms together: this bench takes turns with the other revision's, as `ab` says.
  const { arm } = bench
  if (arm?.mode.kind === 'turns') return runArmTurns(run, bench, { ...arm, mode: arm.mode }, policy)
  // Judged here, written as a segment (judged after the merge) or as an `ab` arm (judged by `ab`): one trial unless
  // judged here. The baseline file is read before any load is sent: a broken file fails in seconds, not after the run.
  const sink = outcomeSinkOf(bench)
  const store = sink.readsBaselines ? await openBaselines(run) : undefined
  let acquired = await acquireTarget(options.server, options.target, run.shared, { simulator: bench.simulator })
  try {
    // The machine is known before the first request: a baseline from another GPU fails now, not after a trial.
    const plan =
      store === undefined
        ? { trials: 1, compareWith: undefined, stored: undefined }
        : await planTrials(run, trials, store, acquired.context)
    const reset = options.resetPrefixCache
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
      const measured = await runLoadOn(run, acquired, bench.run, {
        ...(run.onProgress
          ? { onProgress: trialProgress(run.onProgress, results.length + remeasured + 1, plan.trials) }
          : {}),
      })
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
      if (plan.compareWith === undefined || policy === false || results.length >= trials.max) break
      // Another trial until every check passes: an undecided check needs more data, and a fail is
      // confirmed on more trials, so one unlucky trial cannot fail a pull request (one at 2.4x the
      // baseline's TTFT p99 did on llama-server). Not on a busy machine: more of it decides nothing.
      const merged = mergeTrials(results)
      if ((merged.client.selfCheck?.disturbed.length ?? 0) > 0) break
      // Judged as the bench will be, with the allowance for sessions: a check that allowance alone leaves undecided
      // is not narrowed by more trials (they narrow the trials' part of the interval), so none is measured for it.
      const verdict = compare(plan.compareWith, merged, policy, { stored: true })
      const open = verdict.checks.filter((check) => check.status !== 'pass')
      if (open.every((check) => beyondMoreTrials(check) !== undefined)) break
      // Against a provisional entry nothing passes: more trials can only confirm a fail.
      if (plan.compareWith.provisional !== undefined && verdict.status !== 'fail') break
    }
    const merged = mergeTrials(results)
    const result = notes.length > 0 ? { ...merged, warnings: [...merged.warnings, ...notes] } : merged
    await run.afterRun?.()
    let judgement: BenchJudgement
    try {
      judgement = await sink.take(run, { result, serverEnded: acquired.serverEnded() })
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
  onProgress: NonNullable<BenchRun['onProgress']>,
  trial: number,
  planned: number,
): (progress: Progress) => void {
  const stage = trial > 1 || planned > 1 ? `trial ${trial}` : undefined
  return (progress) => onProgress(progress, stage)
}

/** The bench file's baselines, read before any server starts: a broken file fails in seconds. */
function openBaselines(run: BenchRun): Promise<BaselineStore> {
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
  run: BenchRun,
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
