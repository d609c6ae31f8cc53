import type { TestContext } from 'vitest'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { DEFAULT_BENCH_TIMEOUT_MS, type BenchLlmOptions } from '../bench/bench-options.ts'
import { assertionError, FailedAfterMeasuringError, runBench } from '../bench/run-bench.ts'
import { benchNameOf } from './bench-name.ts'
import { injectProvided } from './inject-provided.ts'
import { forwardProgress } from './bench-progress.ts'
import { planBench, warnUndecidableGates, type BenchPlan } from '../bench/plan-bench.ts'
import { sweep } from './bench-sweep.ts'
import { compareBench } from './bench-compare.ts'
import { benchRegistrar } from './register-bench.ts'
import { writeArmListed } from '../bench/arm-file.ts'
import { armNeedOf } from '../bench/arms-placement.ts'
import { benchTimedOut, runnerTimeoutMs } from '../bench/bench-timeout.ts'
import { benchUpdateCommand } from './update-command.ts'
import { withUpdateCommand } from '../bench/with-update-command.ts'

export { DEFAULT_BENCH_TIMEOUT_MS }

/** The result as reporters get it: per-request records are large, so only when the bench asked to record them. */
function reported(result: BenchmarkResult, options: BenchLlmOptions): BenchmarkResult {
  return options.recordRequests ? result : { ...result, requests: undefined }
}

/** The Vitest test of one bench: runs it ({@link runBench}), hands the reporters its result, throws its failure. */
async function runBenchTest(ctx: TestContext, options: BenchLlmOptions, plan: BenchPlan): Promise<void> {
  const shared = injectProvided()
  if (plan.arm?.mode.kind === 'list') {
    // An arm of `ab` listing its benches: what placement needs, nothing measured. A server given by URL is up already.
    const need = armNeedOf(plan.arm.label, options.server, plan.run)
    const up = options.server === undefined && (options.target?.baseUrl ?? shared.serverUrl) !== undefined
    await writeArmListed(
      plan.arm,
      ctx.task.file.filepath,
      benchNameOf(ctx.task),
      up ? { ...need, server: 'connect' } : need,
    )
    return
  }
  const controller = new AbortController()
  ctx.signal?.addEventListener('abort', () => controller.abort(ctx.signal.reason), { once: true })
  // The bench's own limit, before the runner's: the run stops, and the failure says which option to raise.
  const { limit } = plan
  const deadline = AbortSignal.timeout(limit.ms)
  deadline.addEventListener('abort', () => controller.abort(deadline.reason), { once: true })
  const progress = shared.progress ? forwardProgress(ctx.task) : undefined
  const { result, judgement } = await runBench({
    name: benchNameOf(ctx.task),
    file: ctx.task.file.filepath,
    options,
    plan,
    provided: shared,
    signal: controller.signal,
    shared: { url: shared.serverUrl, server: shared.server },
    ...(progress ? { onProgress: progress.onProgress, afterRun: () => progress.settle() } : {}),
  }).catch((error: unknown) => {
    // Measured, then failed: the reports still get the numbers, beside the error.
    const measured = error instanceof FailedAfterMeasuringError ? error.result : undefined
    if (measured) ctx.task.meta.llmBench = { result: reported(measured, options) }
    if (deadline.aborted) throw assertionError(benchTimedOut(benchNameOf(ctx.task), limit, measured))
    throw error
  })
  // Messages that suggest an update name this bench's own command, not `vitest bench -u` (every bench).
  const update = benchUpdateCommand(ctx.task)
  const notes = judgement.notes.map((note) => withUpdateCommand(note, update))
  ctx.task.meta.llmBench = {
    result: reported(result, options),
    ...(judgement.sloChecks.length > 0 ? { sloChecks: judgement.sloChecks } : {}),
    ...(judgement.verdict ? { verdict: judgement.verdict } : {}),
    ...(judgement.baselinePath ? { baselinePath: judgement.baselinePath } : {}),
    ...(judgement.baselineState ? { baselineState: judgement.baselineState } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    ...(judgement.deferred ? { segmentJudge: judgement.deferred } : {}),
  }
  if (deadline.aborted) throw assertionError(benchTimedOut(benchNameOf(ctx.task), limit, result))
  if (judgement.failure) throw assertionError(withUpdateCommand(judgement.failure, update))
}

/** Registers one LLM bench: `bench.llm(name, options)`. */
export type BenchLlmFn = (name: string, options: BenchLlmOptions) => void

const register = benchRegistrar<BenchLlmOptions, BenchPlan>({
  plan: (name, options) => {
    // The plugin's tolerance is the gates of a bench that sets none: resolved here, with the rest of the plan.
    const plan = planBench(name, options, process.env, injectProvided().tolerance)
    warnUndecidableGates(name, plan)
    return plan
  },
  run: runBenchTest,
  defaultTimeoutMs: DEFAULT_BENCH_TIMEOUT_MS,
  wholeTimeoutMs: (plan) => runnerTimeoutMs(plan.limit.ms),
})

/** `bench.llm` with its variants, as Vitest's `test` has them. */
export interface BenchLlm extends BenchLlmFn {
  /** Registers the bench as skipped: it does not run, and its baseline entry is kept. */
  skip: BenchLlmFn
  /** Runs only this bench (and other `.only` ones) in its file. */
  only: BenchLlmFn
  /** Skips the bench when `condition` is truthy (e.g. no GPU on this machine). */
  skipIf(condition: unknown): BenchLlmFn
  /** Runs the bench only when `condition` is truthy. */
  runIf(condition: unknown): BenchLlmFn
}

/**
 * `bench.llm(name, options)`: a Vitest test that runs an LLM serving benchmark, checks its SLOs
 * and compares it with the stored baseline. Use it in `*.bench.ts` files under `vitest bench`;
 * the options are validated when the file is collected. The bench's limit is `options.timeoutMs`
 * (default {@link DEFAULT_BENCH_TIMEOUT_MS}) per trial, times the trials it may run; at that limit
 * the run stops and the bench fails saying so (Vitest's test timeout is a minute later); `describe` groups and their hooks apply as to any
 * test, and the baseline key is the full name (`describe > … > name`).
 */
export const llm: BenchLlm = Object.assign(register('run'), {
  skip: register('skip'),
  only: register('only'),
  skipIf: (condition: unknown) => register(condition ? 'skip' : 'run'),
  runIf: (condition: unknown) => register(condition ? 'run' : 'skip'),
  sweep,
  compare: compareBench,
})

/** `bench.llm` and its variants. */
export const bench = { llm }
