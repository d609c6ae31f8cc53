export type { PairedCheck, PairLimits, PairRatio } from './paired-verdict.ts'
export { counterbalancedOrder, judgePairedGate, nextPair } from './paired-verdict.ts'
export { lookConfidence } from './sequential-boundary.ts'
export type { AdjustableCheck, JudgedRun } from './verdict-adjusters.ts'
export { adjustChecks, VERDICT_ADJUSTERS } from './verdict-adjusters.ts'
export { beyondMoreTrials, compare, judgedRunOf } from './compare.ts'
export { changedLead, formatVerdict, sampleSizes, verdictLegend, withoutNoted } from './format-verdict.ts'
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
export type { Check, Verdict } from './verdict.ts'
export { spreadNotes } from './spread-notes.ts'
export { pooledSpread, supportedTolerance, trialInterval } from './trial-interval.ts'
export { undecidableGates } from './gate-warnings.ts'
export type { OnInconclusive } from './inconclusive-rule.ts'
export { parseOnInconclusive } from './inconclusive-rule.ts'
