/**
 * The full report of an `ab` run, beside its short `comment.md`: every bench with both arms' figures
 * (each arm's trials merged), the paired verdict gate by gate with its interval and pairs, what
 * changed in the server, the drift guard and head's SLOs; as Markdown (`summary.md`, also the
 * GitHub step summary) and as one self-contained HTML page (`report.html`).
 */
import type { AbBenchVerdict } from '../src/bench/ab-verdict.ts'
import type { ArmFile, SkippedInArm } from '../src/bench/arm-file.ts'
import type { BenchmarkResult } from '../src/core/contract/result.ts'
import { formatFigure } from '../src/core/platform/format-figure.ts'
import { mergeTrials } from '../src/core/trials/index.ts'
import { beyondMorePairs, type PairedCheck } from '../src/core/verdict/paired-verdict.ts'
import {
  abHeadLine,
  abTitle,
  AB_STATUS_SYMBOL,
  notComparedLine,
  ratioWithChange,
  type AbSummary,
} from './ab-comment.ts'
import { abMachineLine } from './ab-machine.ts'
import { formatWithUnit } from './format-figures.ts'
import { reportedLatencies, THROUGHPUT_LABELS } from './headline-figures.ts'
import { escapeHtml } from './html/escape-html.ts'
import { HTML_REPORT_STYLE } from './html/html-style.ts'
import { markdownTable } from './markdown-table.ts'

/** One bench of an `ab` run as its report shows it: the verdict and each arm's trials merged. */
export interface AbBenchReport {
  verdict: AbBenchVerdict
  /** The base arm's trials merged into one result; absent for a bench new in head. */
  base?: BenchmarkResult
  /** The head arm's trials merged; absent for a bench only in base. */
  head?: BenchmarkResult
}

/** Each verdict with its arms' trials merged, from the arm files of the run. */
export function abBenchReports(verdicts: readonly AbBenchVerdict[], files: readonly ArmFile[]): AbBenchReport[] {
  return verdicts.map((verdict) => {
    const report: AbBenchReport = { verdict }
    for (const arm of ['base', 'head'] as const) {
      const trials = files.filter(
        (file) => file.arm === arm && file.file === verdict.file && file.name === verdict.name,
      )
      if (trials.length > 0) report[arm] = mergeTrials(trials.map((file) => file.result))
    }
    return report
  })
}

/** A table: header, column alignment, rows of text. */
interface Table {
  header: string[]
  align: ('l' | 'r')[]
  rows: string[][]
}

const gateName = (check: Pick<PairedCheck, 'metric' | 'statistic' | 'tolerance'>): string =>
  `${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`} (${check.tolerance >= 0 ? '+' : ''}${Math.round(check.tolerance * 100)} %)`

const intervalOf = (check: PairedCheck): string =>
  check.ciLow === null || check.ciHigh === null ? '-' : `[${check.ciLow.toFixed(3)}, ${check.ciHigh.toFixed(3)}]`

/** The paired gates: base and head figures (geometric means of the kept pairs), ratio, interval, pairs, verdict. */
function gateTable(checks: readonly (PairedCheck & { control: number; variant: number })[]): Table {
  return {
    header: ['Gate', 'Base', 'Head', 'Head / base', 'Interval', 'Pairs', 'Verdict', 'Why'],
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'l', 'l'],
    rows: checks.map((check) => [
      gateName(check),
      formatWithUnit(check.control, check.unit),
      formatWithUnit(check.variant, check.unit),
      ratioWithChange(check.ratio),
      intervalOf(check),
      String(check.pairs),
      check.status,
      [
        check.reason,
        beyondMorePairs(check) === undefined ? '' : `more pairs cannot decide it: ${beyondMorePairs(check)}`,
        check.pairsToDecide === undefined ? '' : `about ${check.pairsToDecide} pairs would decide`,
      ]
        .filter(Boolean)
        .join('; '),
    ]),
  }
}

/** Both arms' headline figures side by side: every latency's p50 and p99, then the throughputs. */
function armsTable(base: BenchmarkResult | undefined, head: BenchmarkResult | undefined): Table {
  const rows: string[][] = []
  const ratio = (b: number | undefined, h: number | undefined): string =>
    b !== undefined && h !== undefined && b > 0 ? `${(h / b).toFixed(3)}x` : '-'
  const shown = head ?? base
  if (shown === undefined) return { header: [], align: [], rows }
  for (const latency of reportedLatencies(shown)) {
    for (const statistic of ['p50', 'p99'] as const) {
      const b = base?.metrics[latency.metric]?.[statistic]
      const h = head?.metrics[latency.metric]?.[statistic]
      rows.push([`${latency.label} ${statistic}`, formatWithUnit(b, 'ms'), formatWithUnit(h, 'ms'), ratio(b, h)])
    }
  }
  for (const { metric, label, unit } of THROUGHPUT_LABELS) {
    const [b, h] = [base?.throughput[metric], head?.throughput[metric]]
    rows.push([label, formatWithUnit(b, unit), formatWithUnit(h, unit), ratio(b, h)])
  }
  const counts = (result: BenchmarkResult | undefined): string =>
    result === undefined ? '-' : `${result.counts.completed}/${result.counts.total}`
  rows.push(['requests completed', counts(base), counts(head), ''])
  return { header: ['Figure (trials merged)', 'Base', 'Head', 'Head / base'], align: ['l', 'r', 'r', 'r'], rows }
}

/** What a bench's section says above its tables, one sentence each. */
function benchNotes(verdict: AbBenchVerdict): string[] {
  const notes: string[] = []
  if (verdict.status === 'new') notes.push('New in head: no base arm to compare with; its SLOs still apply.')
  if (verdict.status === 'gone') notes.push('In base only: not in the working tree.')
  if (verdict.status === 'changed')
    notes.push(
      `Its workload or load differs between the revisions, so no relative verdict: ${(verdict.changes ?? []).join(', ')}.`,
    )
  if (verdict.status === 'not gated') notes.push('Not gated (`baseline: false`): figures only.')
  if (verdict.fault !== undefined) notes.push(verdict.fault)
  const changed = verdict.paired?.changed ?? []
  if (changed.length > 0) notes.push(`Head against base: ${changed.join('; ')}.`)
  for (const voided of verdict.paired?.voided ?? []) notes.push(voided)
  if ((verdict.paired?.bothDisturbed ?? 0) > 0)
    notes.push(
      `${verdict.paired?.bothDisturbed} pair(s) kept although both arms were disturbed: the disturbance cancels in their ratio.`,
    )
  if (verdict.drift !== undefined) notes.push(`Drift guard: ${verdict.drift}.`)
  return notes
}

/** Head's SLO checks on its trials together. */
function sloTable(verdict: AbBenchVerdict): Table | undefined {
  const checks = verdict.sloChecks ?? []
  if (checks.length === 0) return undefined
  return {
    header: ['SLO (head)', 'Measured', 'Limit', 'Verdict'],
    align: ['l', 'r', 'r', 'l'],
    rows: checks.map((check) => [
      `${check.metric} ${check.statistic}`,
      check.measured === null ? '-' : formatWithUnit(check.measured, check.unit),
      `${check.bound === 'max' ? '≤' : '≥'} ${formatFigure(check.limit)} ${check.unit}`,
      check.status,
    ]),
  }
}

function tablesOf(bench: AbBenchReport): Table[] {
  const tables: Table[] = []
  if (bench.verdict.paired) tables.push(gateTable(bench.verdict.paired.checks))
  const arms = armsTable(bench.base, bench.head)
  if (arms.rows.length > 0) tables.push(arms)
  const slo = sloTable(bench.verdict)
  if (slo) tables.push(slo)
  return tables
}

/** `summary.md` of an `ab` run: the head line, then a section per bench with its notes and tables. */
export function renderAbMarkdown(
  benches: readonly AbBenchReport[],
  summary: AbSummary,
  notCompared: readonly SkippedInArm[] = [],
): string {
  const out = [
    `## ${abTitle(
      benches.map((bench) => bench.verdict),
      summary,
    )}`,
    '',
    abHeadLine(summary),
  ]
  if (summary.machine !== undefined) out.push('', abMachineLine(summary.machine))
  if (notCompared.length > 0) out.push('', `${AB_STATUS_SYMBOL['not gated']} ${notComparedLine(notCompared)}`)
  for (const bench of benches) {
    const { verdict } = bench
    const pairs = verdict.pairs > 0 ? `, ${verdict.pairs} pair${verdict.pairs === 1 ? '' : 's'}` : ''
    out.push(
      '',
      `### ${AB_STATUS_SYMBOL[verdict.status]} ${verdict.name}`,
      '',
      `\`${verdict.file}\` · ${verdict.status}${pairs}`,
    )
    for (const note of benchNotes(verdict)) out.push('', `> ${note}`)
    for (const table of tablesOf(bench)) out.push('', markdownTable(table.header, table.align, table.rows))
  }
  return `${out.join('\n')}\n`
}

function htmlTable(table: Table): string {
  const head = table.header.map(
    (cell, i) => `<th class="${table.align[i] === 'r' ? 'num' : ''}">${escapeHtml(cell)}</th>`,
  )
  const rows = table.rows.map(
    (row) =>
      `<tr>${row.map((cell, i) => `<td class="${table.align[i] === 'r' ? 'num' : ''}${cell === 'fail' || cell === 'pass' || cell === 'inconclusive' ? ` status-${cell}` : ''}">${escapeHtml(cell)}</td>`).join('')}</tr>`,
  )
  return `<table><thead><tr>${head.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`
}

/** `report.html` of an `ab` run: the same content as {@link renderAbMarkdown}, one self-contained page. */
export function renderAbHtml(
  benches: readonly AbBenchReport[],
  summary: AbSummary,
  notCompared: readonly SkippedInArm[] = [],
): string {
  const sections = benches.map((bench) => {
    const { verdict } = bench
    const badge = verdict.status === 'fault' ? 'fail' : verdict.status
    return [
      `<section class="bench"><h2><span class="badge ${escapeHtml(badge)}">${escapeHtml(verdict.status)}</span> ${escapeHtml(verdict.name)}</h2>`,
      `<p class="facts">${escapeHtml(`${verdict.file} · ${verdict.pairs} pairs`)}</p>`,
      ...benchNotes(verdict).map((note) => `<p class="note">${escapeHtml(note)}</p>`),
      ...tablesOf(bench).map(htmlTable),
      '</section>',
    ].join('')
  })
  const title = abTitle(
    benches.map((bench) => bench.verdict),
    summary,
  )
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title><style>${HTML_REPORT_STYLE}</style></head><body><main>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="subtitle">${escapeHtml(abHeadLine(summary))}</p>`,
    notCompared.length > 0 ? `<p class="note">${escapeHtml(notComparedLine(notCompared))}</p>` : '',
    ...sections,
    '</main></body></html>',
  ].join('\n')
}
