import { describeServerChange, serverContextOf } from '../baseline/server-context.ts'
import { launchChanges, launchOf } from '../baseline/software-changes.ts'
import { diffSoftware, fingerprintOf } from '../baseline/fingerprint.ts'
import { overheadNote } from '../contract/client-overhead-note.ts'
import { decodeHistogram } from '../metrics/histogram.ts'
import { emptySummary } from '../metrics/summarize-histogram.ts'
import type { BenchmarkResult } from '../contract/result.ts'
import { sessionsOf, type BaselineEntry } from '../baseline/baseline-entry.ts'
import { sessionInterval } from './session-interval.ts'
import { METRIC_CATALOG, whyAbsent } from '../contract/metric-catalog.ts'
import type { DiscreteDistribution } from './quantile-bootstrap.ts'
import { bootstrapQuantileDistribution, bucketsOf, minSamplesForQuantile } from './quantile-bootstrap.ts'
import { ratioInterval } from './ratio-interval.ts'
import type { LatencyRule, ParsedRegressionPolicy, ThroughputRule } from './regression-policy.ts'
import { formatFigure, formatSpread } from '../platform/format-figure.ts'
import { normalQuantile, studentTQuantile } from './special-functions.ts'
import type { ThroughputNoise, ThroughputSeries } from '../baseline/throughput-noise.ts'
import { throughputNoiseOfSeries, throughputSeriesOf } from '../baseline/throughput-noise.ts'
import type { Check, Verdict, VerdictStatus } from './verdict.ts'
import { trialFiguresOf, trialsOf } from '../contract/trial-figures.ts'
import { machineSpeedChange } from '../contract/machine-speed.ts'
import { adjustChecks, type JudgedRun } from './verdict-adjusters.ts'
import type { TrialFigure } from './trial-interval.ts'
import { figuresOf, trialInterval } from './trial-interval.ts'

/** Options of {@link compare}. */
export interface CompareOptions {
  /**
   * Per-window totals of the current run, for its throughput noise. Default:
   * `throughputSeriesOf(result)` (its timeline, or its recorded requests); without either, the
   * policy's assumed noise is used.
   */
  throughputSeries?: ThroughputSeries
  /**
   * The baseline is a stored one (`vitest bench` against its baseline file): each check's interval also allows for
   * how far the machine moves between sessions (`sessionsOf`). Not for trials measured side by side.
   */
  stored?: boolean
  /** What an undecided check against a stored baseline advises instead. Default {@link SESSION_ADVICE}. */
  sessionAdvice?: string
}

/** Fewest samples on each side for a verdict on a mean (normal approximation of the sample mean). */
export const MIN_SAMPLES_FOR_MEAN = 30

/** Quantile of each percentile statistic. */
const QUANTILE: Record<string, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 }

const percent = (fraction: number): string => `${Number((fraction * 100).toPrecision(4))}%`
const fixed = (value: number): string => value.toFixed(3)

/** The figures of a latency one side did not report (one reported only where measured). */
const NOT_MEASURED = emptySummary()

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null
}

/** Pass, fail or inconclusive from an interval of the ratio and its limit. */
function judge(
  ciLow: number,
  ciHigh: number,
  limit: number,
  direction: 'increase' | 'decrease',
  confidence: number,
): { status: VerdictStatus; reason?: string } {
  const beyond = direction === 'increase' ? ciLow > limit : ciHigh < limit
  const within = direction === 'increase' ? ciHigh <= limit : ciLow >= limit
  if (beyond) return { status: 'fail' }
  if (within) return { status: 'pass' }
  return {
    status: 'inconclusive',
    reason: `the ${percent(confidence)} interval [${fixed(ciLow)}, ${fixed(ciHigh)}] contains the limit ${fixed(limit)}: more samples would narrow it`,
  }
}

function latencyCheck(
  rule: LatencyRule,
  baseline: BaselineEntry,
  result: BenchmarkResult,
  confidence: number,
  distributions: Map<string, DiscreteDistribution | undefined>,
): Check {
  // A latency reported only where measured (TTFO) may be missing on either side: no samples there.
  const before = baseline.metrics[rule.metric] ?? NOT_MEASURED
  const after = result.metrics[rule.metric] ?? NOT_MEASURED
  const check: Check = {
    metric: rule.metric,
    statistic: rule.statistic,
    unit: 'ms',
    baseline: before[rule.statistic],
    current: after[rule.statistic],
    ratio: finiteOrNull(after[rule.statistic] / before[rule.statistic]),
    ciLow: null,
    ciHigh: null,
    tolerance: rule.tolerance,
    n: { baseline: before.count, current: after.count },
    status: 'inconclusive',
  }
  const inconclusive = (reason: string): Check => ({ ...check, status: 'inconclusive', reason })
  if (before.count === 0 || after.count === 0) {
    const [side, empty] = before.count === 0 ? ['the baseline', before] : ['this run', after]
    const why = empty === NOT_MEASURED ? ` (${whyAbsent(rule.metric)})` : ''
    return inconclusive(`no ${rule.metric} samples in ${side}${why}`)
  }
  if (!(before[rule.statistic] > 0)) return inconclusive(`the baseline ${rule.statistic} is 0: no ratio to compare`)
  const limit = 1 + rule.tolerance
  if (rule.statistic === 'mean') {
    if (before.count < MIN_SAMPLES_FOR_MEAN || after.count < MIN_SAMPLES_FOR_MEAN) {
      return inconclusive(
        `mean needs at least ${MIN_SAMPLES_FOR_MEAN} samples, got ${Math.min(before.count, after.count)} (baseline ${before.count}, current ${after.count})`,
      )
    }
    // Delta method on log(mean ratio): the relative standard errors of the two means add in quadrature.
    const se = Math.sqrt(
      (before.stddev / before.mean) ** 2 / before.count + (after.stddev / after.mean) ** 2 / after.count,
    )
    const z = normalQuantile(1 - (1 - confidence) / 2)
    const ratio = after.mean / before.mean
    const ciLow = ratio * Math.exp(-z * se)
    const ciHigh = ratio * Math.exp(z * se)
    return { ...check, ciLow, ciHigh, ...judge(ciLow, ciHigh, limit, 'increase', confidence) }
  }
  const quantile = QUANTILE[rule.statistic] ?? 0.5
  const needed = minSamplesForQuantile(quantile, confidence)
  if (before.count < needed || after.count < needed) {
    return inconclusive(
      `${rule.statistic} needs at least ${needed} samples for a ${percent(confidence)} interval, got ${Math.min(before.count, after.count)} (baseline ${before.count}, current ${after.count})`,
    )
  }
  const { histogram: key, unitsPerValue } = METRIC_CATALOG[rule.metric]
  const distributionOf = (
    side: 'baseline' | 'current',
    encoded: string | undefined,
  ): DiscreteDistribution | undefined => {
    const cacheKey = `${side}/${rule.metric}/${rule.statistic}`
    if (!distributions.has(cacheKey)) {
      const buckets = encoded === undefined ? undefined : bucketsOf(decodeHistogram(encoded), unitsPerValue)
      distributions.set(
        cacheKey,
        buckets && buckets.total > 0 ? bootstrapQuantileDistribution(buckets, quantile) : undefined,
      )
    }
    return distributions.get(cacheKey)
  }
  const baselineDistribution = distributionOf('baseline', baseline.histograms[key])
  const currentDistribution = distributionOf('current', result.histograms[key])
  if (!baselineDistribution || !currentDistribution) {
    const side = !baselineDistribution ? 'the baseline' : 'this run'
    return inconclusive(`no ${key} histogram in ${side}, so the noise of ${rule.statistic} cannot be estimated`)
  }
  const { low: ciLow, high: ciHigh } = ratioInterval(currentDistribution, baselineDistribution, confidence)
  return { ...check, ciLow, ciHigh, ...judge(ciLow, ciHigh, limit, 'increase', confidence) }
}

/** Relative standard error and degrees of freedom of one side's throughput. */
function noiseOf(
  measured: ThroughputNoise | undefined,
  policy: ParsedRegressionPolicy,
): { se: number; df: number; windows: number } {
  if (measured === undefined) return { se: policy.assumedThroughputNoise, df: Number.POSITIVE_INFINITY, windows: 1 }
  return {
    se: Math.max(measured.relativeStdError, policy.throughputNoiseFloor),
    df: measured.batches - 1,
    windows: measured.windows,
  }
}

function throughputCheck(
  rule: ThroughputRule,
  baseline: BaselineEntry,
  result: BenchmarkResult,
  policy: ParsedRegressionPolicy,
  currentNoise: ThroughputNoise | undefined,
): Check {
  const stored = baseline.throughput[rule.metric]
  const before = stored.value
  const after = result.throughput[rule.metric]
  const baselineNoise =
    stored.relativeStdError !== undefined
      ? { relativeStdError: stored.relativeStdError, windows: stored.windows ?? 1, batches: stored.batches ?? 2 }
      : undefined
  const b = noiseOf(baselineNoise, policy)
  const c = noiseOf(currentNoise, policy)
  const check: Check = {
    metric: rule.metric,
    statistic: 'value',
    unit: rule.metric === 'requestsPerSec' ? 'req/s' : 'tok/s',
    baseline: before,
    current: after,
    ratio: finiteOrNull(after / before),
    ciLow: null,
    ciHigh: null,
    tolerance: -rule.tolerance,
    n: { baseline: b.windows, current: c.windows },
    status: 'inconclusive',
  }
  if (!(before > 0)) return { ...check, reason: `the baseline ${rule.metric} is 0: no ratio to compare` }
  const assumed = [baselineNoise ? undefined : 'the baseline', currentNoise ? undefined : 'this run'].filter(Boolean)
  const note =
    assumed.length > 0
      ? `assumed ${percent(policy.assumedThroughputNoise)} relative noise for ${assumed.join(' and ')} (no per-window series of at least 10 windows; record requests to measure it)`
      : undefined
  const limit = 1 - rule.tolerance
  const ratio = after / before
  if (!(ratio > 0)) {
    return { ...check, ciLow: 0, ciHigh: 0, status: 'fail', reason: `this run's ${rule.metric} is 0` }
  }
  // Welch-Satterthwaite degrees of freedom for the sum of the two relative variances (an
  // assumed noise counts as known exactly: infinite degrees of freedom).
  const vb = b.se ** 2
  const vc = c.se ** 2
  const denominator = (Number.isFinite(b.df) ? vb ** 2 / b.df : 0) + (Number.isFinite(c.df) ? vc ** 2 / c.df : 0)
  const df = denominator > 0 ? (vb + vc) ** 2 / denominator : Number.POSITIVE_INFINITY
  const q = studentTQuantile(1 - (1 - policy.confidence) / 2, df)
  const se = Math.sqrt(vb + vc)
  const ciLow = ratio * Math.exp(-q * se)
  const ciHigh = ratio * Math.exp(q * se)
  const judged = judge(ciLow, ciHigh, limit, 'decrease', policy.confidence)
  const reason = [judged.reason, note].filter(Boolean).join('; ')
  return { ...check, ciLow, ciHigh, status: judged.status, ...(reason ? { reason } : {}) }
}

/**
 * The check judged with each trial as one observation, when either side ran several trials (the
 * baseline's recorded trials, this run's extra ones): the interval then holds the between-run
 * noise a single run cannot see. Unchanged when there is nothing to estimate that spread from.
 */
function withTrials(
  check: Check,
  figure: TrialFigure,
  baseline: BaselineEntry,
  result: BenchmarkResult,
  confidence: number,
): Check {
  const before = figuresOf(baseline.trials ?? [], figure)
  const after = figuresOf(trialsOf(result), figure)
  const z = normalQuantile(1 - (1 - confidence) / 2)
  const withinRunLogSe =
    check.ciLow !== null && check.ciHigh !== null && check.ciLow > 0
      ? Math.log(check.ciHigh / check.ciLow) / (2 * z)
      : 0
  const interval = trialInterval(before, after, confidence, withinRunLogSe)
  if (interval === undefined) return check
  const direction = check.tolerance >= 0 ? 'increase' : 'decrease'
  const judged = judge(interval.low, interval.high, 1 + check.tolerance, direction, confidence)
  const spread = `between-trial spread ${formatSpread(Math.exp(interval.spread.logStdDev) - 1)} over ${before.length} baseline and ${after.length} current trials`
  const reason = judged.status === 'inconclusive' ? `${judged.reason ?? ''}; ${spread}` : spread
  return {
    ...check,
    baseline: interval.baseline,
    current: interval.current,
    ratio: interval.ratio,
    ciLow: interval.low,
    ciHigh: interval.high,
    trials: { baseline: before.length, current: after.length },
    status: judged.status,
    reason,
  }
}

/** Why more trials of this run cannot decide a check whose allowance for sessions contains its limit. */
const SESSIONS_SET_WIDTH = 'an allowance that spans the limit by itself: more samples cannot narrow it'

/**
 * Why more trials of this run cannot decide a check judged against a stored baseline, or undefined when they may:
 * the allowance for one more session contains the limit by itself, and trials narrow only the trials' part of the
 * interval. (The figure could still move, but its interval stays this wide: on the examples, a second trial of each
 * bench took a third of the run and decided nothing.) The stored-baseline twin of `beyondMorePairs`.
 */
export function beyondMoreTrials(check: Check): string | undefined {
  if (check.status !== 'inconclusive' || check.sessions?.containsLimit !== true) return undefined
  return SESSIONS_SET_WIDTH
}

/** What decides instead of a stored baseline when the machine moves more than a gate's tolerance. */
export const SESSION_ADVICE =
  'decide it side by side with `npx vitest-llm-bench ab --base <ref>`, or count more sessions on this machine (`LLM_BENCH_ADD_SESSION=1 npx vitest bench`)'

/**
 * A check against a stored baseline, its interval widened to allow for one more session of the machine (see
 * `sessionInterval`): an unchanged run lands within it however the machine moved since the recording. Unchanged
 * without an interval to widen.
 */
function withSessions(
  check: Check,
  figure: TrialFigure,
  baseline: BaselineEntry,
  result: BenchmarkResult,
  policy: ParsedRegressionPolicy,
  advice: string,
): Check {
  const { confidence } = policy
  if (check.ciLow === null || check.ciHigh === null) return check
  const stored = figuresOf(
    sessionsOf(baseline).map((session) => session.figures),
    figure,
  )
  const [current] = figuresOf([trialFiguresOf(result)], figure)
  const interval = sessionInterval(stored, current ?? Number.NaN, confidence, policy.assumedSessionSpread)
  // An assumed spread of 0: one recording's trials are trusted alone, as before sessions.
  if (interval === undefined || (interval.spread.assumed && interval.spread.logStdDev === 0)) return check
  const { spread } = interval
  const relative = Math.exp(spread.logStdDev) - 1
  const limit = 1 + check.tolerance
  const containsLimit = interval.low <= limit && limit <= interval.high
  const sessions = { count: spread.sessions, spread: relative, assumed: spread.assumed, containsLimit }
  const low = Math.min(check.ciLow, interval.low)
  const high = Math.max(check.ciHigh, interval.high)
  const judged = judge(low, high, limit, check.tolerance >= 0 ? 'increase' : 'decrease', confidence)
  const said = spread.assumed
    ? `between-session spread not known yet (${spread.sessions} session${spread.sessions === 1 ? '' : 's'} stored): assumed ${formatSpread(relative)}`
    : `between-session spread ${formatSpread(relative)} over ${spread.sessions} sessions`
  // The allowance for sessions alone spans the limit: more samples cannot narrow it, and the reason says so (in
  // words the same for every such check, so the console lists them on one line; the table shows each interval).
  const reason =
    judged.status !== 'inconclusive'
      ? [check.reason, said].filter(Boolean).join('; ')
      : containsLimit
        ? `${said}, ${SESSIONS_SET_WIDTH}; ${advice}`
        : `${judged.reason ?? ''}; ${said}: ${advice}`
  return { ...check, ciLow: low, ciHigh: high, status: judged.status, sessions, reason }
}

function overallStatus(checks: readonly Check[]): VerdictStatus {
  if (checks.some((check) => check.status === 'fail')) return 'fail'
  if (checks.some((check) => check.status === 'inconclusive')) return 'inconclusive'
  return 'pass'
}

/**
 * The p99 of each gated latency that the policy does not gate at p99, as a ratio for people to read: a
 * relative tail between runs moves too much to gate by default (docs/verdicts.md), and an absolute SLO judges it.
 */
function ungatedTails(
  parsed: ParsedRegressionPolicy,
  baseline: BaselineEntry,
  result: BenchmarkResult,
): string | undefined {
  const metrics = [...new Set(parsed.latency.map((rule) => rule.metric))].filter(
    (metric) => !parsed.latency.some((rule) => rule.metric === metric && rule.statistic === 'p99'),
  )
  const shown = metrics.flatMap((metric) => {
    const before = baseline.metrics[metric]
    const now = result.metrics[metric]
    if (!before || !now || before.count === 0 || now.count === 0 || before.p99 <= 0) return []
    const ratio = now.p99 / before.p99
    return [`${metric} p99 ${ratio.toFixed(2)}x (${formatFigure(before.p99)} -> ${formatFigure(now.p99)} ms)`]
  })
  if (shown.length === 0) return undefined
  return `Tails, shown and not gated: ${shown.join(', ')}. A p99 between two runs moves tens of percent on its own; limit it with an SLO (\`slo: { ttftMs: { p99: <ms> } }\`), decided on its bound within the run.`
}

/**
 * What the verdict's downgrade rules read of a run judged against `baseline`: its client's health and self-check,
 * a machine slower than when the baseline was recorded (as a disturbance), and whether the baseline is provisional.
 */
export function judgedRunOf(
  result: Pick<BenchmarkResult, 'client'>,
  baseline: Pick<BaselineEntry, 'selfCheck' | 'provisional'>,
): JudgedRun {
  const { client } = result
  const speed = machineSpeedChange(baseline.selfCheck, client.selfCheck)
  const why = client.keptUp === false ? client.warnings[0] : undefined
  const steal = client.selfCheck?.stealShare
  return {
    keptUp: client.keptUp !== false,
    ...(why !== undefined ? { keptUpWarning: why } : {}),
    ...(client.lateness ? { lateness: client.lateness } : {}),
    ...(steal !== undefined ? { stealShare: steal } : {}),
    disturbed: [...(client.selfCheck?.disturbed ?? []), ...(speed ? [speed] : [])],
    ...(baseline.provisional !== undefined ? { baselineProvisional: baseline.provisional } : {}),
  }
}

/**
 * Compares a run with its baseline under a parsed policy (`parseRegressionPolicy`, once per bench:
 * the verdict takes no policy as written). Latency quantiles: the exact bootstrap
 * distribution of each side's quantile from its stored histogram, and the central interval of
 * their ratio; quantiles with too few samples for a distribution-free interval are inconclusive.
 * Means: normal approximation. Throughputs: the run-level ratio with the noise of both runs (see
 * docs/verdicts.md). A check fails only when its whole interval lies beyond the tolerance.
 *
 * Does not check the machine or the config: `BaselineStore.match` does that first. What changed in the
 * software under test (server, version, model) is compared and named in `Verdict.changed`.
 *
 * @throws {MetricsDataError} when a stored histogram does not decode.
 */
export function compare(
  baseline: BaselineEntry,
  result: BenchmarkResult,
  parsed: ParsedRegressionPolicy,
  options: CompareOptions = {},
): Verdict {
  const distributions = new Map<string, DiscreteDistribution | undefined>()
  const sessions = (check: Check, figure: TrialFigure): Check =>
    options.stored
      ? withSessions(check, figure, baseline, result, parsed, options.sessionAdvice ?? SESSION_ADVICE)
      : check
  const checks: Check[] = parsed.latency.map((rule) =>
    sessions(
      withTrials(
        latencyCheck(rule, baseline, result, parsed.confidence, distributions),
        rule,
        baseline,
        result,
        parsed.confidence,
      ),
      rule,
    ),
  )
  if (parsed.throughput.length > 0) {
    const series = options.throughputSeries ?? throughputSeriesOf(result)
    const noise = series ? throughputNoiseOfSeries(series) : {}
    for (const rule of parsed.throughput) {
      const check = throughputCheck(rule, baseline, result, parsed, noise[rule.metric])
      const figure = { metric: rule.metric, statistic: 'value' } as const
      checks.push(sessions(withTrials(check, figure, baseline, result, parsed.confidence), figure))
    }
  }
  const adjusted = adjustChecks(checks, judgedRunOf(result, baseline))
  const notes = adjusted.notes
  const overhead = result.server?.metrics?.clientOverheadTtftMs
  const ttftGate = adjusted.checks.find((check) => check.metric === 'ttftMs' && check.statistic === 'p50')
  const overheadLine =
    overhead && ttftGate ? overheadNote(overhead, result.metrics.ttftMs.p50, ttftGate.tolerance) : undefined
  if (overheadLine && ttftGate) {
    notes.push(
      `${overheadLine}, more than the TTFT p50 gate's tolerance (+${Math.round(ttftGate.tolerance * 100)} %): a change in the client or the network alone can move that gate.`,
    )
  }
  const tails = ungatedTails(parsed, baseline, result)
  if (tails) notes.push(tails)
  const server = describeServerChange(baseline.server, serverContextOf(result))
  const serving = result.environment.server
  // A stored launch names a changed flag too; an entry of an older version has none to compare.
  const launch =
    baseline.launch === undefined
      ? []
      : launchChanges(serving.name ?? serving.startedAs ?? 'server', baseline.launch, launchOf(result))
  const changed = [...diffSoftware(baseline.fingerprint, fingerprintOf(result.environment)), ...launch]
  return {
    status: overallStatus(adjusted.checks),
    checks: adjusted.checks,
    confidence: parsed.confidence,
    notes,
    ...(server ? { server } : {}),
    ...(changed.length > 0 ? { changed } : {}),
  }
}
