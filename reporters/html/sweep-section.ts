import { shownTailOf, type SweepCheck } from '../../src/core/sweep/index.ts'
import { figureOrDash, formatSeconds, formatWithUnit } from '../format-figures.ts'
import type { ReportEntry } from '../report-entry.ts'
import { answerValueOf, sweepStatus, type SweepSummary } from '../sweep-entry.ts'
import { escapeHtml } from './escape-html.ts'
import { renderCurveChart, type CurveSpec } from './svg-chart.ts'
import { htmlTable } from './html-table.ts'

/** One sweep as the HTML report shows it: its summary (absent in an older result format), its points, its curve. */
export interface SweepGroup {
  /** The sweep's test name with its describe path. */
  name: string
  summary?: SweepSummary
  /** The sweep's points (report entries with `sweep`), in value order. */
  points: ReportEntry[]
  curve?: CurveSpec
}

/**
 * The sweeps of a run, in the order their points come: each with its summary and curve (matched
 * by the sweep's name). Entries that are no sweep point are left out.
 */
export function sweepGroups(
  entries: readonly ReportEntry[],
  sweeps: readonly SweepSummary[],
  curves: readonly CurveSpec[],
): SweepGroup[] {
  const groups = new Map<string, SweepGroup>()
  for (const entry of entries) {
    const name = entry.sweep?.name
    if (name === undefined) continue
    let group = groups.get(name)
    if (!group) {
      group = { name, points: [] }
      const summary = sweeps.find((sweep) => sweep.name === name)
      if (summary) group.summary = summary
      const curve = curves.find((candidate) => candidate.sweep === name)
      if (curve) group.curve = curve
      groups.set(name, group)
    }
    group.points.push(entry)
  }
  return [...groups.values()]
}

/** Anchor of the `index`-th sweep section. */
export function sweepAnchor(index: number): string {
  return `sweep-${index + 1}`
}

/** A sweep's status: its checks and test state; `measured` for a result without its summary. */
export function groupStatus(group: SweepGroup): string {
  return group.summary ? sweepStatus(group.summary) : 'measured'
}

/** A sweep's answer in one line: its headlines (scenario, capacity, knee) joined. */
export function sweepAnswer(group: SweepGroup): string {
  const headlines = group.summary?.headlines ?? []
  return headlines.length > 0 ? headlines.join('; ') : 'no knee, capacity or scenario in this result'
}

/** Which answer the point at `value` is (`knee`, `capacity`), or empty. */
function answerMark(summary: SweepSummary | undefined, value: number | undefined): string {
  if (!summary || value === undefined || answerValueOf(summary) !== value) return ''
  return summary.kind === 'sweep' ? 'knee' : 'capacity'
}

/** The curve's caption: which point is drawn in bold, when the sweep has an answer among its points. */
function curveNote(summary: SweepSummary | undefined): string {
  if (!summary || answerValueOf(summary) === undefined) return 'one marker per point'
  return `one marker per point; the ${summary.kind === 'sweep' ? 'knee' : 'capacity'} in bold`
}

/**
 * Whether the point at `value` of a capacity search (or a scenario's search) missed its limits:
 * the capacity is the highest rate tried that met them, so every rate above it (every rate, when
 * none met them) did not.
 */
function missedLimits(summary: SweepSummary | undefined, value: number | undefined): boolean {
  if (!summary?.capacity || summary.kind === 'sweep' || value === undefined) return false
  const { rate } = summary.capacity
  return rate === undefined || value > rate
}

/** The answer: each headline (the scenario with VALID or INVALID and why, the capacity, the knee). */
function answerBlock(summary: SweepSummary | undefined): string {
  if (!summary) return '<p class="note">This result has no knee, capacity or checks (an older format).</p>'
  const headlines = summary.headlines.map((line) => `<p class="headline">${escapeHtml(line)}</p>`)
  const reasons = summary.scenario?.reasons.map((why) => `<li>${escapeHtml(why)}</li>`) ?? []
  const invalid = reasons.length > 0 ? `<ul class="reasons">${reasons.join('')}</ul>` : ''
  return headlines.length > 0 || invalid ? `<div class="answer">${headlines.join('')}${invalid}</div>` : ''
}

function checksTable(checks: readonly SweepCheck[]): string {
  if (checks.length === 0) return ''
  const rows = checks.map((check) => [
    escapeHtml(check.name),
    `<span class="status-${check.status}">${escapeHtml(check.status)}</span>`,
    escapeHtml(check.message),
  ])
  return `<h3>Checks on the curve</h3>${htmlTable(['check', 'verdict', 'detail'], rows)}`
}

/**
 * The sweep's own warnings (which name the point of a point's own warning), then the other warnings
 * of its points once each, with the points they came from.
 */
function warningsBlock(group: SweepGroup): string {
  const own = group.summary?.warnings ?? []
  const axis = group.summary?.axis ?? group.points[0]?.sweep?.axis ?? 'value'
  const byWarning = new Map<string, number[]>()
  for (const point of group.points)
    for (const warning of point.result.warnings)
      if (!own.some((line) => line === warning || line.endsWith(`: ${warning}`)))
        byWarning.set(warning, [...(byWarning.get(warning) ?? []), point.sweep?.value ?? NaN])
  const lines = [
    ...own,
    ...[...byWarning].map(([warning, values]) =>
      values.length === group.points.length ? `every point: ${warning}` : `at ${axis} ${values.join(', ')}: ${warning}`,
    ),
  ]
  return lines.map((line) => `<div class="warning">${escapeHtml(line)}</div>`).join('')
}

/** The curve as a table: one row per point, the answer's row marked; tails at a capacity search's own percentile. */
function pointsTable(group: SweepGroup): string {
  const axis = group.summary?.axis ?? group.points[0]?.sweep?.axis ?? 'value'
  const tail = group.summary ? shownTailOf(group.summary) : 'p99'
  const latency = (
    entry: ReportEntry,
    metric: 'ttftMs' | 'tpotMs' | 'e2eMs',
    statistic: 'p50' | 'p90' | 'p99',
  ): string =>
    entry.result.metrics[metric].count > 0
      ? escapeHtml(formatWithUnit(entry.result.metrics[metric][statistic], 'ms'))
      : '-'
  const rows = group.points.map((entry) => {
    const { result } = entry
    const mark = answerMark(group.summary, entry.sweep?.value)
    return [
      `${escapeHtml(figureOrDash(entry.sweep?.value))}${mark ? ` <span class="answer-mark">← ${mark}</span>` : ''}${
        missedLimits(group.summary, entry.sweep?.value) ? ' <span class="missed">missed the limits</span>' : ''
      }`,
      latency(entry, 'ttftMs', 'p50'),
      latency(entry, 'ttftMs', tail),
      latency(entry, 'tpotMs', 'p50'),
      latency(entry, 'tpotMs', tail),
      latency(entry, 'e2eMs', tail),
      escapeHtml(figureOrDash(result.throughput.outputTokensPerSec)),
      escapeHtml(figureOrDash(result.throughput.requestsPerSec)),
      escapeHtml(`${result.counts.failed}/${result.counts.total}`),
      escapeHtml(formatSeconds(result.durationMs)),
    ]
  })
  const header = [
    axis,
    'TTFT p50',
    `TTFT ${tail}`,
    'TPOT p50',
    `TPOT ${tail}`,
    `E2E ${tail}`,
    'output tok/s',
    'req/s',
    'errors',
    'duration',
  ]
  return `<h3>Points</h3>${htmlTable(header, rows, new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))}`
}

/**
 * One section for a sweep, capacity search or scenario: its answer first (knee, capacity, the
 * scenario's VALID or INVALID with its metric), the checks on the curve, the points as rows of one
 * table, the curve as a chart, then `inventory` (the configuration and environment). Not a card
 * per point: the points are measured, the sweep is what is judged.
 */
export function renderSweepSection(group: SweepGroup, index: number, inventory: string): string {
  const status = groupStatus(group)
  const { summary } = group
  const first = group.points[0]
  const kind = summary ? `${summary.kind} over ${summary.axis}` : `sweep over ${first?.sweep?.axis ?? 'value'}`
  const facts = [
    `<span class="file">${escapeHtml(summary?.file ?? first?.file ?? '')}</span>`,
    escapeHtml(`${group.points.length} point${group.points.length === 1 ? '' : 's'}`),
    first ? escapeHtml(`started ${first.result.startedAt}`) : '',
  ].filter(Boolean)
  const chart =
    group.curve && group.curve.points.length > 0
      ? `<h3>Curve</h3><div class="charts">${renderCurveChart(group.curve.points, {
          id: `${sweepAnchor(index)}-curve`,
          title: group.curve.title,
          xLabel: group.curve.xLabel,
          yLabel: group.curve.yLabel,
          note: curveNote(summary),
        })}</div>`
      : ''
  return [
    `<section class="bench sweep" id="${sweepAnchor(index)}" data-status="${status}">`,
    `<h2><span class="badge ${status}">${escapeHtml(status)}</span>${escapeHtml(group.name)}<span class="kind">${escapeHtml(kind)}</span></h2>`,
    `<p class="facts">${facts.join(' · ')}</p>`,
    answerBlock(summary),
    warningsBlock(group),
    checksTable(summary?.checks ?? []),
    pointsTable(group),
    chart,
    inventory,
    '</section>',
  ].join('')
}
