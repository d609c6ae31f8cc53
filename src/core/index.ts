// `vitest-llm-bench/core`: benchmarks, sweeps and scenarios from any script (no Vitest), and the
// errors they throw. Every name here is listed in docs/api.md; test/unit/public-api.test.ts holds them to it.
// First, for its side effect: a Node.js too old stops the import here, saying which it found.
import './platform/supported-node.ts'
export { runBenchmark } from './run.ts'
export type { RunContext } from './run.ts'
export { resolveBenchmark, validateOptions } from './plan/index.ts'
export type { BenchmarkPlan, RunConfig, RunPlan } from './plan/index.ts'
export {
  checkSweep,
  formatSweepTable,
  runSweep,
  searchCapacity,
  sweepBaselineEntryOf,
  sweepCurveOf,
} from './sweep/index.ts'
export type * from './sweep/index.ts'
export { offlineScenario, runScenario, serverScenario, singleStreamScenario } from './scenario/index.ts'
export type * from './scenario/index.ts'
export * from './contract/errors.ts'
export type * from './contract/types.ts'
export { detectRuntime } from './platform/runtime.ts'
export type { RuntimeInfo, RuntimeName } from './platform/runtime.ts'
export { compareLlamaTimings } from './server/index.ts'
export type { LlamaTimingPair, LlamaTimingsComparison } from './server/index.ts'
