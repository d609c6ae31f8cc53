export type { BaselineEntry, BaselineEntryOptions, LatencyBaseline, LatencyMetric, ThroughputBaseline, ThroughputMetric } from './baseline-entry.ts'
export { baselineEntryFrom, HISTOGRAM_KEY, LATENCY_METRICS, MAX_STORED_CONFIG_CHARS, THROUGHPUT_METRICS } from './baseline-entry.ts'
export type { BaselineEnvironment } from './baseline-environment.ts'
export type { BaselineFile } from './baseline-file.ts'
export { BASELINE_SCHEMA_VERSION, formatBaselineFile, parseBaselineFile } from './baseline-file.ts'
export { BASELINE_DIR, baselinePathFor } from './baseline-path.ts'
export type { BaselineLookup, BaselineMatch, BaselineSaveSummary, BaselineStoreOptions } from './baseline-store.ts'
export { baselineMismatchOf, BaselineStore } from './baseline-store.ts'
export type { CompareOptions } from './compare.ts'
export { compare, MIN_SAMPLES_FOR_MEAN } from './compare.ts'
export type { BaselineConfig } from './config-hash.ts'
export { baselineConfigOf, diffConfigs, hashConfig } from './config-hash.ts'
export type { Fingerprint } from './fingerprint.ts'
export { diffFingerprints, fingerprintOf } from './fingerprint.ts'
export { formatFigure, formatVerdict } from './format-verdict.ts'
export { NodeBaselineEnvironment } from './node-baseline-environment.ts'
export type { DiscreteDistribution, HistogramBuckets } from './quantile-bootstrap.ts'
export { bootstrapQuantileDistribution, bucketsOf, minSamplesForQuantile, quantileRank } from './quantile-bootstrap.ts'
export { ratioInterval } from './ratio-interval.ts'
export type {
  LatencyPolicy,
  LatencyRule,
  LatencyStatistic,
  LatencyTolerance,
  ParsedRegressionPolicy,
  RegressionPolicy,
  ThroughputRule,
  ThroughputTolerance,
} from './regression-policy.ts'
export {
  DEFAULT_ASSUMED_THROUGHPUT_NOISE,
  DEFAULT_CONFIDENCE,
  DEFAULT_REGRESSION_POLICY,
  DEFAULT_THROUGHPUT_NOISE_FLOOR,
  LATENCY_STATISTICS,
  parseRegressionPolicy,
  parseTolerance,
} from './regression-policy.ts'
export { BASELINE_SIGNIFICANT_DIGITS, formatStableJson, roundFigure, roundFigures, stableStringify } from './stable-json.ts'
export type { ThroughputNoise, ThroughputSeries } from './throughput-noise.ts'
export {
  MIN_THROUGHPUT_WINDOWS,
  THROUGHPUT_WINDOW_MS,
  throughputNoiseOf,
  throughputNoiseOfSeries,
  throughputSeriesFromRequests,
  throughputSeriesOf,
} from './throughput-noise.ts'
export type { MissingBaselineDecision, UpdateMode } from './update-mode.ts'
export { decideMissingBaseline, resolveUpdateMode } from './update-mode.ts'
export type { Check, Verdict, VerdictStatus } from './verdict.ts'
export { spreadNotes } from './spread-notes.ts'
export { describeServerChange, SERVER_CONTEXT_FIELDS, serverContextOf, type ServerContext, type ServerContextField } from './server-context.ts'
export { figuresOf, pooledSpread, supportedTolerance, trialInterval } from './trial-interval.ts'
export type { TrialFigure, TrialInterval, TrialSpread } from './trial-interval.ts'
export { undecidableGates } from './gate-warnings.ts'
