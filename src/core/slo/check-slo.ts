import type { BenchmarkResult, GpuStats } from '../contract/result.ts'
import { readServerFigure, SERVER_FIGURES } from '../server/metrics/server-figures.ts'
import type { SloCheck, SloStatus } from './slo-check.ts'
import type { SloGpuField, SloOptions } from './slo-options.ts'
import {
  DEFAULT_SLO_CONFIDENCE,
  SLO_GPU_FIELDS,
  SLO_SERVER_FIELDS,
  SLO_STATISTICS,
  validateSloOptions,
} from './slo-options.ts'
import {
  METRIC_CATALOG,
  SLO_DISTRIBUTIONS,
  SLO_THROUGHPUTS,
  whyAbsent,
  type SloDistribution,
} from '../contract/metric-catalog.ts'
import { formatFigure as figure } from '../platform/format-figure.ts'
import { bucketsOf, type HistogramBuckets } from '../verdict/quantile-bootstrap.ts'
import { decodeHistogram } from '../metrics/histogram.ts'
import { judgeQuantile } from './percentile-bound.ts'

/** Unit of each GPU field. */
const GPU_UNITS: Record<SloGpuField, string> = {
  memoryPeakMiB: 'MiB',
  memoryMeanMiB: 'MiB',
  memoryAfterMiB: 'MiB',
  powerPeakW: 'W',
  powerMeanW: 'W',
  utilizationMeanPct: '%',
  energyJ: 'J',
  energyPerOutputTokenJ: 'J',
}

/** Energy adds up over GPUs serving one model; for every other field the worst GPU decides. */
const SUMMED_GPU_FIELDS: ReadonlySet<SloGpuField> = new Set(['energyJ', 'energyPerOutputTokenJ'])

function judge(measured: number, bound: 'max' | 'min', limit: number): SloStatus {
  return (bound === 'max' ? measured <= limit : measured >= limit) ? 'pass' : 'fail'
}

function verb(status: SloStatus, bound: 'max' | 'min'): string {
  if (status === 'pass') return `is within the SLO ${bound === 'max' ? 'maximum' : 'minimum'} of`
  return bound === 'max' ? 'exceeds the SLO maximum of' : 'is below the SLO minimum of'
}

/** The quantile each percentile statistic is. */
const QUANTILES: Partial<Record<string, number>> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 }

/**
 * A latency percentile's limit, decided on the percentile's distribution-free bounds at
 * `confidence` (MLPerf's early-stopping idea): a pass shows the upper bound within the limit, a
 * fail the lower bound beyond it, and otherwise the check is inconclusive, naming the samples a run
 * like this one would need.
 */
function percentileCheck(
  check: Omit<SloCheck, 'status' | 'message'> & { measured: number },
  buckets: HistogramBuckets,
  quantile: number,
  confidence: number,
  samples: string,
): SloCheck {
  const { metric, statistic, limit, unit, n, measured } = check
  const judged = judgeQuantile(buckets, quantile, confidence, limit)
  const level = `${Number((confidence * 100).toPrecision(4))}%`
  const interval = { lower: judged.lower, upper: judged.upper, confidence }
  const head = `${metric} ${statistic} = ${figure(measured)} ${unit}`
  if (judged.status === 'pass') {
    return {
      ...check,
      status: 'pass',
      interval,
      message: `${head} is within the SLO maximum of ${figure(limit)} ${unit}: its ${level} upper bound is ${figure(judged.upper ?? measured)} ${unit} (n = ${n} samples)`,
    }
  }
  if (judged.status === 'fail') {
    return {
      ...check,
      status: 'fail',
      interval,
      message: `${head} exceeds the SLO maximum of ${figure(limit)} ${unit}: its ${level} lower bound is ${figure(judged.lower ?? measured)} ${unit} (n = ${n} samples)`,
    }
  }
  const shown = measured <= limit ? 'upper' : 'lower'
  const bound = shown === 'upper' ? judged.upper : judged.lower
  const boundText =
    bound === null
      ? `${n} samples give no ${level} ${shown} bound`
      : `its ${level} ${shown} bound is ${figure(bound)} ${unit}`
  const need =
    judged.needed === undefined
      ? `a run like this one would need more than a million ${samples} to decide`
      : `a run like this one needs about ${judged.needed} ${samples} to decide`
  return {
    ...check,
    status: 'inconclusive',
    interval,
    ...(judged.needed !== undefined ? { needed: judged.needed } : {}),
    message: `${head} is ${measured <= limit ? 'within' : 'beyond'} the SLO maximum of ${figure(limit)} ${unit}, but not shown: ${boundText} (n = ${n}); ${need}`,
  }
}

/**
 * Checks a run against absolute limits, one {@link SloCheck} per limit, in a fixed order
 * (distributions, throughputs, errors, goodput, GPU). Distribution statistics are maxima; an
 * empty distribution fails (an SLO cannot be met without measurements), and one reported only where
 * measured (`ttfoMs`, `itlPerTokenMs`) that the run could not measure is inconclusive. GPU limits compare the
 * largest value over GPUs with a `max` and the smallest with a `min`, except energy, which is
 * summed over GPUs; without telemetry they are inconclusive.
 *
 * @throws {OptionsError} when the SLO options are invalid.
 */
export function checkSlo(result: BenchmarkResult, slo: SloOptions): SloCheck[] {
  validateSloOptions(slo)
  return evaluateSlo(result, slo)
}

/** {@link checkSlo} for SLO options already checked (a bench checks its SLOs once, at collection). */
export function evaluateSlo(result: BenchmarkResult, slo: SloOptions): SloCheck[] {
  const checks: SloCheck[] = []
  const confidence = slo.confidence ?? DEFAULT_SLO_CONFIDENCE
  // A latency's samples, from its histogram (read in ms); undefined for token counts and results without one.
  const bucketsFor = (metric: SloDistribution): HistogramBuckets | undefined => {
    const { histogram, unitsPerValue } = METRIC_CATALOG[metric]
    const encoded = histogram === null ? undefined : result.histograms[histogram]
    return encoded === undefined ? undefined : bucketsOf(decodeHistogram(encoded), unitsPerValue)
  }
  for (const metric of SLO_DISTRIBUTIONS) {
    const limits = slo[metric]
    if (!limits) continue
    const { unit, samples } = METRIC_CATALOG[metric]
    const summary = result.metrics[metric]
    for (const statistic of SLO_STATISTICS) {
      const limit = limits[statistic]
      if (limit === undefined) continue
      const base = { metric, statistic, bound: 'max' as const, limit, unit, n: summary?.count ?? 0 }
      if (summary === undefined) {
        // Reported only where measured: a run that could not measure it shows nothing either way.
        checks.push({
          ...base,
          measured: null,
          status: 'inconclusive',
          message: `${metric} ${statistic}: not measured (${whyAbsent(metric)})`,
        })
        continue
      }
      if (summary.count === 0) {
        const why = result.streaming.note ? ` (${result.streaming.note})` : ''
        checks.push({
          ...base,
          measured: null,
          status: 'fail',
          message: `${metric} ${statistic}: no samples in ${result.counts.total} requests${why}, so the SLO maximum of ${figure(limit)} ${unit} cannot be shown to hold`,
        })
        continue
      }
      const measured = summary[statistic]
      const quantile = QUANTILES[statistic]
      const buckets = quantile === undefined ? undefined : bucketsFor(metric)
      if (quantile !== undefined && buckets !== undefined) {
        checks.push(percentileCheck({ ...base, measured }, buckets, quantile, confidence, samples))
        continue
      }
      const status = judge(measured, 'max', limit)
      checks.push({
        ...base,
        measured,
        status,
        message: `${metric} ${statistic} = ${figure(measured)} ${unit} ${verb(status, 'max')} ${figure(limit)} ${unit} (n = ${summary.count} samples)`,
      })
    }
  }
  for (const metric of SLO_THROUGHPUTS) {
    const bounds = slo[metric]
    if (!bounds) continue
    const { unit } = METRIC_CATALOG[metric]
    const measured = result.throughput[metric]
    for (const bound of ['min', 'max'] as const) {
      const limit = bounds[bound]
      if (limit === undefined) continue
      const status = judge(measured, bound, limit)
      checks.push({
        metric,
        statistic: bound,
        bound,
        limit,
        measured,
        unit,
        n: result.counts.completed,
        status,
        message: `${metric} = ${figure(measured)} ${unit} ${verb(status, bound)} ${figure(limit)} ${unit} (n = ${result.counts.completed} completed requests in ${figure(result.durationMs / 1000)} s)`,
      })
    }
  }
  if (slo.errors) {
    const { total, failed } = result.counts
    const rate = total > 0 ? failed / total : 0
    const counted = `${failed} of ${total} requests failed`
    if (slo.errors.maxRate !== undefined) {
      const limit = slo.errors.maxRate
      const status: SloStatus = total === 0 ? 'fail' : judge(rate, 'max', limit)
      checks.push({
        metric: 'errors',
        statistic: 'maxRate',
        bound: 'max',
        limit,
        measured: total === 0 ? null : rate,
        unit: 'share',
        n: total,
        status,
        message:
          total === 0
            ? `error rate: no measured requests, so the SLO maximum of ${figure(limit * 100)}% cannot be shown to hold`
            : `error rate = ${figure(rate * 100)}% ${verb(status, 'max')} ${figure(limit * 100)}% (${counted})`,
      })
    }
    if (slo.errors.maxCount !== undefined) {
      const limit = slo.errors.maxCount
      const status = judge(failed, 'max', limit)
      checks.push({
        metric: 'errors',
        statistic: 'maxCount',
        bound: 'max',
        limit,
        measured: failed,
        unit: 'requests',
        n: total,
        status,
        message: `failed requests = ${failed} ${verb(status, 'max')} ${limit} (${counted})`,
      })
    }
  }
  if (slo.goodput?.minShare !== undefined) {
    const limit = slo.goodput.minShare
    const goodput = result.goodput
    if (!goodput) {
      checks.push({
        metric: 'goodput',
        statistic: 'minShare',
        bound: 'min',
        limit,
        measured: null,
        unit: 'share',
        n: 0,
        status: 'inconclusive',
        message: 'goodput share: not measured; set the `goodput` option (TTFT/TPOT/E2E limits per request) to check it',
      })
    } else {
      const status = result.counts.completed === 0 ? 'fail' : judge(goodput.share, 'min', limit)
      checks.push({
        metric: 'goodput',
        statistic: 'minShare',
        bound: 'min',
        limit,
        measured: goodput.share,
        unit: 'share',
        n: result.counts.completed,
        status,
        message: `goodput share = ${figure(goodput.share * 100)}% ${verb(status, 'min')} ${figure(limit * 100)}% (${goodput.goodRequests} of ${result.counts.completed} completed requests met every limit)`,
      })
    }
  }
  if (slo.gpu) {
    const gpus: GpuStats[] = result.gpu?.gpus ?? []
    for (const field of SLO_GPU_FIELDS) {
      const bounds = slo.gpu[field]
      if (!bounds) continue
      const unit = GPU_UNITS[field]
      const values = gpus
        .map((gpu) => gpu[field])
        .filter((value): value is number => typeof value === 'number' && Number.isFinite(value))
      for (const bound of ['max', 'min'] as const) {
        const limit = bounds[bound]
        if (limit === undefined) continue
        const base = { metric: `gpu.${field}`, statistic: bound, bound, limit, unit, n: values.length }
        if (values.length === 0) {
          const why =
            result.gpu?.note ??
            (result.gpu ? `no GPU reported ${field}` : 'no GPU telemetry (nvidia-smi not found where the bench ran)')
          checks.push({
            ...base,
            measured: null,
            status: 'inconclusive',
            message: `gpu.${field}: not measured (${why})`,
          })
          continue
        }
        const summed = SUMMED_GPU_FIELDS.has(field)
        const measured = summed
          ? values.reduce((a, b) => a + b, 0)
          : bound === 'max'
            ? Math.max(...values)
            : Math.min(...values)
        const over =
          values.length === 1
            ? '1 GPU'
            : `${summed ? 'sum' : bound === 'max' ? 'largest' : 'smallest'} of ${values.length} GPUs`
        const status = judge(measured, bound, limit)
        checks.push({
          ...base,
          measured,
          status,
          message: `gpu.${field} = ${figure(measured)} ${unit} (${over}) ${verb(status, bound)} ${figure(limit)} ${unit}`,
        })
      }
    }
  }
  if (slo.server) {
    const metrics = result.server?.metrics
    for (const field of SLO_SERVER_FIELDS) {
      const bounds = slo.server[field]
      if (!bounds) continue
      const unit = SERVER_FIGURES[field].unit
      const measured = metrics ? readServerFigure(metrics, field, result.counts.completed) : undefined
      const shown = (value: number) => (unit === 'share' ? `${figure(value * 100)}%` : `${figure(value)} ${unit}`)
      for (const bound of ['max', 'min'] as const) {
        const limit = bounds[bound]
        if (limit === undefined) continue
        const base = { metric: `server.${field}`, statistic: bound, bound, limit, unit, n: metrics?.scrapes ?? 0 }
        if (measured === undefined || !Number.isFinite(measured)) {
          const why = !metrics
            ? (result.server?.note ?? 'server metrics were turned off (`serverMetrics: false`)')
            : `the ${metrics.dialect} server's metrics at ${metrics.url} do not give it`
          checks.push({
            ...base,
            measured: null,
            status: 'inconclusive',
            message: `server.${field}: not measured (${why})`,
          })
          continue
        }
        const status = judge(measured, bound, limit)
        checks.push({
          ...base,
          measured,
          status,
          message: `server.${field} = ${shown(measured)} ${verb(status, bound)} ${shown(limit)} (${metrics?.scrapes ?? 0} scrapes of ${metrics?.url ?? 'the server'} over ${figure((metrics?.windowMs ?? 0) / 1000)} s)`,
        })
      }
    }
  }
  return checks
}
