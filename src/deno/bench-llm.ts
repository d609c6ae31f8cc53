import { createStandaloneBenchLlm } from '../bench/standalone-bench-llm.ts'
import type { RegisterTest, StandaloneBenchLlm } from '../bench/standalone-bench-llm.ts'

/** The part of `Deno.test` the adapter uses (Deno's types are not a dependency of this package). */
interface DenoTestDefinition {
  name: string
  fn: () => Promise<void>
  ignore?: boolean
  only?: boolean
  // A bench holds sockets and timers open while a server shuts down; Deno's leak checks would flag them.
  sanitizeOps?: boolean
  sanitizeResources?: boolean
  sanitizeExit?: boolean
}

function denoTest(): (definition: DenoTestDefinition) => void {
  const deno = (globalThis as { Deno?: { test?: (definition: DenoTestDefinition) => void } }).Deno
  if (typeof deno?.test !== 'function') {
    throw new Error(
      'vitest-llm-bench/deno registers Deno.test tests: run the bench file with `deno test`. Under Vitest use `vitest-llm-bench`, under Bun `vitest-llm-bench/bun`.',
    )
  }
  return deno.test.bind(deno)
}

// Deno.test has no per-test timeout: the bench's own abort signal (timeoutMs) stops it.
const registerDenoTest: RegisterTest = (mode, name, fn) => {
  denoTest()({ name, fn, ignore: mode === 'skip', only: mode === 'only', sanitizeOps: false, sanitizeResources: false })
}

/**
 * `bench.llm(name, options)` for `deno test`: registers a `Deno.test` that runs the benchmark and
 * judges it against its SLOs and the baseline in `__llm_baselines__/` beside the bench file,
 * exactly as the Vitest `bench.llm` does (same options, files and verdicts). The baseline key is
 * `name` as given. Update baselines with `LLM_BENCH_UPDATE=1 deno test -A` (no `-u` outside Vitest).
 */
export const llm: StandaloneBenchLlm = createStandaloneBenchLlm(registerDenoTest, {
  updateCommand: 'LLM_BENCH_UPDATE=1 deno test -A',
})

/** `bench.llm` and its variants. */
export const bench = { llm }
