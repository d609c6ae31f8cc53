// `vitest-llm-bench`: what a bench file and a Vitest config use: bench.llm, the plugin, the server
// presets and the matchers, and runBenchmark. Every name here is listed in docs/api.md.
// First, for their side effects: a Node.js too old or an unsupported Vitest stops the import here, saying which it found.
import './core/platform/supported-node.ts'
import './vitest/supported-vitest.ts'
export { bench, installMatchers, llmBench, llmBenchMatchers, simulator } from './vitest/index.ts'
export type * from './vitest/index.ts'
export { command, connect, llamaCpp, sglang, vllm } from './core/server/index.ts'
export type { ServerSpec, LaunchSpec, ConnectSpec, PresetOptions } from './core/server/index.ts'
export { runBenchmark } from './core/run.ts'
export type * from './core/index.ts'
