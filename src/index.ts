// The package's main entry: bench.llm and the Vitest plugin, the server presets, and the core.
// First, for its side effect: an unsupported Vitest stops the import here, saying which it found.
import './vitest/supported-vitest.ts'
export * from './vitest/index.ts'
export { command, connect, llamaCpp, sglang, vllm } from './core/server/index.ts'
export type { ServerSpec, LaunchSpec, ConnectSpec, PresetOptions } from './core/server/index.ts'
export * from './core/index.ts'
