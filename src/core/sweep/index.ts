export { runSweep } from './run-sweep.ts'
export { searchCapacity } from './capacity-search.ts'
export { nextSearchRate } from './sweep-profiles.ts'
export type { CapacitySearch, CapacitySearchOptions } from './capacity-options.ts'
export { CAPACITY_DEFAULTS } from './capacity-options.ts'
export type {
  BetweenPoints,
  PointTarget,
  SaturationOptions,
  SweepOptions,
  SweepPointLoad,
  SweepPointStart,
} from './sweep-options.ts'
export type { SweepAxis, SweepAxisName, SweepThroughputMetric } from './sweep-axis.ts'
export type {
  CapacityLimits,
  CapacityResult,
  CurveLatency,
  SaturationPoint,
  ScenarioMetric,
  ScenarioName,
  ScenarioOutcome,
  SweepCurvePoint,
  SweepPoint,
  SweepResult,
} from './sweep-result.ts'
export { SWEEP_SCHEMA_VERSION, axisLabelOf } from './sweep-result.ts'
export { findSaturation, DEFAULT_SATURATION_METRIC, DEFAULT_SATURATION_MIN_GAIN } from './saturation.ts'
export { curvePointOf } from './curve-point.ts'
export { checkLatencyLimits, describeLimits, percentileLabel } from './latency-limits.ts'
export type { LatencyLimitCheck, LatencyLimitsOptions, LatencyLimitsOutcome, LatencyOrigin } from './latency-limits.ts'
export {
  earlyStoppingEstimate,
  loadgenOdds,
  loadgenPercentile,
  LOADGEN_CONFIDENCE,
  LOADGEN_TOLERANCE,
  MinPassingQueriesFinder,
  serverEarlyStopping,
} from './early-stopping.ts'
export type { EarlyStoppingEstimate, ServerEarlyStopping } from './early-stopping.ts'
export { sweepBaselineEntryOf, sweepCurveOf } from './sweep-baseline.ts'
export type { SweepBaselineCurve, SweepBaselineEntry } from './sweep-baseline.ts'
export type { LatencyExpectation, SweepExpectations, ThroughputExpectation } from './sweep-expectations.ts'
export { checkSweep, sweepFailureChecks, validateSweepExpectations } from './check-sweep.ts'
export type { SweepCheck } from './check-sweep.ts'
export { adjustSweepChecks, judgedSweepOf } from './sweep-verdict.ts'
export { formatSweepHeadlines, formatSweepTable, shownTailOf } from './format-sweep.ts'
export { axisOf, validateCapacitySearch, validatePointLoad, validateSaturation } from './validate-sweep.ts'
export type { SweptValues } from './validate-sweep.ts'
