import { inject, test, type TestContext } from 'vitest'
import { runBenchmark } from '../core/run.ts'
import { validateOptions } from '../core/options.ts'
import { validateSloOptions } from '../core/slo/index.ts'
import type { BenchLlmOptions } from './bench-options.ts'
import { acquireTarget } from './bench-target.ts'
import { judgeBench } from './bench-judgement.ts'
import { PROVIDED_KEY, type LlmBenchProvided } from './provided.ts'
import { isCI } from './ci.ts'

/** Default test timeout of a bench, milliseconds. */
export const DEFAULT_BENCH_TIMEOUT_MS = 600_000

function provided(): LlmBenchProvided {
  try {
    const value = inject(PROVIDED_KEY)
    if (value) return value
  } catch {
    // inject() throws outside a Vitest worker that has the plugin: fall through to defaults.
  }
  const ci = isCI()
  return { update: ci ? 'none' : 'new', ci }
}

function fullName(ctx: TestContext): string {
  const names: string[] = []
  let suite = ctx.task.suite
  while (suite && suite.name && suite !== (ctx.task.file as unknown)) {
    names.unshift(suite.name)
    suite = suite.suite
  }
  names.push(ctx.task.name)
  return names.join(' > ')
}

function checkOptionsEarly(name: string, options: BenchLlmOptions): void {
  // Validate what can be validated at collection time, so a typo fails before any server starts.
  validateOptions({ ...options, target: { baseUrl: options.target?.baseUrl ?? 'http://127.0.0.1:1' } })
  if (options.slo) validateSloOptions(options.slo)
  if (typeof name !== 'string' || name === '') throw new TypeError('bench.llm(name, options): name must be a non-empty string.')
}

async function runBench(ctx: TestContext, options: BenchLlmOptions): Promise<void> {
  const shared = provided()
  const acquired = await acquireTarget(options.server, options.target, { url: shared.serverUrl, server: shared.server })
  try {
    const controller = new AbortController()
    ctx.signal?.addEventListener('abort', () => controller.abort(ctx.signal.reason), { once: true })
    const { server: _server, slo: _slo, baseline: _baseline, timeoutMs: _timeout, target: _target, ...rest } = options
    const result = await runBenchmark({ ...rest, target: acquired.target, signal: controller.signal }, acquired.context)
    const judgement = await judgeBench({
      name: fullName(ctx),
      file: ctx.task.file.filepath,
      result,
      slo: options.slo,
      policy: options.baseline === false ? false : (options.baseline ?? (shared.tolerance as BenchLlmOptions['baseline'])),
      provided: shared,
    })
    ctx.task.meta.llmBench = {
      result: { ...result, requests: undefined },
      ...(judgement.verdict ? { verdict: judgement.verdict } : {}),
      ...(judgement.baselinePath ? { baselinePath: judgement.baselinePath } : {}),
      ...(judgement.baselineState ? { baselineState: judgement.baselineState } : {}),
    }
    if (judgement.failure) {
      const error = new Error(judgement.failure)
      error.name = 'LlmBenchAssertionError'
      throw error
    }
  } finally {
    await acquired.release()
  }
}

type BenchLlmFn = (name: string, options: BenchLlmOptions) => void

function register(mode: 'run' | 'skip' | 'only'): BenchLlmFn {
  return (name, options) => {
    checkOptionsEarly(name, options)
    const timeout = options.timeoutMs ?? DEFAULT_BENCH_TIMEOUT_MS
    const fn = (ctx: TestContext) => runBench(ctx, options)
    if (mode === 'skip') test.skip(name, fn, timeout)
    else if (mode === 'only') test.only(name, fn, timeout)
    else test(name, fn, timeout)
  }
}

/**
 * `bench.llm(name, options)`: a Vitest test that runs an LLM serving benchmark, checks its SLOs
 * and compares it with the stored baseline. Use it in `*.bench.ts` files under `vitest bench`.
 */
export const llm: BenchLlmFn & { skip: BenchLlmFn; only: BenchLlmFn } = Object.assign(register('run'), {
  skip: register('skip'),
  only: register('only'),
})

/** `bench.llm` and its variants. */
export const bench = { llm }
