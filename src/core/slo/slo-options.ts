import { OptionsError } from '../contract/errors.ts'
import { isRecord } from '../contract/is-record.ts'
import { SERVER_FIGURES, type ServerFigure } from '../server/metrics/server-figures.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'
import {
  SLO_DISTRIBUTIONS,
  SLO_THROUGHPUTS,
  type OptionPerMetric,
  type SloDistribution,
  type SloThroughput,
} from '../contract/metric-catalog.ts'

/** Statistics of a distribution an SLO can limit. */
export const SLO_STATISTICS = ['p50', 'p90', 'p95', 'p99', 'p999', 'mean', 'min', 'max'] as const
export type SloStatistic = (typeof SLO_STATISTICS)[number]

/** Per-GPU telemetry fields an SLO can bound (see `GpuStats`). */
export const SLO_GPU_FIELDS = [
  'memoryPeakMiB',
  'memoryMeanMiB',
  'memoryAfterMiB',
  'powerPeakW',
  'powerMeanW',
  'utilizationMeanPct',
  'energyJ',
  'energyPerOutputTokenJ',
] as const
export type SloGpuField = (typeof SLO_GPU_FIELDS)[number]

/**
 * Server-side figures an SLO can bound (see `ServerMetrics`): counts over the measured window,
 * shares 0..1, latencies in ms from the server's own histograms.
 */
export const SLO_SERVER_FIELDS = [
  'preemptions',
  'prefixCacheHitRate',
  'kvCacheUsagePeak',
  'requestsWaitingPeak',
  'queueTimeP99Ms',
  'ttftP99Ms',
  'specAcceptanceRate',
  'specMeanAcceptedLength',
] as const satisfies readonly ServerFigure[]
export type SloServerField = (typeof SLO_SERVER_FIELDS)[number]

/** Bounds on server metrics, e.g. `{ preemptions: { max: 0 }, prefixCacheHitRate: { max: 0.05 } }`; inconclusive where the server does not report the figure. */
export type ServerSlo = Partial<Record<SloServerField, GpuFieldSlo>>

/** Upper limits on statistics of one distribution, e.g. `{ p99: 500 }` (every figure is a maximum). */
export type MetricSlo = Partial<Record<SloStatistic, number>>

/** Bounds on a run-level throughput, per second. */
export interface ThroughputSlo {
  /** Lowest acceptable value. */
  min?: number
  /** Highest acceptable value. */
  max?: number
}

/** Limits on failed requests. */
export interface ErrorSlo {
  /** Largest share of measured requests that may fail, 0..1 (0.01 is 1 %). */
  maxRate?: number
  /** Largest number of measured requests that may fail. */
  maxCount?: number
}

/** Bounds on one GPU figure. */
export interface GpuFieldSlo {
  /** Highest acceptable value (compared with the largest value over GPUs, or the sum for energy). */
  max?: number
  /** Lowest acceptable value (compared with the smallest value over GPUs, or the sum for energy). */
  min?: number
}

/** Bounds on GPU telemetry; units as the field names say (MiB, W, %, J). */
export type GpuSlo = Partial<Record<SloGpuField, GpuFieldSlo>>

/** Limits per distribution `METRIC_CATALOG` marks SLO-able (latencies in ms, token counts in tokens). */
type DistributionSlos = OptionPerMetric<SloDistribution, MetricSlo>

/** Bounds per throughput `METRIC_CATALOG` marks SLO-able, per second. */
type ThroughputSlos = OptionPerMetric<SloThroughput, ThroughputSlo>

/**
 * Absolute service-level objectives (the `slo` option of `bench.llm`): limits a run must meet
 * whatever any baseline says. Limits are inclusive (a p99 of exactly 500 meets `{ p99: 500 }`).
 * Each distribution and throughput `METRIC_CATALOG` marks SLO-able is a key.
 *
 * @example { ttftMs: { p99: 500 }, outputTokensPerSec: { min: 1500 }, errors: { maxRate: 0.01 } }
 */
export interface SloOptions extends DistributionSlos, ThroughputSlos {
  errors?: ErrorSlo
  /** Needs GPU telemetry (nvidia-smi on the machine running the bench); inconclusive without it. */
  gpu?: GpuSlo
  /** Needs the server's metrics endpoint (`serverMetrics`); inconclusive where the server does not report a figure. */
  server?: ServerSlo
  /** Needs the `goodput` option of the run; inconclusive without it. */
  goodput?: { /** Smallest share of completed requests meeting every goodput limit, 0..1. */ minShare?: number }
  /**
   * Confidence of a latency percentile's limit, 0.5 to 0.999: `{ ttftMs: { p99: 500 } }` passes only
   * when the p99's distribution-free upper bound at this confidence is within 500 ms, fails when its
   * lower bound is beyond, and is inconclusive otherwise, naming the requests it needs. Default 0.95.
   */
  confidence?: number
}

/** Confidence of a latency percentile's SLO when `slo.confidence` is not given. */
export const DEFAULT_SLO_CONFIDENCE = 0.95

const TOP_LEVEL: readonly string[] = [
  ...SLO_DISTRIBUTIONS,
  ...SLO_THROUGHPUTS,
  'errors',
  'gpu',
  'server',
  'goodput',
  'confidence',
]

function show(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : Array.isArray(value) ? 'an array' : String(value)
}

function checkKeys(value: unknown, option: string, valid: readonly string[], example: string): Record<string, unknown> {
  if (!isRecord(value))
    throw new OptionsError(
      option,
      `${show(value)} is not an object`,
      `Write e.g. ${option.split('.').pop()}: ${example}.`,
    )
  rejectUnknownKeys(value, valid, option)
  return value
}

function checkLimit(value: unknown, option: string, max: number = Number.POSITIVE_INFINITY): void {
  if (value === undefined) return
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
    const range = Number.isFinite(max) ? `from 0 to ${max}` : 'that is finite and >= 0'
    throw new OptionsError(option, `${show(value)} is not a valid limit`, `Use a number ${range}.`)
  }
}

/**
 * Validates SLO options. Call it before running a bench so a typo fails at once.
 *
 * @param optionPath Prefix of option names in errors. Default `slo`.
 * @throws {OptionsError} naming the option (e.g. `slo.ttftMs.p98`) and listing the valid choices.
 */
export function validateSloOptions(slo: SloOptions, optionPath: string = 'slo'): void {
  const root = checkKeys(slo, optionPath, TOP_LEVEL, '{ ttftMs: { p99: 500 } }')
  for (const [key, value] of Object.entries(root)) {
    if (value === undefined) continue
    const option = `${optionPath}.${key}`
    if (key === 'confidence') {
      if (typeof value !== 'number' || !(value >= 0.5 && value <= 0.999))
        throw new OptionsError(
          option,
          `${show(value)} is not a confidence from 0.5 to 0.999`,
          'e.g. `confidence: 0.95`, or leave it out for 0.95.',
        )
    } else if ((SLO_DISTRIBUTIONS as readonly string[]).includes(key)) {
      const limits = checkKeys(value, option, SLO_STATISTICS, '{ p99: 500 }')
      for (const [statistic, limit] of Object.entries(limits)) checkLimit(limit, `${option}.${statistic}`)
    } else if ((SLO_THROUGHPUTS as readonly string[]).includes(key)) {
      const bounds = checkKeys(value, option, ['min', 'max'], '{ min: 1500 }')
      checkLimit(bounds.min, `${option}.min`)
      checkLimit(bounds.max, `${option}.max`)
    } else if (key === 'errors') {
      const limits = checkKeys(value, option, ['maxRate', 'maxCount'], '{ maxRate: 0.01 }')
      checkLimit(limits.maxRate, `${option}.maxRate`, 1)
      checkLimit(limits.maxCount, `${option}.maxCount`)
    } else if (key === 'gpu' || key === 'server') {
      const fields =
        key === 'gpu'
          ? checkKeys(value, option, SLO_GPU_FIELDS, '{ memoryPeakMiB: { max: 70000 } }')
          : checkKeys(value, option, SLO_SERVER_FIELDS, '{ preemptions: { max: 0 } }')
      for (const [field, bounds] of Object.entries(fields)) {
        if (bounds === undefined) continue
        // A share is 0..1: `max: 5` meant as 5 % would always pass.
        const share = key === 'server' && SERVER_FIGURES[field as ServerFigure].unit === 'share'
        const checked = checkKeys(
          bounds,
          `${option}.${field}`,
          ['min', 'max'],
          share ? '{ max: 0.05 } (a share: 0.05 is 5 %)' : key === 'gpu' ? '{ max: 70000 }' : '{ max: 0 }',
        )
        checkLimit(checked.min, `${option}.${field}.min`, share ? 1 : undefined)
        checkLimit(checked.max, `${option}.${field}.max`, share ? 1 : undefined)
      }
    } else if (key === 'goodput') {
      const limits = checkKeys(value, option, ['minShare'], '{ minShare: 0.9 }')
      checkLimit(limits.minShare, `${option}.minShare`, 1)
    }
  }
}
