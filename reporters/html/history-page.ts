/**
 * The history page: per bench, the trend of each followed figure over its points (commits that
 * changed its baseline, kept CI runs), fingerprint changes and change points drawn as marks and
 * listed with what changed and the p-value, and the points as a table. One self-contained file:
 * inline CSS and SVG, no script, no network.
 */
import type { FigureChangePoint, HistoryAnalysis } from '../../src/core/history/history-analysis.ts'
import { HISTORY_FIGURES, type HistoryFigureKey, type HistoryPoint } from '../../src/core/history/history-point.ts'
import { figureOrDash, formatChange } from '../format-figures.ts'
import {
  boundaryLines,
  changePointText,
  figureLabel,
  formatPValue,
  historyTitle,
  pointSource,
  shortDate,
} from '../history-wording.ts'
import { escapeHtml } from './escape-html.ts'
import { htmlDocument } from './html-style.ts'
import { htmlTable } from './html-table.ts'
import { niceTicks, renderLineChart, SERIES_PALETTE, type ChartMark, type ChartSeries } from './svg-chart.ts'

/** Options of {@link renderHistoryPage}. */
export interface HistoryPageOptions {
  /** How change points were found, e.g. `E-Divisive means (Otava, windowed), Student t-test, p < 0.001`. */
  method: string
  /** The repository (folder) the history was read from, for the subtitle. */
  repository: string
  /** Time of writing, ISO 8601. Default: now. */
  generatedAt?: string
}

const CHANGE_COLOR = '#cf222e'
const FINGERPRINT_COLOR = '#8250df'

/** Chart width, px: two charts side by side in a 1200 px window. */
const CHART_WIDTH = 520

const PAGE_STYLE = `
.events { margin: 8px 0 14px; padding-left: 20px; }
.events li { margin: 2px 0; }
.events .cp { color: ${CHANGE_COLOR}; font-weight: 600; }
.events .fp { color: ${FINGERPRINT_COLOR}; font-weight: 600; }
.charts { grid-template-columns: repeat(auto-fill, minmax(${CHART_WIDTH}px, 1fr)); }
svg .mark { stroke-width: 1.5; }
svg .mark-label { font-size: 11px; font-weight: 600; }
.moved-value { color: ${CHANGE_COLOR}; font-weight: 600; white-space: nowrap; }
.nowrap { white-space: nowrap; }
`

/**
 * The y axis of a trend: around the values rather than from 0 (a 5 % step must show), with room
 * above the highest value for the marks' labels (two rows of the plot's top tenth).
 */
function yRange(values: ReadonlyArray<number | undefined>): { yMin: number; yMax: number } | Record<string, never> {
  const finite = values.filter((v): v is number => v !== undefined && Number.isFinite(v))
  if (finite.length === 0) return {}
  const [low, high] = [Math.min(...finite), Math.max(...finite)]
  const pad = Math.max((high - low) * 0.25, Math.abs(high) * 0.03, 1e-9)
  const ticks = niceTicks(low - pad, high + pad)
  const step = ticks.length > 1 ? (ticks[1] as number) - (ticks[0] as number) : pad
  const yMin = Math.max(0, Math.floor((low - pad) / step) * step)
  const yMax = Math.ceil((high + (high - yMin) * 0.25) / step) * step
  return { yMin, yMax }
}

/** A stretch of one fingerprint in the legend: its GPU and server, e.g. `NVIDIA H200 · vllm 0.11.0`. */
function fingerprintName(point: HistoryPoint): string {
  const { gpuModel, gpuCount, serverName, serverVersion } = point.fingerprint
  const gpu = gpuCount === 0 ? 'no GPU' : `${gpuCount > 1 ? `${gpuCount} x ` : ''}${gpuModel ?? 'GPU'}`
  return [gpu, [serverName, serverVersion].filter(Boolean).join(' ')].filter(Boolean).join(' · ')
}

/** A mark's x: between the last point before an event and the first after it (points are numbered from 1). */
function between(index: number): number {
  return index + 0.5
}

/** The words of a boundary's mark: what kind of change, in one or two words. */
function boundaryMarkLabel(lines: readonly string[]): string {
  const first = lines[0] ?? ''
  const part = first.slice(first.indexOf(':') + 2).split(/[ ;]/)[0] ?? ''
  return `⚑ ${part}${lines.length > 1 ? ' +' : ''}`
}

function figureChart(analysis: HistoryAnalysis, key: HistoryFigureKey, id: string): string {
  const { history, boundaries, changePoints } = analysis
  const figure = HISTORY_FIGURES.find((f) => f.key === key) as (typeof HISTORY_FIGURES)[number]
  const starts = [0, ...boundaries.map((b) => b.index), history.points.length]
  // One line per stretch of one fingerprint: a change of machine or server is no trend to join.
  const series: ChartSeries[] = []
  for (let s = 0; s + 1 < starts.length; s++) {
    const points = history.points
      .map((point, index) => ({ x: index + 1, y: point.figures[key] ?? NaN }))
      .slice(starts[s], starts[s + 1])
    const first = history.points[starts[s] as number]
    series.push({
      name: `${s + 1}: ${first ? fingerprintName(first) : ''}`,
      points,
      markers: true,
      color: SERIES_PALETTE[s % SERIES_PALETTE.length],
    })
  }
  const marks: ChartMark[] = [
    ...boundaries.map((boundary) => {
      const lines = boundaryLines(boundary)
      return {
        x: between(boundary.index),
        label: boundaryMarkLabel(lines),
        title: `fingerprint change before point ${boundary.index + 1}: ${lines.join('; ')} (not judged)`,
        color: FINGERPRINT_COLOR,
        dashed: true,
      }
    }),
    ...changePoints
      .filter((cp) => cp.figure === key)
      .map((cp) => ({
        x: between(cp.index),
        label: `${arrow(cp)} ${formatChange(cp.relativeChange + 1)} p=${formatPValue(cp.pValue)}`,
        title: `change point at point ${cp.index + 1}: ${changePointText(cp)}`,
        color: CHANGE_COLOR,
      })),
  ]
  return renderLineChart(series, {
    ...yRange(history.points.map((point) => point.figures[key])),
    width: CHART_WIDTH,
    id,
    title: figure.label,
    xLabel: 'commit date',
    yLabel: figure.unit,
    xMin: 0.5,
    xMax: history.points.length + 0.5,
    // Points are spaced evenly (one per commit or kept run); each tick names its point's date.
    formatX: (x) => (Number.isInteger(x) ? shortDate(history.points[x - 1]?.date ?? '') : ''),
    marks,
  })
}

function pointCells(
  point: HistoryPoint,
  index: number,
  analysis: HistoryAnalysis,
  keys: readonly HistoryFigureKey[],
): string[] {
  const moved = analysis.changePoints.filter((cp) => cp.index === index)
  const boundary = analysis.boundaries.find((b) => b.index === index)
  const notes = [
    ...(boundary ? boundaryLines(boundary).map((line) => `⚑ ${line}`) : []),
    ...(point.disturbed ? [`measured disturbed: ${point.disturbed.join('; ')}`] : []),
  ]
  return [
    String(index + 1),
    `<span class="nowrap">${escapeHtml(shortDate(point.date))}</span>`,
    `<span class="file">${escapeHtml(pointSource(point))}</span>`,
    escapeHtml(point.subject ?? point.resultsFile ?? ''),
    ...keys.map((key) => {
      const cp = moved.find((c) => c.figure === key)
      const text = escapeHtml(figureOrDash(point.figures[key]))
      return cp
        ? `<span class="moved-value" title="${escapeHtml(changePointText(cp))}">${text} ${arrow(cp)}</span>`
        : text
    }),
    notes.map(escapeHtml).join('<br>'),
  ]
}

const NOTHING_MOVED = 'No change point, no fingerprint change.'

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

function arrow(point: FigureChangePoint): string {
  return point.relativeChange >= 0 ? '▲' : '▼'
}

function historySection(analysis: HistoryAnalysis, index: number): string {
  const { history, boundaries, changePoints } = analysis
  const source = (i: number): string => escapeHtml(pointSource(history.points[i] as HistoryPoint))
  const keys = HISTORY_FIGURES.filter(({ key }) => history.points.some((p) => p.figures[key] !== undefined)).map(
    ({ key }) => key,
  )
  const events = [
    ...changePoints.map(
      (cp) =>
        [
          cp.index,
          `<li><span class="cp">change point</span> at point ${cp.index + 1} (${source(cp.index)}): ` +
            `${escapeHtml(changePointText(cp))}</li>`,
        ] as const,
    ),
    ...boundaries.map(
      (b) =>
        [
          b.index - 0.1,
          `<li><span class="fp">fingerprint change</span> before point ${b.index + 1} (${source(b.index)}): ` +
            `${escapeHtml(boundaryLines(b).join('; '))}. Shown, not judged: each side is searched apart.</li>`,
        ] as const,
    ),
  ]
    .sort((a, b) => a[0] - b[0])
    .map(([, html]) => html)
  const charts = keys.map((key) => figureChart(analysis, key, `history-${index + 1}-${key}`))
  const rows = history.points.map((point, i) => pointCells(point, i, analysis, keys))
  const table = htmlTable(
    ['#', 'date', 'point', 'subject / file', ...keys.map(figureLabel), 'changed'],
    rows,
    new Set([0, ...keys.map((_, i) => i + 4)]),
  )
  const facts = [
    plural(history.points.length, 'point'),
    plural(changePoints.length, 'change point'),
    plural(boundaries.length, 'fingerprint change'),
  ].join(' · ')
  return `<section class="bench" id="history-${index + 1}"><h2>${escapeHtml(historyTitle(history))}</h2>
<p class="facts">${escapeHtml(facts)}</p>
${events.length > 0 ? `<ul class="events">${events.join('')}</ul>` : `<p class="note">${NOTHING_MOVED}</p>`}
<div class="charts">${charts.join('')}</div>
<h3>Points</h3>${table}</section>`
}

/** The history page of `analyses`, one section per bench. */
export function renderHistoryPage(analyses: readonly HistoryAnalysis[], options: HistoryPageOptions): string {
  const title = 'vitest-llm-bench history'
  const subtitle = [
    `${analyses.length} bench${analyses.length === 1 ? '' : 'es'} from ${options.repository}`,
    `generated ${options.generatedAt ?? new Date().toISOString()}`,
  ].join(' · ')
  const legend =
    `<p class="note">Change points (<span style="color:${CHANGE_COLOR}">▲▼</span>): ` +
    `${escapeHtml(options.method)}, looked for within each stretch of one fingerprint. ` +
    `Fingerprint changes (<span style="color:${FINGERPRINT_COLOR}">` +
    '⚑</span>, dashed): another GPU, driver, CPU or runtime, server version, model, launch or bench configuration; ' +
    'shown, never taken for a regression.</p>'
  const body = [
    `<h1>${title}</h1>`,
    `<p class="subtitle">${escapeHtml(subtitle)}</p>`,
    legend,
    analyses.map(historySection).join('\n'),
  ].join('\n')
  return htmlDocument(title, body, PAGE_STYLE)
}
