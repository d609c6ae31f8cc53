export { checkTarget, resolveBenchmark, validateOptions } from './resolve-benchmark.ts'
export type { BenchmarkPlan } from './resolve-benchmark.ts'
export { planRun } from './run-plan.ts'
export type { RunPlan } from './run-plan.ts'
