import { withoutNoted, type Check } from '../src/core/verdict/index.ts'
import type { BenchmarkResult, MetricSummary } from '../src/core/contract/result.ts'
import { statusStyle, stylesFor, visibleLength, type Styles } from './ansi.ts'
import { formatChange, formatSeconds, formatShare, formatWithUnit } from './format-figures.ts'
import { checkOf, gpuHeadline, reportedLatencies } from './headline-figures.ts'
import { configSummary, environmentSummary } from './inventory.ts'
import { entryStatus, type ReportEntry } from './report-entry.ts'
import { serverFacts, serverFactsLine, serverMetricsNote } from './server-metrics-facts.ts'
import { sessionsLine } from './sessions-facts.ts'
import { sweepStatus, type SweepSummary } from './sweep-entry.ts'
import type { CompareEntry } from './compare-entry.ts'
import { formatCompareNotes, formatCompareTable } from '../src/bench/compare-table.ts'

/** Options of {@link renderConsoleTable}. */
export interface ConsoleTableOptions {
  /** ANSI colours (verdict colours, dim labels). Default false. */
  color?: boolean
}

const STATUS_MARK = { pass: '✓', fail: '✗', inconclusive: '?', skipped: '-', measured: '·' } as const

function checkText(styles: Styles, check: Check, withStatistic: boolean): string {
  const text = `${withStatistic ? `${check.statistic} ` : ''}${formatChange(check.ratio)} ${check.status === 'fail' ? 'FAIL' : check.status}`
  return statusStyle(styles, check.status)(text)
}

function checksText(styles: Styles, checks: readonly Check[], withStatistic: boolean): string {
  return checks.map((check) => checkText(styles, check, withStatistic)).join(', ')
}

/** Failed requests by kind (`timeout x2, http x1`), empty when none failed. */
function errorKinds(result: BenchmarkResult): string {
  const kinds = new Map<string, number>()
  for (const error of result.errors) kinds.set(error.kind, (kinds.get(error.kind) ?? 0) + error.count)
  return [...kinds].map(([kind, count]) => `${kind} x${count}`).join(', ')
}

function baselineText(styles: Styles, entry: ReportEntry): string | undefined {
  const { verdict } = entry
  if (verdict) {
    const counts = (['fail', 'inconclusive', 'pass'] as const)
      .map((status) => [status, verdict.checks.filter((check) => check.status === status).length] as const)
      .filter(([, count]) => count > 0)
      .map(([status, count]) => `${count} ${status}`)
    // What changed in the software under test since the baseline, on every verdict: a pass after an upgrade says so.
    const changed = verdict.changed && verdict.changed.length > 0 ? ` · changed: ${verdict.changed.join('; ')}` : ''
    return `baseline ${statusStyle(styles, verdict.status)(verdict.status === 'fail' ? 'FAIL' : verdict.status)}${counts.length > 0 ? ` (${counts.join(', ')})` : ''}${changed}`
  }
  switch (entry.baselineState) {
    case 'written':
      return 'baseline written'
    case 'updated':
      return 'baseline updated'
    case 'missing':
      return styles.red('baseline missing')
    case 'mismatch':
      return styles.red('baseline from other hardware, software or config')
    case 'provisional':
      return styles.yellow('baseline recorded provisionally (machine disturbed: note below)')
    case 'not judged':
      return styles.yellow('baseline not judged (machine disturbed)')
    case 'deferred':
      return 'judged later, with the other segments or arms (note below)'
    case 'stopped early':
      return styles.yellow('baseline not judged (the load stopped early: stopWhen, below)')
    default:
      return undefined
  }
}

function sloText(styles: Styles, entry: ReportEntry): string | undefined {
  const checks = entry.sloChecks
  if (!checks || checks.length === 0) return undefined
  const failed = checks.filter((check) => check.status === 'fail').length
  const inconclusive = checks.filter((check) => check.status === 'inconclusive').length
  const status = failed > 0 ? 'fail' : inconclusive > 0 ? 'inconclusive' : 'pass'
  return `SLO ${statusStyle(styles, status)(status === 'fail' ? 'FAIL' : status)} (${checks.length - failed - inconclusive}/${checks.length} met)`
}

/** Pads cells (which may hold escape sequences) to column widths: text left, figures right. */
function alignRows(rows: string[][], rightAligned: ReadonlySet<number>): string[] {
  const widths: number[] = []
  for (const row of rows)
    row.forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 0, visibleLength(cell))))
  return rows.map((row) =>
    row
      .map((cell, column) => {
        const padding = ' '.repeat(Math.max(0, (widths[column] ?? 0) - visibleLength(cell)))
        return rightAligned.has(column) ? padding + cell : cell + padding
      })
      .join('  ')
      .trimEnd(),
  )
}

/** Tokens over the measured phase and its duration: `7,680 input · 8,192 output tokens in 4.1 s`; undefined with none. */
function totalsLine(result: BenchmarkResult): string | undefined {
  const sum = (summaryOf: MetricSummary) => Math.round(summaryOf.mean * summaryOf.count)
  const { inputTokens, outputTokens } = result.metrics
  if (inputTokens.count === 0 && outputTokens.count === 0) return undefined
  const count = (value: number) => value.toLocaleString('en-US')
  if (result.throughput.inputsPerSec !== undefined)
    return `${count(sum(inputTokens))} input tokens in ${formatSeconds(result.durationMs)}`
  return `${count(sum(inputTokens))} input · ${count(sum(outputTokens))} output tokens in ${formatSeconds(result.durationMs)}`
}

/** The table of one bench: headline, one row per figure, then configuration and environment. */
export function renderConsoleEntry(entry: ReportEntry, options: ConsoleTableOptions = {}): string {
  const styles = stylesFor(options.color ?? false)
  const { result } = entry
  const status = entryStatus(entry)
  const mark = statusStyle(
    styles,
    status === 'skipped' || status === 'measured' ? 'inconclusive' : status,
  )(STATUS_MARK[status])
  const summary = [
    `${result.counts.completed}/${result.counts.total} requests completed in ${formatSeconds(result.durationMs)}${(result.trials?.length ?? 1) > 1 ? ` over ${result.trials?.length} trials` : ''}`,
    baselineText(styles, entry),
    sloText(styles, entry),
  ].filter((part): part is string => part !== undefined)
  const lines = [`${mark} ${styles.bold(entry.name)} ${styles.dim(`(${entry.file})`)}`, `  ${summary.join(' · ')}`]

  const checks = entry.verdict?.checks ?? []
  // vLLM's and AIPerf's columns: mean, median, p90, p99 (scalar rows hold their value in the mean column).
  const rows: string[][] = [['metric', 'mean', 'p50', 'p90', 'p99', 'vs baseline'].map((cell) => styles.dim(cell))]
  const distribution = (summaryOf: MetricSummary, unit: string): string[] =>
    [summaryOf.mean, summaryOf.p50, summaryOf.p90, summaryOf.p99].map((value) => formatWithUnit(value, unit))
  const scalar = (label: string, value: string, verdict: string): string[] => [label, value, '', '', '', verdict]
  for (const { metric, label, summary: summaryOf } of reportedLatencies(result)) {
    const metricChecks = checks.filter((check) => check.metric === metric)
    rows.push([label, ...distribution(summaryOf, 'ms'), checksText(styles, metricChecks, true)])
  }
  // The embeddings and rerank APIs: texts in, no output.
  const inputsOnly = result.throughput.inputsPerSec !== undefined
  // Lengths per completed request, as the server counted them (or the client, where it gave no usage).
  for (const [label, summaryOf] of [
    ['input tokens', result.metrics.inputTokens],
    ['output tokens', inputsOnly ? undefined : result.metrics.outputTokens],
    ['reasoning tokens', result.metrics.reasoningTokens],
  ] as const) {
    if (summaryOf !== undefined && summaryOf.count > 0) rows.push([label, ...distribution(summaryOf, 'tok'), ''])
  }
  if (inputsOnly) rows.push(scalar('texts/s', formatWithUnit(result.throughput.inputsPerSec ?? 0, 'texts/s'), ''))
  for (const [metric, label, unit] of [
    ['outputTokensPerSec', 'output tokens/s', 'tok/s'],
    ['totalTokensPerSec', inputsOnly ? 'input tokens/s' : 'total tokens/s', 'tok/s'],
    ['requestsPerSec', 'requests/s', 'req/s'],
  ] as const) {
    if (inputsOnly && metric === 'outputTokensPerSec') continue
    const gate = checkOf(checks, metric, 'value')
    rows.push(
      scalar(label, formatWithUnit(result.throughput[metric], unit), gate ? checkText(styles, gate, false) : ''),
    )
  }
  if (result.goodput)
    rows.push(
      scalar(
        'goodput',
        formatWithUnit(result.goodput.requestsPerSec, 'req/s'),
        `${formatShare(result.goodput.share)} of requests met the limits`,
      ),
    )
  const { failed, total: dispatched } = result.counts
  rows.push(scalar('errors', `${failed}/${dispatched}`, failed > 0 ? styles.red(errorKinds(result)) : ''))
  const gpu = gpuHeadline(result)
  if (gpu.memoryPeakMiB !== undefined)
    rows.push(scalar('GPU peak memory', formatWithUnit(gpu.memoryPeakMiB, 'MiB'), ''))
  if (gpu.energyPerOutputTokenJ !== undefined)
    rows.push(scalar('energy/token', formatWithUnit(gpu.energyPerOutputTokenJ, 'J'), ''))
  lines.push(...alignRows(rows, new Set([1, 2, 3, 4])).map((line) => `  ${line}`))
  const totals = totalsLine(result)
  if (totals !== undefined) lines.push(`  ${styles.dim('totals')}  ${totals}`)

  lines.push(
    `  ${styles.dim('config')}  ${configSummary(result.config)}`,
    `  ${styles.dim('env')}     ${environmentSummary(result.environment)}`,
  )
  // The server's own view of the same window, or why there is none; nothing when scraping was off.
  const server = serverFactsLine(serverFacts(result)) ?? serverMetricsNote(result)
  if (server !== undefined) lines.push(`  ${styles.dim('server')}  ${server}`)
  const sessions = sessionsLine(result)
  if (sessions !== undefined) lines.push(`  ${styles.dim('session')} ${sessions}`)
  for (const check of checks) {
    if (check.status !== 'inconclusive' || check.reason === undefined) continue
    lines.push(
      `  ${styles.yellow('?')}       ${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`} inconclusive: ${withoutNoted(check.reason, entry.verdict?.notes ?? [])}`,
    )
  }
  for (const note of entry.verdict?.notes ?? []) lines.push(`  ${styles.yellow('note')}    ${note}`)
  // Undecided checks are listed above from the verdict; the judge's other lines (baseline written, spread) here.
  for (const note of entry.notes ?? [])
    if (!note.startsWith('inconclusive: ')) lines.push(`  ${styles.yellow('note')}    ${note}`)
  for (const warning of result.warnings) lines.push(`  ${styles.yellow('warning')} ${warning}`)
  if (result.streaming.note) lines.push(`  ${styles.yellow('note')}    ${result.streaming.note}`)
  return lines.join('\n')
}

/** One table per bench, separated by blank lines (what the console reporter prints). */
export function renderConsoleTable(entries: readonly ReportEntry[], options: ConsoleTableOptions = {}): string {
  return entries.map((entry) => renderConsoleEntry(entry, options)).join('\n\n')
}

/**
 * A sweep for the terminal: status and name, the headlines (scenario, capacity, knee), each check,
 * warnings, and the curve as a fixed-width table.
 */
export function renderConsoleSweep(sweep: SweepSummary, options: ConsoleTableOptions = {}): string {
  const styles = stylesFor(options.color ?? false)
  const status = sweepStatus(sweep)
  const mark = statusStyle(styles, status === 'skipped' ? 'inconclusive' : status)(STATUS_MARK[status])
  const lines = [
    `${mark} ${styles.bold(sweep.name)} ${styles.dim(`(${sweep.file}, ${sweep.kind} over ${sweep.axis})`)}`,
  ]
  for (const headline of sweep.headlines) lines.push(`  ${headline}`)
  for (const check of sweep.checks) {
    const style = check.status === 'skip' ? styles.dim : statusStyle(styles, check.status)
    lines.push(`  ${style(check.status)} ${check.name}: ${check.message}`)
  }
  for (const warning of sweep.warnings) lines.push(`  ${styles.yellow('warning')} ${warning}`)
  lines.push(...sweep.table.split('\n').map((line) => `  ${line}`))
  return lines.join('\n')
}

/**
 * A comparison (`bench.llm.compare`) for the terminal: status and name, then its table (how the pairs ran, every
 * variant's gates) and the lines under it (pairs left out, what would decide an undecided gate).
 */
export function renderConsoleCompare(compare: CompareEntry, options: ConsoleTableOptions = {}): string {
  const styles = stylesFor(options.color ?? false)
  const mark = statusStyle(styles, compare.status)(STATUS_MARK[compare.status])
  const lines = [`${mark} ${styles.bold(compare.name)} ${styles.dim(`(${compare.file})`)}`]
  const table = formatCompareTable(compare.result).split('\n')
  lines.push(...[...table, ...formatCompareNotes(compare.result)].map((line) => `  ${line}`))
  return lines.join('\n')
}
