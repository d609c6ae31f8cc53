import type { TrialFigures } from '../contract/result.ts'
import type { LatencyMetric, ThroughputMetric } from '../baseline/baseline-entry.ts'
import type { LatencyStatistic } from './regression-policy.ts'
import { studentTQuantile } from './special-functions.ts'

/** Which figure of a trial a check compares. */
export type TrialFigure =
  { metric: LatencyMetric; statistic: LatencyStatistic } | { metric: ThroughputMetric; statistic: 'value' }

/** The figure of each trial (skipping trials where it is missing or not > 0). */
export function figuresOf(trials: readonly TrialFigures[], figure: TrialFigure): number[] {
  const values = trials.map((trial) => {
    if (figure.statistic === 'value') return trial.throughput[figure.metric as ThroughputMetric]
    // A latency reported only where measured (TTFO) is absent from trials that could not measure it.
    const latency = trial.latency[figure.metric as LatencyMetric]
    return latency !== undefined && latency.count > 0 ? latency[figure.statistic] : Number.NaN
  })
  return values.filter((value) => Number.isFinite(value) && value > 0)
}

function meanOf(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length
}

/** Between-trial spread of a figure: the standard deviation of its logarithm across trials and its degrees of freedom. */
export interface TrialSpread {
  /** Standard deviation of ln(figure) across trials (≈ the relative spread of one trial). */
  logStdDev: number
  /** Degrees of freedom behind it (trials - 1 per side). */
  df: number
}

/** The pooled between-trial spread of the two sides; undefined when neither side has two trials. */
export function pooledSpread(baseline: readonly number[], current: readonly number[]): TrialSpread | undefined {
  const df = Math.max(0, baseline.length - 1) + Math.max(0, current.length - 1)
  if (df === 0) return undefined
  const squares = (values: readonly number[]): number => {
    if (values.length < 2) return 0
    const logs = values.map(Math.log)
    const mean = meanOf(logs)
    return logs.reduce((sum, v) => sum + (v - mean) ** 2, 0)
  }
  return { logStdDev: Math.sqrt((squares(baseline) + squares(current)) / df), df }
}

/** The ratio of the two sides' geometric means and its interval, from the between-trial spread. */
export interface TrialInterval {
  /** Geometric mean of the baseline trials' figure. */
  baseline: number
  /** Geometric mean of the current trials' figure. */
  current: number
  ratio: number
  low: number
  high: number
  spread: TrialSpread
}

/**
 * Interval of current / baseline where each trial is one observation (a fresh server start, another
 * batch phase: the noise one run cannot see): a t interval on ln(figure), with the trials' pooled
 * spread, and never narrower than `withinRunLogSe` (the noise inside the runs, which a few trials
 * that happen to agree would understate).
 */
export function trialInterval(
  baseline: readonly number[],
  current: readonly number[],
  confidence: number,
  withinRunLogSe: number,
): TrialInterval | undefined {
  const spread = pooledSpread(baseline, current)
  if (spread === undefined || baseline.length === 0 || current.length === 0) return undefined
  const mb = meanOf(baseline.map(Math.log))
  const mc = meanOf(current.map(Math.log))
  const se = Math.max(spread.logStdDev * Math.sqrt(1 / baseline.length + 1 / current.length), withinRunLogSe)
  const t = studentTQuantile(1 - (1 - confidence) / 2, spread.df)
  const ratio = Math.exp(mc - mb)
  return {
    baseline: Math.exp(mb),
    current: Math.exp(mc),
    ratio,
    low: ratio * Math.exp(-t * se),
    high: ratio * Math.exp(t * se),
    spread,
  }
}

/**
 * The smallest tolerance at which a run with no change (ratio 1) would pass against `recorded`
 * trials with this spread, when it runs `currentTrials` trials: exp(t × s × √(1/m + 1/k)) - 1.
 */
export function supportedTolerance(
  spread: TrialSpread,
  recorded: number,
  currentTrials: number,
  confidence: number,
): number {
  const df = spread.df + Math.max(0, currentTrials - 1)
  const t = studentTQuantile(1 - (1 - confidence) / 2, df)
  return Math.exp(t * spread.logStdDev * Math.sqrt(1 / recorded + 1 / currentTrials)) - 1
}
