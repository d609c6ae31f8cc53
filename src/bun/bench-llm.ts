import { test } from 'bun:test'
import { createStandaloneBenchLlm } from '../bench/standalone-bench-llm.ts'
import type { StandaloneBenchLlm } from '../bench/standalone-bench-llm.ts'

/**
 * `bench.llm(name, options)` for `bun test`: registers a `bun:test` test that runs the benchmark
 * and judges it against its SLOs and the baseline in `__llm_baselines__/` beside the bench file,
 * exactly as the Vitest `bench.llm` does (same options, files and verdicts). The baseline key is
 * `name` as given. Update baselines with `LLM_BENCH_UPDATE=1 bun test` (Bun has no `-u` for them).
 */
export const llm: StandaloneBenchLlm = createStandaloneBenchLlm(
  (mode, name, fn, timeoutMs) => {
    if (mode === 'skip') test.skip(name, fn, timeoutMs)
    else if (mode === 'only') test.only(name, fn, timeoutMs)
    else test(name, fn, timeoutMs)
  },
  { updateCommand: 'LLM_BENCH_UPDATE=1 bun test' },
)

/** `bench.llm` and its variants. */
export const bench = { llm }
