import { endToEndMs, timePerOutputTokenMs, timeToFirstTokenMs } from '../metrics/request-latency.ts'
import type { RequestRecord } from '../contract/request-record.ts'
import { loadgenPercentile, serverEarlyStopping, type ServerEarlyStopping } from './early-stopping.ts'
import type { CapacityLimits } from './sweep-result.ts'

/** Where latencies are measured from. */
export type LatencyOrigin = 'scheduled' | 'sent'

/** Options of {@link checkLatencyLimits}. */
export interface LatencyLimitsOptions {
  /** Percentile the limits apply to, as a share. */
  percentile: number
  /** Also require LoadGen's Server early-stopping check for each limit. */
  earlyStopping: boolean
  /**
   * `scheduled`: TTFT and E2E count from the planned send time, as LoadGen measures ("from when
   * the LoadGen was scheduled to pass a query to the SUT"), so a client that fell behind its
   * schedule cannot hide queueing; `sent`: from the actual send, as `BenchmarkResult` does.
   */
  from: LatencyOrigin
  /** Largest share of measured requests that may fail, 0..1. */
  maxFailedShare: number
}

/** One limit checked against a point's requests. */
export interface LatencyLimitCheck {
  metric: keyof CapacityLimits
  /** The limit, ms. */
  limit: number
  /** LoadGen's percentile (`sorted[floor(n * p)]`) of the completed requests, ms; absent without samples. */
  value?: number
  /** Samples behind it. */
  samples: number
  earlyStopping?: ServerEarlyStopping
  pass: boolean
}

/** Whether a point met every limit. */
export interface LatencyLimitsOutcome {
  valid: boolean
  checks: LatencyLimitCheck[]
  /** One line per missed rule. */
  reasons: string[]
}

const LABEL: Record<keyof CapacityLimits, string> = { ttftMs: 'TTFT', tpotMs: 'TPOT', e2eMs: 'E2E' }

/** `p99 TTFT <= 500 ms and p99 TPOT <= 50 ms`. */
export function describeLimits(limits: CapacityLimits, percentile: number): string {
  const parts = (Object.keys(LABEL) as Array<keyof CapacityLimits>)
    .filter((metric) => limits[metric] !== undefined)
    .map((metric) => `${percentileLabel(percentile)} ${LABEL[metric]} <= ${limits[metric]} ms`)
  return parts.length > 0 ? parts.join(' and ') : 'none'
}

/** `p99`, `p99.9`, `p90`. */
export function percentileLabel(percentile: number): string {
  return `p${Number((percentile * 100).toFixed(3))}`
}

function latencies(records: RequestRecord[], metric: keyof CapacityLimits, from: LatencyOrigin): number[] {
  const out: number[] = []
  for (const record of records) {
    if (!record.ok || record.firstTokenAt === undefined) continue
    const origin = from === 'scheduled' ? (record.plannedAt ?? record.sentAt) : record.sentAt
    const value =
      metric === 'ttftMs'
        ? timeToFirstTokenMs(record, origin)
        : metric === 'e2eMs'
          ? endToEndMs(record, origin)
          : timePerOutputTokenMs(record)
    if (value !== undefined) out.push(value)
  }
  return out
}

/**
 * Checks a point's requests against latency limits the way LoadGen's Server scenario does:
 * the percentile is LoadGen's (`sorted[floor(n * p)]`, no interpolation) over completed
 * requests, and with `earlyStopping` each limit must also pass LoadGen's early-stopping check
 * (enough queries for the number over the limit). Failed requests beyond `maxFailedShare` make
 * the point invalid, as LoadGen errors when queries fail.
 */
export function checkLatencyLimits(
  records: RequestRecord[],
  limits: CapacityLimits,
  options: LatencyLimitsOptions,
): LatencyLimitsOutcome {
  const reasons: string[] = []
  const checks: LatencyLimitCheck[] = []
  const label = percentileLabel(options.percentile)
  for (const metric of Object.keys(LABEL) as Array<keyof CapacityLimits>) {
    const limit = limits[metric]
    if (limit === undefined) continue
    const samples = latencies(records, metric, options.from).sort((a, b) => a - b)
    const value = loadgenPercentile(samples, options.percentile)
    const check: LatencyLimitCheck = {
      metric,
      limit,
      samples: samples.length,
      pass: value !== undefined && value <= limit,
    }
    if (value !== undefined) check.value = value
    if (value === undefined) reasons.push(`no ${LABEL[metric]} sample: no request completed with output`)
    else if (value > limit) reasons.push(`${label} ${LABEL[metric]} ${value.toFixed(1)} ms > ${limit} ms`)
    if (options.earlyStopping && samples.length > 0) {
      const early = serverEarlyStopping(samples, limit, options.percentile)
      check.earlyStopping = early
      if (!early.ok) {
        check.pass = false
        reasons.push(
          `early stopping (${LABEL[metric]}): ${early.overLatency} of ${early.queries} over ${limit} ms needs at least ${early.requiredQueries} queries`,
        )
      }
    }
    checks.push(check)
  }
  const failed = records.filter((record) => !record.ok).length
  if (records.length > 0 && failed / records.length > options.maxFailedShare) {
    reasons.push(`${failed} of ${records.length} requests failed`)
  }
  return { valid: reasons.length === 0, checks, reasons }
}
