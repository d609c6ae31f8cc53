// `vitest-llm-bench/sim`: the built-in simulator of an OpenAI-compatible server. Listed in docs/api.md.
// First, for its side effect: a Node.js too old stops the import here, saying which it found.
import '../core/platform/supported-node.ts'
export { startSimulator } from './server.ts'
export { simulatorCapacity } from './capacity.ts'
export type { SimulatorCapacity, SimulatorWorkloadShape } from './capacity.ts'
export { SIMULATOR_DEFAULTS } from './options.ts'
export type { SimulatorOptions, SimulatorFaultOptions } from './options.ts'
export type {
  RunningSimulator,
  SimulatorHistogramSnapshot,
  SimulatorMetricsSnapshot,
  SimulatorScheduleEntry,
  SimulatorStats,
} from './types.ts'
