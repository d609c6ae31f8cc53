import type { TestContext } from 'vitest'
import { assertionError } from '../bench/run-bench.ts'
import { planCompare, type BenchCompareOptions, type ComparePlan } from '../bench/compare-bench-options.ts'
import { runCompareBench, type CompareResult } from '../bench/compare-bench.ts'
import { benchNameOf } from './bench-name.ts'
import { forwardSteps } from './bench-progress.ts'
import { injectProvided } from './inject-provided.ts'
import { benchRegistrar } from './register-bench.ts'

export type { BenchCompareOptions }

/**
 * The body of a `bench.llm.compare` test (exported for tests): runs the pairs, puts the result on
 * `ctx.task.meta.llmBenchCompare` (the console reporter prints its table), and throws an
 * `LlmBenchAssertionError` naming every failed gate.
 */
export async function runCompare(ctx: TestContext, options: BenchCompareOptions, plan: ComparePlan): Promise<void> {
  const shared = injectProvided()
  const controller = new AbortController()
  ctx.signal?.addEventListener('abort', () => controller.abort(ctx.signal.reason), { once: true })
  const name = benchNameOf(ctx.task)
  const steps = shared.progress ? forwardSteps(ctx.task) : undefined
  const { result, failure } = await runCompareBench({
    name,
    file: ctx.task.file.filepath,
    options,
    plan,
    signal: controller.signal,
    shared: { url: shared.serverUrl, server: shared.server },
    ...(steps ? { log: steps.log } : {}),
  }).finally(() => steps?.settle())
  // The console reporter prints the table and its notes from the result, once, failed or not.
  ctx.task.meta.llmBenchCompare = result
  if (failure) throw assertionError(failure)
}

/** Registers one comparison: `bench.llm.compare(name, options)`. */
export type BenchCompareFn = (name: string, options: BenchCompareOptions) => void

const register = benchRegistrar<BenchCompareOptions, ComparePlan>({
  plan: (name, options) => planCompare(name, options),
  run: runCompare,
  defaultTimeoutMs: 0,
  // The plan holds the timeout (the budget plus the last pair), where its default lives.
  wholeTimeoutMs: (plan) => plan.timeoutMs,
  skippedInArms: 'compare',
})

/** `bench.llm.compare` with its variants. */
export interface BenchCompare extends BenchCompareFn {
  skip: BenchCompareFn
  only: BenchCompareFn
}

/**
 * `bench.llm.compare(name, { variants, control, workload, load, baseline, pairs, budgetMs })`: a
 * Vitest test that measures the same load on every variant's server side by side, in
 * counterbalanced pairs on freshly started servers, and judges each variant against the control
 * on the pairs' ratios (pass, fail, or inconclusive with how many more pairs would decide). No
 * stored baseline is read or written. The result is on `task.meta.llmBenchCompare`.
 */
export const compareBench: BenchCompare = Object.assign(register('run'), {
  skip: register('skip'),
  only: register('only'),
})

declare module 'vitest' {
  interface TaskMeta {
    llmBenchCompare?: CompareResult
  }
}

declare module './bench-llm.ts' {
  interface BenchLlm {
    /** Variants side by side: see {@link BenchCompareOptions}. */
    compare: BenchCompare
  }
}
