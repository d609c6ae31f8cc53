import type { BenchmarkResult } from '../src/core/contract/result.ts'
import { HEADLINE_FIGURES } from './headline-figures.ts'
import { configSummary } from './inventory.ts'
import { entryStatus, type ReportEntry } from './report-entry.ts'
import { isRecord } from '../src/core/contract/is-record.ts'

type Cell = string | number | boolean | undefined

/** One CSV column: its header and how a bench fills it. */
interface CsvColumn {
  header: string
  cell(entry: ReportEntry): Cell
}

function path(value: unknown, ...keys: string[]): unknown {
  let current = value
  for (const key of keys) current = isRecord(current) ? current[key] : undefined
  return current
}

function scalar(value: unknown): Cell {
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value
  return undefined
}

function gpuNames(result: BenchmarkResult): string | undefined {
  const names = [...new Set(result.environment.gpus.map((gpu) => gpu.name))]
  return names.length > 0 ? names.join('; ') : undefined
}

/** The columns, in order: identity, counts, headline figures (units in the names), the server's own metrics, configuration, environment. */
export const CSV_COLUMNS: readonly CsvColumn[] = [
  { header: 'bench', cell: (entry) => entry.name },
  { header: 'file', cell: (entry) => entry.file },
  { header: 'status', cell: (entry) => entryStatus(entry) },
  { header: 'baseline_verdict', cell: (entry) => entry.verdict?.status ?? entry.baselineState },
  { header: 'started_at', cell: (entry) => entry.result.startedAt },
  { header: 'duration_s', cell: (entry) => entry.result.durationMs / 1000 },
  { header: 'requests_total', cell: (entry) => entry.result.counts.total },
  { header: 'requests_completed', cell: (entry) => entry.result.counts.completed },
  { header: 'requests_failed', cell: (entry) => entry.result.counts.failed },
  ...HEADLINE_FIGURES.map((figure): CsvColumn => ({ header: figure.id, cell: (entry) => figure.value(entry.result) })),
  {
    header: 'input_tokens_mean',
    cell: (entry) => (entry.result.metrics.inputTokens.count > 0 ? entry.result.metrics.inputTokens.mean : undefined),
  },
  {
    header: 'output_tokens_mean',
    cell: (entry) => (entry.result.metrics.outputTokens.count > 0 ? entry.result.metrics.outputTokens.mean : undefined),
  },
  // Shares stay 0..1 here (as error_rate): a spreadsheet formats them, a script compares them.
  { header: 'server_prefix_cache_hit_rate', cell: (entry) => entry.result.server?.metrics?.prefixCache?.hitRate },
  { header: 'server_preemptions', cell: (entry) => entry.result.server?.metrics?.preemptions },
  { header: 'server_kv_cache_usage_peak', cell: (entry) => entry.result.server?.metrics?.kvCacheUsage?.peak },
  { header: 'server_requests_waiting_peak', cell: (entry) => entry.result.server?.metrics?.requestsWaiting?.peak },
  { header: 'server_ttft_p99_ms', cell: (entry) => entry.result.server?.metrics?.ttftMs?.p99 },
  { header: 'api', cell: (entry) => scalar(path(entry.result.config, 'target', 'api')) },
  { header: 'workload', cell: (entry) => scalar(path(entry.result.config, 'workload', 'kind')) },
  { header: 'concurrency', cell: (entry) => scalar(path(entry.result.config, 'load', 'concurrency')) },
  { header: 'request_rate', cell: (entry) => scalar(path(entry.result.config, 'load', 'rate')) },
  { header: 'config', cell: (entry) => configSummary(entry.result.config) },
  { header: 'model', cell: (entry) => entry.result.environment.server.model },
  { header: 'server', cell: (entry) => entry.result.environment.server.name },
  { header: 'server_version', cell: (entry) => entry.result.environment.server.version },
  { header: 'gpu', cell: (entry) => gpuNames(entry.result) },
  { header: 'gpu_count', cell: (entry) => entry.result.environment.gpus.length },
  { header: 'driver_version', cell: (entry) => entry.result.environment.gpus[0]?.driverVersion },
  {
    header: 'runtime',
    cell: (entry) => `${entry.result.environment.runtime.name} ${entry.result.environment.runtime.version}`,
  },
  { header: 'tool_version', cell: (entry) => entry.result.environment.toolVersion },
]

/** RFC 4180 field: numbers with up to 6 significant digits, text quoted when it holds a comma, quote or line break. */
export function csvField(value: Cell): string {
  if (value === undefined) return ''
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value)
    return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)))
  }
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/**
 * One row per bench with the headline figures (as AIPerf's CSV export, one run per row here),
 * then the configuration and environment. Units are in the column names; empty cells were not
 * measured. Lines end with CRLF, as RFC 4180 says.
 */
export function toCsv(entries: readonly ReportEntry[]): string {
  const lines = [CSV_COLUMNS.map((column) => csvField(column.header)).join(',')]
  for (const entry of entries) lines.push(CSV_COLUMNS.map((column) => csvField(column.cell(entry))).join(','))
  return `${lines.join('\r\n')}\r\n`
}
