export type { BaselineEntry, LatencyMetric, ThroughputMetric } from './baseline-entry.ts'
export { baselineEntryFrom } from './baseline-entry.ts'
export type { BaselineEnvironment } from './baseline-environment.ts'
export { formatBaselineFile, parseBaselineFile } from './baseline-file.ts'
export { baselinePathFor } from './baseline-path.ts'
export { BaselineStore, baselineMismatchOf } from './baseline-store.ts'
export type { BaselineMatch } from './baseline-store.ts'
export { compare, judgedRunOf } from './compare.ts'
export { baselineConfigOf, diffConfigs, hashConfig } from './config-hash.ts'
export type { BaselineConfig } from './config-hash.ts'
export { diffMachine, fingerprintOf } from './fingerprint.ts'
export { closestMachineEntry, describeMachine } from './machine-entries.ts'
export { changedLead, formatVerdict, sampleSizes, verdictLegend, withoutNoted } from './format-verdict.ts'
export { NodeBaselineEnvironment } from './node-baseline-environment.ts'
export type { DiscreteDistribution } from './quantile-bootstrap.ts'
export { bootstrapQuantileDistribution, minSamplesForQuantile } from './quantile-bootstrap.ts'
export { ratioInterval } from './ratio-interval.ts'
export type { ParsedRegressionPolicy, RegressionPolicy } from './regression-policy.ts'
export {
  DEFAULT_CONFIDENCE,
  DEFAULT_PARSED_POLICY,
  DEFAULT_REGRESSION_POLICY,
  defaultRegressionPolicy,
  isParsedPolicy,
  parseRegressionPolicy,
} from './regression-policy.ts'
export { asParsedPolicy, restoreParsedPolicy } from './parsed-policy.ts'
export { roundFigure, roundFigures } from './stable-json.ts'
export type { ThroughputSeries } from './throughput-noise.ts'
export { throughputNoiseOf, throughputSeriesFromRequests, throughputSeriesOf } from './throughput-noise.ts'
export { decideMissingBaseline, resolveUpdateMode } from './update-mode.ts'
export type { UpdateMode } from './update-mode.ts'
export type { Check, Verdict } from './verdict.ts'
export { spreadNotes } from './spread-notes.ts'
export { softwareChanges } from './software-changes.ts'
export { describeServerChange, serverContextOf } from './server-context.ts'
export { pooledSpread, supportedTolerance, trialInterval } from './trial-interval.ts'
export { undecidableGates } from './gate-warnings.ts'
