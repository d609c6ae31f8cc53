// `vitest-llm-bench/sim`: the built-in simulator of an OpenAI-compatible server. Listed in docs/api.md.
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
