// `vitest-llm-bench/deno`: bench.llm for `deno test`, plus what a bench file uses beside it.
export { bench, llm } from './bench-llm.ts'
export { simulator } from '../bench/bench-options.ts'
export type { BenchLlmOptions, BenchServer, SimulatorSpec } from '../bench/bench-options.ts'
export { UPDATE_ENV, BASELINE_DIR_ENV } from '../bench/standalone-bench.ts'
export type { StandaloneBenchLlm, StandaloneBenchFn } from '../bench/standalone-bench.ts'
export { command, connect, llamaCpp, sglang, vllm } from '../core/server/index.ts'
