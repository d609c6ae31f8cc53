import { markdownTable } from './markdown-table.ts'
import { interruptionNote } from './interruption.ts'
import { sampleSizes, type Check } from '../src/core/verdict/index.ts'
import type { SloCheck } from '../src/core/slo/index.ts'
import { formatChange, figureOrDash, formatSeconds, formatShare, formatWithUnit } from './format-figures.ts'
import { checkLabel, checkOf, gpuHeadline, mainThroughput, tokenTimingLine } from './headline-figures.ts'
import { configRows, environmentRows } from './inventory.ts'
import { entryStatus, type EntryStatus, type ReportEntry, type UnmeasuredBench } from './report-entry.ts'
import { runCounts, type RunCounts } from './run-counts.ts'
import { serverFacts, serverFactsLine, serverMetricsNote } from './server-metrics-facts.ts'
import { sessionsLine } from './sessions-facts.ts'
import { sweepStatus, type SweepSummary } from './sweep-entry.ts'

/** Options of {@link renderMarkdown}. */
export interface MarkdownOptions {
  /** Heading of the summary. Default `LLM benchmarks`. */
  title?: string
  /** Link to the HTML report (an artifact or a published page). */
  htmlReportUrl?: string
  /** Text of that link. Default `Full HTML report`. */
  htmlReportLabel?: string
  /** Sweep summaries (see `collectReport`): a section each, with the knee, capacity or scenario, the checks and the curve. */
  sweeps?: readonly SweepSummary[]
  /** Benches that failed before they had a result (see `collectReport`): counted, with their errors. */
  unmeasured?: readonly UnmeasuredBench[]
  /** The signal that stopped the run, when one did: said first. */
  interrupted?: string
}

const ICON: Record<EntryStatus | Check['status'], string> = {
  pass: '✅',
  fail: '❌',
  inconclusive: '⚠️',
  skipped: '⏭️',
  measured: '📏',
}

function withDelta(value: string, check: Check | undefined): string {
  if (!check) return value
  return `${value} (${formatChange(check.ratio)}${check.status === 'pass' ? '' : ` ${ICON[check.status]}`})`
}

function summaryRow(entry: ReportEntry): string[] {
  const { result } = entry
  const checks = entry.verdict?.checks
  const latency = (metric: 'ttftMs' | 'tpotMs' | 'itlMs' | 'e2eMs', statistic: 'p50' | 'p99'): string =>
    result.metrics[metric].count > 0
      ? withDelta(formatWithUnit(result.metrics[metric][statistic], 'ms'), checkOf(checks, metric, statistic))
      : '-'
  return [
    ICON[entryStatus(entry)],
    entry.name,
    latency('ttftMs', 'p50'),
    latency('ttftMs', 'p99'),
    latency('tpotMs', 'p50'),
    latency('itlMs', 'p50'),
    latency('e2eMs', 'p99'),
    mainThroughputCell(result, checks),
    withDelta(figureOrDash(result.throughput.requestsPerSec), checkOf(checks, 'requestsPerSec', 'value')),
    `${result.counts.failed}/${result.counts.total}`,
    baselineCell(entry),
  ]
}

/** The Output tok/s column: output tokens/s, or an embeddings or rerank bench's input tokens/s, marked so. */
function mainThroughputCell(result: ReportEntry['result'], checks: Parameters<typeof checkOf>[0]): string {
  const main = mainThroughput(result)
  return withDelta(main.columnText, checkOf(checks, main.metric, 'value'))
}

function baselineCell(entry: ReportEntry): string {
  if (entry.verdict) return entry.verdict.status
  return entry.baselineState ?? '-'
}

function verdictTable(entry: ReportEntry): string | undefined {
  const verdict = entry.verdict
  if (!verdict || verdict.checks.length === 0) return undefined
  const level = `${Number((verdict.confidence * 100).toPrecision(4))}%`
  const rows = verdict.checks.map((check) => [
    checkLabel(check),
    formatWithUnit(check.baseline, check.unit),
    formatWithUnit(check.current, check.unit),
    formatChange(check.ratio),
    check.ciLow === null || check.ciHigh === null ? '-' : `${check.ciLow.toFixed(3)} – ${check.ciHigh.toFixed(3)}`,
    `${check.tolerance >= 0 ? '+' : '-'}${Number((Math.abs(check.tolerance) * 100).toPrecision(4))}%`,
    sampleSizes(check),
    `${ICON[check.status]} ${check.status}`,
  ])
  const out = [
    markdownTable(
      ['Check', 'Baseline', 'Current', 'Change', `${level} CI of ratio`, 'Tolerance', 'n base/cur', 'Verdict'],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
      rows,
    ),
  ]
  const reasons = verdict.checks
    .filter((check) => check.reason)
    .map((check) => `- ${checkLabel(check)}: ${check.reason}`)
  const notes = verdict.notes.map((note) => `- ${note}`)
  if (reasons.length + notes.length > 0) out.push('', ...reasons, ...notes)
  if (verdict.changed && verdict.changed.length > 0)
    out.unshift(`Changed since the baseline: ${verdict.changed.join('; ')}`, '')
  return out.join('\n')
}

function sloTable(checks: readonly SloCheck[] | undefined): string | undefined {
  if (!checks || checks.length === 0) return undefined
  const show = (value: number, unit: string): string =>
    unit === 'share' ? formatShare(value) : formatWithUnit(value, unit)
  const rows = checks.map((check) => [
    check.statistic === 'min' || check.statistic === 'max' ? check.metric : `${check.metric} ${check.statistic}`,
    check.measured === null ? '-' : show(check.measured, check.unit),
    `${check.bound === 'max' ? '≤' : '≥'} ${show(check.limit, check.unit)}`,
    String(check.n),
    `${ICON[check.status]} ${check.status}`,
  ])
  return markdownTable(['SLO', 'Measured', 'Limit', 'n', 'Verdict'], ['l', 'r', 'r', 'r', 'l'], rows)
}

function inventory(entry: ReportEntry): string {
  const rows = [
    ...configRows(entry.result.config).map(([key, value]) => [`config.${key}`, value]),
    ...environmentRows(entry.result.environment),
  ]
  return [
    '<details><summary>Configuration and environment</summary>',
    '',
    markdownTable(['Setting', 'Value'], ['l', 'l'], rows),
    '',
    '</details>',
  ].join('\n')
}

/**
 * What a bench's section warns about: its warnings, then why the server gave no metrics (a run
 * does not copy that line into its warnings). One list, so a line every bench shares is said once.
 */
function warningsOf(entry: ReportEntry): string[] {
  const note = serverMetricsNote(entry.result)
  return note === undefined ? entry.result.warnings : [...entry.result.warnings, note]
}

/** A sweep: status, headlines (scenario, capacity, knee), checks, warnings (its own, then its points'), and the curve as a text table. */
function sweepSection(sweep: SweepSummary, points: readonly ReportEntry[], shared: ReadonlySet<string>): string {
  const status = sweepStatus(sweep)
  const lines = [`### ${ICON[status]} ${sweep.name} (${sweep.kind} over ${sweep.axis})`, '', `\`${sweep.file}\``, '']
  for (const headline of sweep.headlines) lines.push(`- ${headline}`)
  for (const check of sweep.checks)
    lines.push(`- ${check.status === 'skip' ? ICON.skipped : ICON[check.status]} ${check.name}: ${check.message}`)
  // The sweep's warnings hold its points' already, each text once with the values that gave it
  // (pointWarnings); only why a point's server gave no metrics is said here, the same way.
  for (const warning of sweep.warnings) if (!shared.has(warning)) lines.push(`- ${ICON.inconclusive} ${warning}`)
  const notes = new Map<string, unknown[]>()
  for (const point of points) {
    const note = serverMetricsNote(point.result)
    if (note !== undefined && !shared.has(note)) notes.set(note, [...(notes.get(note) ?? []), point.sweep?.value])
  }
  for (const [note, values] of notes)
    lines.push(
      `- ${ICON.inconclusive} ${values.length === points.length && points.length > 1 ? 'every point' : `${sweep.axis} ${values.join(', ')}`}: ${note}`,
    )
  lines.push('', '```', sweep.table, '```')
  return lines.join('\n')
}

function section(entry: ReportEntry, shared: ReadonlySet<string>): string {
  const status = entryStatus(entry)
  const { result } = entry
  const facts = [
    `\`${entry.file}\``,
    `${result.counts.completed}/${result.counts.total} requests in ${formatSeconds(result.durationMs)}`,
  ]
  const gpu = gpuHeadline(result)
  if (gpu.memoryPeakMiB !== undefined) facts.push(`GPU peak ${formatWithUnit(gpu.memoryPeakMiB, 'MiB')}`)
  if (gpu.energyPerOutputTokenJ !== undefined) facts.push(`${formatWithUnit(gpu.energyPerOutputTokenJ, 'J')}/token`)
  if (entry.baselineState && entry.baselineState !== 'compare') facts.push(`baseline ${entry.baselineState}`)
  const parts = [`### ${ICON[status]} ${entry.name}`, '', facts.join(' · ')]
  const server = serverFactsLine(serverFacts(result))
  if (server) parts.push('', `Server: ${server}`)
  const sessions = sessionsLine(result)
  if (sessions) parts.push('', `Sessions: ${sessions}`)
  const tokenTiming = tokenTimingLine(result)
  if (tokenTiming) parts.push('', `Reasoning, tool calls, structured output and per-token timing: ${tokenTiming}`)
  const verdict = verdictTable(entry)
  if (verdict) parts.push('', verdict)
  const slo = sloTable(entry.sloChecks)
  if (slo) parts.push('', slo)
  if (entry.failure)
    parts.push('', '<details><summary>Failure</summary>', '', '```text', entry.failure, '```', '', '</details>')
  for (const warning of warningsOf(entry)) if (!shared.has(warning)) parts.push('', `> ⚠️ ${warning}`)
  parts.push('', inventory(entry))
  return parts.join('\n')
}

/** Warnings every entry has (at least two entries): said once for the run, not once per bench (e.g. no GPU telemetry, no server metrics). */
function sharedWarnings(entries: readonly ReportEntry[]): Set<string> {
  if (entries.length < 2) return new Set()
  const [first, ...others] = entries
  return new Set(warningsOf(first!).filter((warning) => others.every((entry) => warningsOf(entry).includes(warning))))
}

/**
 * A pull-request summary: one table with every bench's headline figures and baseline deltas,
 * then a section per bench with the server's own metrics, baseline vs current, SLOs, failures,
 * configuration and environment, and a link to the HTML report. GitHub-flavoured Markdown.
 */
export function renderMarkdown(entries: readonly ReportEntry[], options: MarkdownOptions = {}): string {
  const sweeps = options.sweeps ?? []
  const counts = runCounts(entries, sweeps)
  const unmeasured = options.unmeasured ?? []
  const tally = (statuses: RunCounts['benchStatuses'] | RunCounts['sweepStatuses']): string =>
    statuses.map(([status, count]) => `${ICON[status]} ${count} ${status}`).join(', ')
  const headline = [
    tally(counts.benchStatuses),
    unmeasured.length > 0 ? `${ICON.fail} ${unmeasured.length} failed without a result` : '',
    counts.sweeps > 0 ? `sweeps: ${tally(counts.sweepStatuses)}` : '',
  ].filter(Boolean)
  const out = [`## ${options.title ?? 'LLM benchmarks'}${headline.length > 0 ? `: ${headline.join('; ')}` : ''}`, '']
  if (options.interrupted) out.push(`> ⚠️ ${interruptionNote(options.interrupted)}`, '')
  const shared = sharedWarnings(entries)
  if (entries.length === 0) {
    out.push(unmeasured.length > 0 ? 'No LLM bench produced a result in this run.' : 'No LLM benches ran.')
  } else {
    out.push(
      markdownTable(
        [
          '',
          'Bench',
          'TTFT p50',
          'TTFT p99',
          'TPOT p50',
          'ITL p50',
          'E2E p99',
          'Output tok/s',
          'Req/s',
          'Errors',
          'Baseline',
        ],
        ['c', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
        entries.map(summaryRow),
      ),
      '',
      'Changes in brackets are against the stored baseline; a figure fails only when its whole confidence interval lies beyond the tolerance.',
    )
    if (counts.sweeps > 0) out.push(`${ICON.measured} marks a sweep point: the sweep's checks judge its curve, below.`)
    for (const warning of shared) out.push('', `> ⚠️ ${warning} (every bench)`)
    // A sweep point's figures are in its row and in its sweep's table: no section of its own.
    for (const entry of entries) if (!entry.sweep) out.push('', section(entry, shared))
  }
  for (const sweep of sweeps)
    out.push(
      '',
      sweepSection(
        sweep,
        entries.filter((entry) => entry.sweep?.name === sweep.name),
        shared,
      ),
    )
  for (const bench of unmeasured)
    out.push(
      '',
      `### ${ICON.fail} ${bench.name}: no result`,
      '',
      `\`${bench.file}\``,
      '',
      '```text',
      bench.failure,
      '```',
    )
  if (options.htmlReportUrl)
    out.push('', `[${options.htmlReportLabel ?? 'Full HTML report'}](${options.htmlReportUrl})`)
  return `${out.join('\n')}\n`
}
