import { formatFigure } from '../platform/format-figure.ts'
import type { Check, Verdict } from './verdict.ts'

function formatTolerance(tolerance: number): string {
  const sign = tolerance < 0 ? '-' : '+'
  return `${sign}${Number((Math.abs(tolerance) * 100).toPrecision(4))}%`
}

function ratioText(value: number | null): string {
  return value === null ? '-' : value.toFixed(3)
}

function label(check: Check): string {
  return check.statistic === 'value' ? check.metric : `${check.metric} ${check.statistic}`
}

/** What changed in the software under test, as the lead of a verdict line (`vllm 0.10.1 -> 0.11.0: `); empty when nothing did. */
export function changedLead(verdict: Verdict): string {
  return verdict.changed && verdict.changed.length > 0 ? `${verdict.changed.join('; ')}: ` : ''
}

/**
 * A check's sample sizes, baseline/current: its trials where it was judged on trials (each trial one
 * observation: `5/3 trials`), else the samples within each run (requests, tokens or windows).
 */
export function sampleSizes(check: Pick<Check, 'n' | 'trials'>): string {
  return check.trials !== undefined
    ? `${check.trials.baseline}/${check.trials.current} trials`
    : `${check.n.baseline}/${check.n.current}`
}

/** Top-level parenthesised groups of a text, parentheses included: `a (b (c)) d (e)` gives `(b (c))` and `(e)`. */
function groupsOf(text: string): string[] {
  const groups: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(' && depth++ === 0) start = i
    else if (text[i] === ')' && depth > 0 && --depth === 0) groups.push(text.slice(start, i + 1))
  }
  return groups
}

/** A detail shorter than this is left in a reason even when a note repeats it (`(steal 9 %)`). */
const LONG_DETAIL = 40

/**
 * A check's reason without the long details a note below already gives (what disturbed the machine, with process
 * ids): said once in the note, not once per check.
 */
export function withoutNoted(reason: string, notes: readonly string[]): string {
  let text = reason
  for (const group of groupsOf(reason)) {
    if (group.length >= LONG_DETAIL && notes.some((note) => note.includes(group))) text = text.replace(` ${group}`, '')
  }
  return text
}

/** The reasons of the checks, checks with the same status and reason in one line (`ttftMs p50, tpotMs p50 …`). */
function reasonLines(checks: readonly Check[], notes: readonly string[]): string[] {
  const grouped = new Map<string, string[]>()
  for (const check of checks) {
    if (check.reason === undefined) continue
    const key = `${check.status}: ${withoutNoted(check.reason, notes)}`
    grouped.set(key, [...(grouped.get(key) ?? []), label(check)])
  }
  return [...grouped].map(([key, labels]) => `  ${labels.join(', ')} ${key}`)
}

/** Options of {@link formatVerdict}. */
export interface FormatVerdictOptions {
  /** End with the line that says what ratio and CI mean. Default true; `diff` says it once for all benches. */
  legend?: boolean
}

/** The line that says what a verdict's ratio and interval mean, at its confidence (`95%`). */
export function verdictLegend(level: string): string {
  return `ratio = current / baseline; CI = ${level} confidence interval of the ratio; a check fails only when its whole CI lies beyond the tolerance.`
}

/**
 * One readable block: a headline with the overall status, then one row per check with baseline,
 * current, ratio, confidence interval, tolerance and sample sizes side by side in aligned columns,
 * then the reasons (each long detail once, in the notes) and notes. Meant for assertion messages and console reports.
 */
export function formatVerdict(verdict: Verdict, options: FormatVerdictOptions = {}): string {
  const level = `${Number((verdict.confidence * 100).toPrecision(4))}%`
  const counts = (['fail', 'inconclusive', 'pass'] as const)
    .map((status) => [status, verdict.checks.filter((check) => check.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`)
  const headline = `Baseline comparison: ${changedLead(verdict)}${verdict.status.toUpperCase()}${counts.length > 0 ? ` (${counts.join(', ')})` : ' (no checks)'}`
  const header = ['check', 'baseline', 'current', 'ratio', `${level} CI`, 'tolerance', 'n base/cur', 'status']
  const rows = verdict.checks.map((check) => [
    label(check),
    `${formatFigure(check.baseline)} ${check.unit}`,
    `${formatFigure(check.current)} ${check.unit}`,
    ratioText(check.ratio),
    check.ciLow === null || check.ciHigh === null ? '-' : `[${ratioText(check.ciLow)}, ${ratioText(check.ciHigh)}]`,
    formatTolerance(check.tolerance),
    sampleSizes(check),
    check.status.toUpperCase(),
  ])
  const table = [header, ...rows]
  const widths = header.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length)))
  // Text columns align left, figures right, so digits line up.
  const rightAligned = new Set([1, 2, 3, 6])
  const lines = table.map(
    (row) =>
      `  ${row
        .map((cell, column) => {
          const width = widths[column] ?? 0
          return rightAligned.has(column) ? cell.padStart(width) : cell.padEnd(width)
        })
        .join('  ')
        .trimEnd()}`,
  )
  const out = [headline, ...lines]
  const reasons = reasonLines(verdict.checks, verdict.notes)
  if (reasons.length > 0) out.push('', ...reasons)
  if (verdict.notes.length > 0) out.push('', ...verdict.notes.map((note) => `  Note: ${note}`))
  if (verdict.server) out.push('', `  Server side, baseline -> this run: ${verdict.server}`)
  if (options.legend !== false) out.push('', `  ${verdictLegend(level)}`)
  return out.join('\n')
}
