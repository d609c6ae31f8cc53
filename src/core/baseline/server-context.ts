import type { BenchmarkResult } from '../contract/result.ts'
import type { ServerMetricsDialect } from '../contract/server-metrics.ts'
import { readServerFigure, SERVER_FIGURES, type ServerFigure } from '../server/metrics/server-figures.ts'

/** Server-side figures a baseline keeps beside the client's, to explain a verdict (never judged). */
export const SERVER_CONTEXT_FIELDS = [
  'ttftP50Ms',
  'ttftP99Ms',
  'queueTimeP50Ms',
  'queueTimeP99Ms',
  'prefixCacheHitRate',
  'requestsWaitingMean',
  'requestsRunningMean',
  'kvCacheUsagePeak',
  'preemptionsPerRequest',
  'specAcceptanceRate',
  'requestsWaitingMeanSe',
  'requestsRunningMeanSe',
] as const satisfies readonly ServerFigure[]
export type ServerContextField = (typeof SERVER_CONTEXT_FIELDS)[number]

/** The server's side of a baseline: its dialect and the figures it gave (ms, shares 0..1, requests). */
export type ServerContext = { dialect: ServerMetricsDialect } & Partial<Record<ServerContextField, number>>

/** A gauge mean's standard error: a change within two of them (combined) is sampling noise, not named. */
const STANDARD_ERROR: Partial<Record<ServerContextField, ServerContextField>> = {
  requestsWaitingMean: 'requestsWaitingMeanSe',
  requestsRunningMean: 'requestsRunningMeanSe',
}
const IS_STANDARD_ERROR: ReadonlySet<ServerContextField> = new Set(Object.values(STANDARD_ERROR))

const LABEL: Record<ServerContextField, string> = {
  ttftP50Ms: 'server TTFT p50',
  ttftP99Ms: 'server TTFT p99',
  queueTimeP50Ms: 'queue time p50',
  queueTimeP99Ms: 'queue time p99',
  prefixCacheHitRate: 'prefix-cache hit rate',
  requestsWaitingMean: 'requests waiting (mean)',
  requestsRunningMean: 'requests running (mean)',
  kvCacheUsagePeak: 'KV-cache usage peak',
  preemptionsPerRequest: 'preemptions per request',
  specAcceptanceRate: 'draft acceptance rate',
  requestsWaitingMeanSe: 'standard error of requests waiting',
  requestsRunningMeanSe: 'standard error of requests running',
}

const isShare = (field: ServerContextField): boolean => SERVER_FIGURES[field].unit === 'share'

/** A relative change below this, or a share moving less than this many points, is not named. */
const NAMED_RELATIVE_CHANGE = 0.1
const NAMED_SHARE_POINTS = 0.05

/** The context a baseline keeps from a result; undefined when the run had no server metrics. */
export function serverContextOf(result: BenchmarkResult): ServerContext | undefined {
  const metrics = result.server?.metrics
  if (!metrics) return undefined
  const context: ServerContext = { dialect: metrics.dialect }
  for (const field of SERVER_CONTEXT_FIELDS) {
    const value = readServerFigure(metrics, field, result.counts.completed)
    if (value !== undefined) context[field] = value
  }
  return context
}

/** Three significant digits without trailing zeros: context, not a measurement to compare digit by digit. */
const short = (value: number): string => String(Number(value.toPrecision(3)))

function shown(field: ServerContextField, value: number): string {
  if (isShare(field)) return `${short(value * 100)} %`
  return field.endsWith('Ms') ? `${short(value)} ms` : short(value)
}

/**
 * One line naming the server-side figures that moved between the baseline and this run, e.g.
 * "queue time p99 12.0 -> 16.9 ms (+41 %), prefix-cache hit rate 62 % -> 3 %"; a note that none
 * moved when both sides have figures; undefined when either side has none.
 */
export function describeServerChange(
  baseline: ServerContext | undefined,
  current: ServerContext | undefined,
): string | undefined {
  if (!baseline || !current) return undefined
  const changes: string[] = []
  let compared = 0
  for (const field of SERVER_CONTEXT_FIELDS) {
    const before = baseline[field]
    const now = current[field]
    if (before === undefined || now === undefined || IS_STANDARD_ERROR.has(field)) continue
    compared++
    const seField = STANDARD_ERROR[field]
    if (seField) {
      // Without both standard errors (older entries) a gauge mean is not compared: noise could pass for change.
      const [a, b] = [baseline[seField], current[seField]]
      if (a === undefined || b === undefined || Math.abs(now - before) <= 2 * Math.hypot(a, b)) continue
    }
    if (isShare(field)) {
      if (Math.abs(now - before) >= NAMED_SHARE_POINTS)
        changes.push(`${LABEL[field]} ${shown(field, before)} -> ${shown(field, now)}`)
      continue
    }
    const relative = before === 0 ? (now === 0 ? 0 : Number.POSITIVE_INFINITY) : now / before - 1
    if (Math.abs(relative) < NAMED_RELATIVE_CHANGE) continue
    const percent = Number.isFinite(relative) ? ` (${relative > 0 ? '+' : ''}${Math.round(relative * 100)} %)` : ''
    const unit = field.endsWith('Ms') ? ' ms' : ''
    changes.push(
      `${LABEL[field]} ${shown(field, before).replace(' ms', '')} -> ${shown(field, now).replace(' ms', '')}${unit}${percent}`,
    )
  }
  if (compared === 0) return undefined
  if (changes.length === 0)
    return `the server's own figures did not move (${compared} compared, each within 10 % or 5 points, gauge means within their sampling noise)`
  return changes.join(', ')
}
