// `vitest-llm-bench/deno`: bench.llm for `deno test`, plus what a bench file uses beside it.
// Every name here is listed in docs/api.md.
export { bench } from './bench-llm.ts'
export { simulator } from '../bench/bench-options.ts'
export type { BenchLlmOptions, BenchServer, SimulatorSpec } from '../bench/bench-options.ts'
export type {
  StandaloneBenchLlm,
  StandaloneBenchFn,
  StandaloneCompare,
  StandaloneCompareFn,
  StandaloneSweep,
  StandaloneSweepFn,
} from '../bench/standalone-bench-llm.ts'
export type { BenchSweepOptions } from '../bench/sweep-bench-options.ts'
export type { BenchCompareOptions } from '../bench/compare-bench-options.ts'
export { command, connect, llamaCpp, sglang, vllm } from '../core/server/index.ts'
