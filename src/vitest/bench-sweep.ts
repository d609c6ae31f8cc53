import type { TestContext } from 'vitest'
import { assertionError } from '../bench/run-bench.ts'
import {
  DEFAULT_SWEEP_TIMEOUT_MS,
  validateBenchSweepOptions,
  type BenchSweepOptions,
} from '../bench/sweep-bench-options.ts'
import { runSweepBenchmark } from '../bench/sweep-bench.ts'
import { withUpdateCommand } from '../bench/with-update-command.ts'
import { benchNameOf } from './bench-name.ts'
import { forwardProgress } from './bench-progress.ts'
import { injectProvided } from './inject-provided.ts'
import { benchRegistrar } from './register-bench.ts'
import { benchUpdateCommand } from './update-command.ts'

export { DEFAULT_SWEEP_TIMEOUT_MS }
export type { BenchSweepOptions }

/**
 * The body of a `bench.llm.sweep` test (exported for tests): runs the sweep bench, puts the result
 * on `ctx.task.meta.llmBenchSweep`, and throws an `LlmBenchAssertionError` naming every failed check.
 */
export async function runSweepBench(ctx: TestContext, options: BenchSweepOptions): Promise<void> {
  const controller = new AbortController()
  ctx.signal?.addEventListener('abort', () => controller.abort(ctx.signal.reason), { once: true })
  const provided = injectProvided()
  const progress = provided.progress ? forwardProgress(ctx.task) : undefined
  const { meta, failure } = await runSweepBenchmark({
    name: benchNameOf(ctx.task),
    file: ctx.task.file.filepath,
    options,
    provided,
    signal: controller.signal,
    ...(progress ? { onProgress: progress.onProgress } : {}),
  }).finally(() => progress?.settle())
  ctx.task.meta.llmBenchSweep = meta
  // Messages that suggest an update name this sweep's own command, not `vitest bench -u` (every bench).
  if (failure) throw assertionError(withUpdateCommand(failure, benchUpdateCommand(ctx.task)))
}

/** Registers one sweep: `bench.llm.sweep(name, options)`. */
export type BenchSweepFn = (name: string, options: BenchSweepOptions) => void

const register = benchRegistrar<BenchSweepOptions, void>({
  plan: validateBenchSweepOptions,
  run: runSweepBench,
  defaultTimeoutMs: DEFAULT_SWEEP_TIMEOUT_MS,
  skippedInArms: 'sweep',
})

/** `bench.llm.sweep` with its variants. */
export interface BenchSweep extends BenchSweepFn {
  /** Registers the sweep as skipped; its baseline entry is kept. */
  skip: BenchSweepFn
  /** Runs only this sweep (and other `.only` tests) in its file. */
  only: BenchSweepFn
}

/**
 * `bench.llm.sweep(name, options)`: a Vitest test that runs one benchmark per point of a curve
 * (`over`), searches the highest rate within latency limits (`capacity`), or runs an MLPerf
 * scenario (`scenario`); finds the knee; records the curve as one baseline entry keyed by the
 * test's full name; and fails on `expect` assertions, an invalid scenario, or a missing or
 * mismatched baseline (as `bench.llm` does). The result is on `task.meta.llmBenchSweep`.
 */
export const sweep: BenchSweep = Object.assign(register('run'), { skip: register('skip'), only: register('only') })

declare module './bench-llm.ts' {
  interface BenchLlm {
    /** Curves, capacity searches and MLPerf scenarios: see {@link BenchSweepOptions}. */
    sweep: BenchSweep
  }
}
