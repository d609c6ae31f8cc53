import { interruptionNote } from '../interruption.ts'
import { shownPath } from '../../src/core/platform/shown-path.ts'
import { type BaselineEntry } from '../../src/core/baseline/index.ts'
import { sampleSizes, type Check } from '../../src/core/verdict/index.ts'
import type { SloCheck } from '../../src/core/slo/index.ts'
import { soakSection } from './soak-section.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { formatChange, figureOrDash, formatSeconds, formatShare, formatWithUnit } from '../format-figures.ts'
import { checkLabel, checkOf, gpuHeadline, mainThroughput, reportedLatencies } from '../headline-figures.ts'
import { configRows, environmentRows } from '../inventory.ts'
import { entryStatus, type ReportEntry, type UnmeasuredBench } from '../report-entry.ts'
import { runCounts } from '../run-counts.ts'
import {
  serverDialectName,
  serverFacts,
  serverFactsLine,
  serverMetricsNote,
  type ServerFactKey,
} from '../server-metrics-facts.ts'
import type { SweepSummary } from '../sweep-entry.ts'
import { cdfPoints, gpuSeries, serverGaugePoints, timelineInFlight, timelineRate } from './chart-data.ts'
import { escapeHtml } from './escape-html.ts'
import { htmlTable } from './html-table.ts'
import {
  groupStatus,
  renderSweepSection,
  sweepAnchor,
  sweepAnswer,
  sweepGroups,
  type SweepGroup,
} from './sweep-section.ts'
import { htmlDocument } from './html-style.ts'
import { renderCurveChart, renderLineChart, SERIES_PALETTE, type ChartSeries, type CurveSpec } from './svg-chart.ts'

/** Options of {@link renderHtml}. */
export interface HtmlReportOptions {
  /** Page title. Default `vitest-llm-bench report`. */
  title?: string
  /** Baseline entries to draw CDFs against (see `loadBaselines`). */
  baselines?: ReadonlyMap<ReportEntry, BaselineEntry>
  /** Curves drawn at the top of the report, e.g. throughput against latency over a sweep. */
  curves?: readonly CurveSpec[]
  /** Time of writing, ISO 8601. Default: now. */
  generatedAt?: string
  /**
   * Sweep summaries (see `collectReport`): counted apart from the benches, whose entries include
   * their points; each sweep gets one section with its answer, checks, points and curve.
   */
  sweeps?: readonly SweepSummary[]
  /** Benches that failed before they had a result (see `collectReport`): counted, with their errors. */
  unmeasured?: readonly UnmeasuredBench[]
  /** The signal that stopped the run, when one did: said under the title. */
  interrupted?: string
}

const CURRENT_COLOR = SERIES_PALETTE[0]
const BASELINE_COLOR = '#8c959f'

function anchorOf(index: number): string {
  return `bench-${index + 1}`
}

function statusClass(status: string): string {
  return `status-${status}`
}

function deltaHtml(check: Check | undefined): string {
  if (!check) return ''
  return `<div class="delta ${statusClass(check.status)}">${escapeHtml(`${formatChange(check.ratio)} vs baseline · ${check.status}`)}</div>`
}

function card(label: string, value: string, check?: Check): string {
  return `<div class="card"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div>${deltaHtml(check)}</div>`
}

function cards(entry: ReportEntry): string {
  const { result } = entry
  const checks = entry.verdict?.checks
  const out: string[] = []
  for (const { metric, label, summary } of reportedLatencies(result)) {
    for (const statistic of ['p50', 'p99'] as const) {
      out.push(
        card(`${label} ${statistic}`, formatWithUnit(summary[statistic], 'ms'), checkOf(checks, metric, statistic)),
      )
    }
  }
  const main = mainThroughput(result)
  out.push(card(main.label, figureOrDash(main.value), checkOf(checks, main.metric, 'value')))
  if (result.throughput.inputsPerSec !== undefined)
    out.push(card('texts/s', figureOrDash(result.throughput.inputsPerSec)))
  out.push(
    card('requests/s', figureOrDash(result.throughput.requestsPerSec), checkOf(checks, 'requestsPerSec', 'value')),
  )
  if (result.goodput)
    out.push(
      card('goodput', `${figureOrDash(result.goodput.requestsPerSec)} req/s (${formatShare(result.goodput.share)})`),
    )
  out.push(card('errors', `${result.counts.failed} / ${result.counts.total}`))
  const gpu = gpuHeadline(result)
  if (gpu.memoryPeakMiB !== undefined) out.push(card('GPU peak memory', formatWithUnit(gpu.memoryPeakMiB, 'MiB')))
  if (gpu.energyPerOutputTokenJ !== undefined)
    out.push(card('energy / output token', formatWithUnit(gpu.energyPerOutputTokenJ, 'J')))
  if (result.cost) out.push(card('cost / 1M output tokens', figureOrDash(result.cost.perMillionOutputTokens)))
  return `<div class="cards">${out.join('')}</div>`
}

const table = htmlTable

function verdictSection(entry: ReportEntry): string {
  const verdict = entry.verdict
  if (!verdict) {
    const state = entry.baselineState
    if (!state) return ''
    const text: Record<string, string> = {
      written: 'No baseline existed: this run was recorded as the baseline.',
      updated: 'The baseline was rewritten with this run (-u).',
      missing: 'No baseline exists and this run could not record one (CI).',
      mismatch: 'The stored baseline belongs to other hardware, software or configuration: not compared.',
      provisional:
        'The machine was disturbed while this run measured: it was recorded as a provisional baseline. No verdict passes against it; the next run on a quiet machine replaces it.',
      'not judged':
        'The machine was disturbed and too many requests failed or were cut off: neither compared nor written.',
      deferred:
        'A segment of a split load or an arm of a side-by-side pair: judged with the others, after the merge or by ab.',
      'stopped early':
        'stopWhen stopped the load early: neither compared with the baseline nor recorded as one (not with -u either).',
    }
    // As the console names it (relative to the working directory): a report from a CI runner shows none of its paths.
    const path = entry.baselinePath ? shownPath(entry.baselinePath) : undefined
    return `<h3>Baseline</h3><p>${escapeHtml(text[state] ?? state)}${path ? ` <span class="file">${escapeHtml(path)}</span>` : ''}</p>`
  }
  const level = `${Number((verdict.confidence * 100).toPrecision(4))}%`
  const rows = verdict.checks.map((check) => [
    escapeHtml(checkLabel(check)),
    escapeHtml(formatWithUnit(check.baseline, check.unit)),
    escapeHtml(formatWithUnit(check.current, check.unit)),
    escapeHtml(formatChange(check.ratio)),
    check.ciLow === null || check.ciHigh === null
      ? '-'
      : escapeHtml(`${check.ciLow.toFixed(3)} – ${check.ciHigh.toFixed(3)}`),
    escapeHtml(`${check.tolerance >= 0 ? '+' : '-'}${Number((Math.abs(check.tolerance) * 100).toPrecision(4))}%`),
    escapeHtml(sampleSizes(check)),
    `<span class="${statusClass(check.status)}">${escapeHtml(check.status)}</span>${check.reason ? `<div class="note">${escapeHtml(check.reason)}</div>` : ''}`,
  ])
  const changed =
    verdict.changed && verdict.changed.length > 0
      ? [`<p class="note">Changed since the baseline: ${escapeHtml(verdict.changed.join('; '))}</p>`]
      : []
  const notes = [...changed, ...verdict.notes.map((note) => `<p class="note">${escapeHtml(note)}</p>`)].join('')
  return `<h3>Baseline vs current <span class="${statusClass(verdict.status)}">(${escapeHtml(verdict.status)})</span></h3>${table(
    ['check', 'baseline', 'current', 'change', `${level} CI of ratio`, 'tolerance', 'n base / cur', 'verdict'],
    rows,
    new Set([1, 2, 3, 4, 5, 6]),
  )}${notes}`
}

/** The judge's lines (a baseline recorded provisionally, a merge without verdict, undecided checks), one paragraph each. */
function judgeNotes(notes: readonly string[] | undefined): string {
  if (!notes || notes.length === 0) return ''
  return notes.map((note) => `<p class="judge-note">${escapeHtml(note)}</p>`).join('')
}

function sloSection(checks: readonly SloCheck[] | undefined): string {
  if (!checks || checks.length === 0) return ''
  const show = (value: number, unit: string): string =>
    unit === 'share' ? formatShare(value) : formatWithUnit(value, unit)
  const rows = checks.map((check) => [
    escapeHtml(
      check.statistic === 'min' || check.statistic === 'max' ? check.metric : `${check.metric} ${check.statistic}`,
    ),
    escapeHtml(check.measured === null ? '-' : show(check.measured, check.unit)),
    escapeHtml(`${check.bound === 'max' ? '≤' : '≥'} ${show(check.limit, check.unit)}`),
    escapeHtml(String(check.n)),
    `<span class="${statusClass(check.status)}">${escapeHtml(check.status)}</span>`,
  ])
  return `<h3>SLOs</h3>${table(['limit', 'measured', 'bound', 'n', 'verdict'], rows, new Set([1, 2, 3]))}`
}

function cdfChart(id: string, title: string, current: string | undefined, baseline: string | undefined): string {
  const series: ChartSeries[] = [{ name: 'current', points: cdfPoints(current), color: CURRENT_COLOR }]
  const baselinePoints = cdfPoints(baseline)
  if (baselinePoints.length > 0)
    series.push({ name: 'baseline', points: baselinePoints, color: BASELINE_COLOR, dashed: true })
  return renderLineChart(series, {
    id,
    title,
    xLabel: 'milliseconds',
    yLabel: 'share of requests',
    yMin: 0,
    yMax: 1,
    formatY: (value) => `${Math.round(value * 100)}%`,
    note:
      baselinePoints.length > 0
        ? 'current (solid) against the stored baseline (dashed)'
        : 'no baseline to compare with',
  })
}

/** What a result's timeline covers: its duration (ms), its output tokens/s, and how charts name it. */
interface TimelineSpan {
  durationMs: number
  outputTokensPerSec: number
  /** Added to the charts' titles: empty for a one-trial result. */
  title: string
  /** Said under the charts: which trial, and the mean of all of them. */
  note: string
}

/**
 * The span a result's timeline covers. A result of several trials keeps the last trial's timeline
 * only (`mergeTrials`) while its duration is the sum of every trial's: its windows are charted over
 * that last trial's own duration and labelled so. Placing every trial's windows in sequence would
 * be the fuller picture, but the result does not keep the earlier trials' windows; stretching one
 * trial's windows over the summed duration drew a fake collapse after them.
 */
export function timelineSpan(result: BenchmarkResult): TimelineSpan {
  const trials = result.trials ?? []
  const last = trials[trials.length - 1]
  if (trials.length < 2 || last === undefined)
    return {
      durationMs: result.durationMs,
      outputTokensPerSec: result.throughput.outputTokensPerSec,
      title: '',
      note: `run mean ${figureOrDash(result.throughput.outputTokensPerSec)} tok/s`,
    }
  return {
    durationMs: last.durationMs,
    outputTokensPerSec: last.throughput.outputTokensPerSec,
    title: ' (last trial)',
    note: `the last of ${trials.length} trials (${formatSeconds(last.durationMs)}), its mean ${figureOrDash(last.throughput.outputTokensPerSec)} tok/s; all trials ${figureOrDash(result.throughput.outputTokensPerSec)} tok/s`,
  }
}

/** Output tokens/s and requests in flight over the span of the result's timeline (see {@link timelineSpan}). */
function timelineCharts(result: BenchmarkResult, timeline: NonNullable<BenchmarkResult['timeline']>): string[] {
  const span = timelineSpan(result)
  const window = `${figureOrDash(timeline.windowMs / 1000)} s window`
  return [
    renderLineChart(
      [{ name: 'output tokens/s', points: timelineRate(timeline, timeline.outputTokens, span.durationMs) }],
      {
        id: 'tokens-over-time',
        title: `Output tokens per second over time${span.title}`,
        xLabel: 'seconds',
        yLabel: 'tokens/s',
        xMin: 0,
        note: `per ${window}; ${span.note}`,
      },
    ),
    renderLineChart([{ name: 'most in flight', points: timelineInFlight(timeline, span.durationMs), step: true }], {
      id: 'in-flight-over-time',
      title: `Requests in flight over time${span.title}`,
      xLabel: 'seconds',
      yLabel: 'requests',
      xMin: 0,
      note: `most at once in each ${window}`,
    }),
  ]
}

function charts(entry: ReportEntry, baseline: BaselineEntry | undefined): string {
  const { result } = entry
  const out = [
    cdfChart('ttft-cdf', 'TTFT distribution (CDF)', result.histograms.ttftUs, baseline?.histograms.ttftUs),
    cdfChart('e2e-cdf', 'E2E latency distribution (CDF)', result.histograms.e2eUs, baseline?.histograms.e2eUs),
  ]
  const notes: string[] = []
  if (result.timeline && result.timeline.outputTokens.length > 0) out.push(...timelineCharts(result, result.timeline))
  else notes.push('No timeline in this result: no throughput or in-flight chart.')
  const samples = result.gpu?.samples ?? []
  const memory = gpuSeries(samples, 'memoryUsedMiB')
  const power = gpuSeries(samples, 'powerW')
  const gpuName = (index: number): string => `GPU ${index}`
  if (memory.size > 0) {
    out.push(
      renderLineChart(
        [...memory].map(([index, points]) => ({ name: gpuName(index), points })),
        {
          id: 'gpu-memory',
          title: 'GPU memory used over time',
          xLabel: 'seconds',
          yLabel: 'MiB',
          xMin: 0,
          note: `nvidia-smi every ${figureOrDash(result.gpu?.intervalMs ?? 0)} ms`,
        },
      ),
    )
  }
  if (power.size > 0) {
    out.push(
      renderLineChart(
        [...power].map(([index, points]) => ({ name: gpuName(index), points })),
        {
          id: 'gpu-power',
          title: 'GPU power draw over time',
          xLabel: 'seconds',
          yLabel: 'watts',
          xMin: 0,
        },
      ),
    )
  }
  if (memory.size === 0 && power.size === 0)
    notes.push(result.gpu?.note ?? 'No GPU telemetry (no NVIDIA driver found): no GPU charts.')
  return `<h3>Charts</h3><div class="charts">${out.join('')}</div>${notes.map((note) => `<p class="note">${escapeHtml(note)}</p>`).join('')}`
}

/** A share as a percentage tick (`0.05%`, `12%`, `100%`): three significant digits, so small shares keep theirs. */
export function formatPercentTick(share: number): string {
  return `${Number((share * 100).toPrecision(3))}%`
}

/** Facts the server section shows as cards, so its line of facts leaves them out. */
const SERVER_CARD_FACTS: ReadonlySet<ServerFactKey> = new Set(['prefixCache', 'preemptions'])

/**
 * The server's own metrics: prefix-cache hit rate and preemptions as cards, the other facts in
 * one line, KV-cache usage and requests waiting and running over time; or the line saying why the
 * server gave none. Empty when scraping was off.
 */
function serverSection(result: BenchmarkResult): string {
  const metrics = result.server?.metrics
  if (!metrics) {
    const note = serverMetricsNote(result)
    return note === undefined ? '' : `<h3>Server</h3><p class="note">${escapeHtml(note)}</p>`
  }
  const cardsOut: string[] = []
  if (metrics.prefixCache) cardsOut.push(card('prefix-cache hit rate', formatShare(metrics.prefixCache.hitRate)))
  if (metrics.preemptions !== undefined) cardsOut.push(card('preemptions', figureOrDash(metrics.preemptions)))
  const line = serverFactsLine(serverFacts(result).filter((fact) => !SERVER_CARD_FACTS.has(fact.key)))
  const name = serverDialectName(metrics.dialect)
  const scraped = `${metrics.scrapes} scrapes of ${metrics.url} every ${figureOrDash(metrics.intervalMs)} ms${metrics.failedScrapes > 0 ? `, ${metrics.failedScrapes} failed` : ''}`
  // Over several trials the gauges' series is the last trial's (mergeServerSides), as the timeline is.
  const { title: span } = timelineSpan(result)
  const chartsOut: string[] = []
  const notes: string[] = []
  const kvCache = serverGaugePoints(metrics.series, 'kvCacheUsage')
  if (kvCache.length > 0) {
    chartsOut.push(
      renderLineChart([{ name: 'KV cache in use', points: kvCache }], {
        id: 'server-kv-cache',
        title: `KV-cache usage over time${span}`,
        xLabel: 'seconds',
        yLabel: 'share of KV cache',
        xMin: 0,
        yMin: 0,
        // Scaled to the data (0.1 % in use is a line, not the floor of a 0-100 % axis), never past 100 %.
        yCeiling: 1,
        formatY: formatPercentTick,
        note: `peak ${formatPercentTick(Math.max(...kvCache.map((point) => point.y)))}; ${scraped}`,
      }),
    )
  } else {
    notes.push(`The ${name} metrics have no KV-cache usage gauge: no KV-cache chart.`)
  }
  const requests = [
    { name: 'running', points: serverGaugePoints(metrics.series, 'requestsRunning') },
    { name: 'waiting', points: serverGaugePoints(metrics.series, 'requestsWaiting') },
  ].filter((series) => series.points.length > 0)
  if (requests.length > 0) {
    chartsOut.push(
      renderLineChart(requests, {
        id: 'server-requests',
        title: `Requests running and waiting on the server over time${span}`,
        xLabel: 'seconds',
        yLabel: 'requests',
        xMin: 0,
        note: scraped,
      }),
    )
  } else {
    notes.push(`The ${name} metrics have no running or waiting requests gauge: no requests chart.`)
  }
  return [
    '<h3>Server</h3>',
    line ? `<p class="facts">${escapeHtml(line)}</p>` : '',
    cardsOut.length > 0 ? `<div class="cards">${cardsOut.join('')}</div>` : '',
    chartsOut.length > 0 ? `<div class="charts">${chartsOut.join('')}</div>` : '',
    notes.map((note) => `<p class="note">${escapeHtml(note)}</p>`).join(''),
  ].join('')
}

/** The configuration and environment of `result`; `of` says whose it is when not the section's own (`first point`). */
function inventorySection(result: BenchmarkResult, of?: string): string {
  const config = configRows(result.config).map(([key, value]) => [escapeHtml(key), escapeHtml(value)])
  const environment = environmentRows(result.environment).map(([key, value]) => [escapeHtml(key), escapeHtml(value)])
  return `<h3>Configuration${of ? ` (${escapeHtml(of)})` : ''} and environment</h3><div class="inventory">${table(['setting', 'value'], config)}${table(['environment', 'value'], environment)}</div>`
}

function benchSection(entry: ReportEntry, index: number, baseline: BaselineEntry | undefined): string {
  const status = entryStatus(entry)
  const { result } = entry
  const facts = [
    `<span class="file">${escapeHtml(entry.file)}</span>`,
    escapeHtml(`${result.counts.completed}/${result.counts.total} requests in ${formatSeconds(result.durationMs)}`),
    escapeHtml(`started ${result.startedAt}`),
  ]
  const warnings = [...result.warnings, ...(result.streaming.note ? [result.streaming.note] : [])]
  return [
    `<section class="bench" id="${anchorOf(index)}" data-status="${status}">`,
    `<h2><span class="badge ${status}">${escapeHtml(status)}</span>${escapeHtml(entry.name)}</h2>`,
    `<p class="facts">${facts.join(' · ')}</p>`,
    warnings.map((warning) => `<div class="warning">${escapeHtml(warning)}</div>`).join(''),
    entry.failure ? `<pre class="failure">${escapeHtml(entry.failure)}</pre>` : '',
    cards(entry),
    verdictSection(entry),
    judgeNotes(entry.notes),
    sloSection(entry.sloChecks),
    soakSection(result),
    charts(entry, baseline),
    serverSection(result),
    inventorySection(result),
    '</section>',
  ].join('')
}

function summaryTable(entries: readonly ReportEntry[]): string {
  const rows = entries.map((entry, index) => {
    const status = entryStatus(entry)
    const { result } = entry
    const checks = entry.verdict?.checks
    const figure = (value: string, check: Check | undefined): string =>
      `${escapeHtml(value)}${check ? ` <span class="${statusClass(check.status)}">${escapeHtml(`(${formatChange(check.ratio)})`)}</span>` : ''}`
    const latency = (metric: 'ttftMs' | 'tpotMs' | 'e2eMs', statistic: 'p50' | 'p99'): string =>
      result.metrics[metric].count > 0
        ? figure(formatWithUnit(result.metrics[metric][statistic], 'ms'), checkOf(checks, metric, statistic))
        : '-'
    return [
      `<span class="badge ${status}">${escapeHtml(status)}</span>`,
      `<a href="#${anchorOf(index)}">${escapeHtml(entry.name)}</a>`,
      latency('ttftMs', 'p50'),
      latency('ttftMs', 'p99'),
      latency('tpotMs', 'p50'),
      latency('e2eMs', 'p99'),
      figure(mainThroughput(result).columnText, checkOf(checks, mainThroughput(result).metric, 'value')),
      escapeHtml(figureOrDash(result.throughput.requestsPerSec)),
      escapeHtml(`${result.counts.failed}/${result.counts.total}`),
    ]
  })
  return table(
    ['', 'bench', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'E2E p99', 'output tok/s', 'req/s', 'errors'],
    rows,
    new Set([2, 3, 4, 5, 6, 7, 8]),
  )
}

/** One row per sweep: its status, a link to its section, its answer and how many points it has. */
function sweepsTable(groups: readonly SweepGroup[]): string {
  const rows = groups.map((group, index) => {
    const status = groupStatus(group)
    return [
      `<span class="badge ${status}">${escapeHtml(status)}</span>`,
      `<a href="#${sweepAnchor(index)}">${escapeHtml(group.name)}</a>`,
      escapeHtml(sweepAnswer(group)),
      escapeHtml(String(group.points.length)),
    ]
  })
  return `<h3>Sweeps</h3>${table(['', 'sweep', 'answer', 'points'], rows, new Set([3]))}`
}

/**
 * One self-contained HTML page: a summary of every bench and sweep, then per bench its headline
 * figures, baseline vs current, SLOs, charts (TTFT and E2E CDFs against the baseline, tokens/s and
 * in-flight requests over time, GPU memory and power over time), the server's own metrics (KV
 * cache and its queue over time) and its configuration and environment; per sweep one section
 * (see `renderSweepSection`): its answer, checks, points as rows and curve. Inline CSS and SVG only:
 * no script, no network, and a Content-Security-Policy that forbids loading anything.
 */
export function renderHtml(entries: readonly ReportEntry[], options: HtmlReportOptions = {}): string {
  const title = options.title ?? 'vitest-llm-bench report'
  const counts = runCounts(entries, options.sweeps ?? [])
  const subtitle = [
    `${counts.benches} bench${counts.benches === 1 ? '' : 'es'}`,
    counts.benchStatuses.map(([status, count]) => `${count} ${status}`).join(', '),
    (options.unmeasured?.length ?? 0) > 0 ? `${options.unmeasured?.length} failed without a result` : '',
    counts.sweeps > 0
      ? `${counts.sweeps} sweep${counts.sweeps === 1 ? '' : 's'} (${counts.sweepStatuses.map(([status, count]) => `${count} ${status}`).join(', ')})`
      : '',
  ]
  const benches = entries.filter((entry) => !entry.sweep)
  const groups = sweepGroups(entries, options.sweeps ?? [], options.curves ?? [])
  // Curves of no sweep in this report (given to renderHtml directly) keep a place of their own.
  const drawn = new Set(groups.map((group) => group.name))
  const loose = (options.curves ?? []).filter((curve) => curve.sweep === undefined || !drawn.has(curve.sweep))
  const curves = loose.map((curve, index) =>
    renderCurveChart(curve.points, {
      id: `curve-${index + 1}`,
      title: curve.title,
      xLabel: curve.xLabel,
      yLabel: curve.yLabel,
    }),
  )
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="subtitle">${escapeHtml([...subtitle, `generated ${options.generatedAt ?? new Date().toISOString()}`].filter(Boolean).join(' · '))}</p>`,
    options.interrupted ? `<p class="interrupted">${escapeHtml(interruptionNote(options.interrupted))}</p>` : '',
    benches.length > 0 ? summaryTable(benches) : '',
    groups.length > 0 ? sweepsTable(groups) : '',
    entries.length > 0
      ? ''
      : `<p>${(options.unmeasured?.length ?? 0) > 0 ? 'No LLM bench produced a result in this run.' : 'No LLM benches ran.'}</p>`,
    curves.length > 0 ? `<h3>Throughput against latency</h3><div class="charts">${curves.join('')}</div>` : '',
    ...benches.map((entry, index) => benchSection(entry, index, options.baselines?.get(entry))),
    ...groups.map((group, index) =>
      renderSweepSection(group, index, group.points[0] ? inventorySection(group.points[0].result, 'first point') : ''),
    ),
    ...(options.unmeasured ?? []).map(
      (bench) =>
        `<section class="bench" data-status="fail"><h2><span class="badge fail">fail</span>${escapeHtml(bench.name)}: no result</h2><p class="facts"><span class="file">${escapeHtml(bench.file)}</span></p><pre class="failure">${escapeHtml(bench.failure)}</pre></section>`,
    ),
  ].join('\n')
  return htmlDocument(escapeHtml(title), body)
}
