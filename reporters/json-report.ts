import type { BenchmarkResult } from '../src/core/contract/result.ts'
import type { RequestRecord } from '../src/core/contract/request-record.ts'
import { entryStatus, type EntryStatus, type ReportEntry, type UnmeasuredBench } from './report-entry.ts'
import { sweepStatus, type SweepStatus, type SweepSummary } from './sweep-entry.ts'

/** Version of the JSON report format (see `src/core/json-schema/report.schema.json`). */
export const JSON_REPORT_VERSION = 1

/** One bench in the JSON report. */
export interface JsonReportBench extends Omit<ReportEntry, 'result'> {
  /** Overall status: test state, baseline verdict and SLOs together. */
  status: EntryStatus
  /** The full result; `requests` only when the report was asked to include them. */
  result: BenchmarkResult
}

/** The JSON report: every bench of a run. */
export interface JsonReport {
  reportVersion: typeof JSON_REPORT_VERSION
  tool: 'vitest-llm-bench'
  /** When the report was written, ISO 8601. */
  generatedAt: string
  benches: JsonReportBench[]
  /** Each sweep's knee, capacity or scenario, checks and curve table (its points are among `benches`, named `<sweep> [<axis>=<value>]`); absent without sweeps. */
  sweeps?: JsonReportSweep[]
  /** Benches that failed before they had a result, with their errors; absent when none did. */
  unmeasured?: UnmeasuredBench[]
  /** The signal that stopped the run (`SIGINT`, `SIGTERM`): the report holds only the benches that finished before it. */
  interrupted?: string
}

/** One sweep in the JSON report: its summary without the text table, with its overall status. */
export interface JsonReportSweep extends Omit<SweepSummary, 'table'> {
  /** `fail` when a check failed or the test failed, `skipped` when it did not run, else `pass`. */
  status: SweepStatus
}

/** Options of {@link toJsonReport}. */
export interface JsonReportOptions {
  /** Keep per-request records in each result (when the bench recorded them). Default false. */
  includeRequests?: boolean
  /** Time of writing, ISO 8601. Default: now. */
  generatedAt?: string
  /** Sweep summaries (see `collectReport`). */
  sweeps?: readonly SweepSummary[]
  /** Benches that failed before they had a result (see `collectReport`). */
  unmeasured?: readonly UnmeasuredBench[]
  /** The signal that stopped the run, when one did (see {@link JsonReport.interrupted}). */
  interrupted?: string
}

/** The report object for `entries` (`JSON.stringify` it; non-finite numbers become null). */
export function toJsonReport(entries: readonly ReportEntry[], options: JsonReportOptions = {}): JsonReport {
  const sweeps = (options.sweeps ?? []).map(({ table: _table, ...sweep }): JsonReportSweep => ({
    ...sweep,
    status: sweepStatus(sweep),
  }))
  return {
    reportVersion: JSON_REPORT_VERSION,
    tool: 'vitest-llm-bench',
    generatedAt: options.generatedAt ?? new Date().toISOString(),
    benches: entries.map((entry) => {
      const { requests: _requests, ...withoutRequests } = entry.result
      const bench: JsonReportBench = {
        name: entry.name,
        file: entry.file,
        status: entryStatus(entry),
        state: entry.state,
        result: options.includeRequests ? entry.result : withoutRequests,
      }
      if (entry.verdict) bench.verdict = entry.verdict
      if (entry.sloChecks) bench.sloChecks = entry.sloChecks
      if (entry.baselinePath) bench.baselinePath = entry.baselinePath
      if (entry.baselineState) bench.baselineState = entry.baselineState
      if (entry.failure) bench.failure = entry.failure
      if (entry.sweep) bench.sweep = entry.sweep
      return bench
    }),
    ...(sweeps.length > 0 ? { sweeps } : {}),
    ...(options.unmeasured && options.unmeasured.length > 0 ? { unmeasured: [...options.unmeasured] } : {}),
    ...(options.interrupted ? { interrupted: options.interrupted } : {}),
  }
}

/** One line of the requests JSONL file: a request record tagged with its bench. */
export interface RequestLine extends RequestRecord {
  bench: string
}

/** Per-request records of every bench that recorded them (`recordRequests: true`), one JSON object per line. */
export function toRequestsJsonl(entries: readonly ReportEntry[]): string {
  const lines: string[] = []
  for (const entry of entries) {
    for (const record of entry.result.requests ?? [])
      lines.push(JSON.stringify({ bench: entry.name, ...record } satisfies RequestLine))
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : ''
}
