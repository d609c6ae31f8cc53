export { runScenario } from './run-scenario.ts'
export type { ScenarioOptions } from './run-scenario.ts'
export {
  offlineScenario,
  SCENARIO_DEFAULTS,
  SCENARIO_NAMES,
  serverLimits,
  serverScenario,
  singleStreamScenario,
} from './scenario-spec.ts'
export type { OfflineScenario, ScenarioSpec, ServerScenario, SingleStreamScenario } from './scenario-spec.ts'
export { validateScenario } from './validate-scenario.ts'
