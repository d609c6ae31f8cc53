import { figureOrDash } from '../format-figures.ts'
import { escapeHtml } from './escape-html.ts'

/** One point of a chart, in data units; `label` names it in tooltips (and beside markers). */
export interface ChartPoint {
  x: number
  y: number
  label?: string
}

/** One line of a chart. */
export interface ChartSeries {
  name: string
  points: readonly ChartPoint[]
  /** CSS colour. Default: from the palette by position. */
  color?: string
  dashed?: boolean
  /** Draw as a step function (value holds until the next point). */
  step?: boolean
  /** Draw a marker at every point, with its label. */
  markers?: boolean
}

/** Options of {@link renderLineChart}. */
export interface LineChartOptions {
  /** Identifier for the `data-chart` attribute (tests and styling). */
  id: string
  title: string
  xLabel: string
  yLabel: string
  /** Pixels. Default 560 x 300. */
  width?: number
  height?: number
  /** Axis bounds in data units. Default: from the data, with 0 included for y. */
  xMin?: number
  xMax?: number
  yMin?: number
  yMax?: number
  /** Tick text. Default: `figureOrDash`. */
  formatX?: (value: number) => string
  formatY?: (value: number) => string
  /** Shown under the title. */
  note?: string
}

/** Colours that stay apart for colour-blind readers (Okabe–Ito order). */
export const SERIES_PALETTE = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000'] as const

const MARGIN = { top: 16, right: 20, bottom: 46, left: 64 }

/** About `count` round tick values (1, 2 or 5 times a power of ten) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return []
  if (max === min) return [min]
  const raw = (max - min) / Math.max(1, count)
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw) ?? 10 * power
  const ticks: number[] = []
  for (let value = Math.ceil(min / step) * step; value <= max + step * 1e-9; value += step)
    ticks.push(Number(value.toPrecision(12)))
  return ticks
}

/** Upper end of an axis: the next tick above `max`, so a line at the maximum does not merge with the frame. */
function niceMax(min: number, max: number): number {
  const ticks = niceTicks(min, max)
  const last = ticks[ticks.length - 1]
  if (last === undefined || ticks.length < 2) return max
  const step = (ticks[1] ?? last) - (ticks[0] ?? 0)
  return last > max ? last : last + step
}

function pathOf(
  points: readonly ChartPoint[],
  sx: (x: number) => number,
  sy: (y: number) => number,
  step: boolean,
): string {
  const parts: string[] = []
  let previous: ChartPoint | undefined
  for (const point of points) {
    const x = sx(point.x).toFixed(1)
    const y = sy(point.y).toFixed(1)
    if (previous === undefined) parts.push(`M${x} ${y}`)
    else if (step) parts.push(`H${x}V${y}`)
    else parts.push(`L${x} ${y}`)
    previous = point
  }
  return parts.join('')
}

/**
 * A line chart as inline SVG inside a `<figure>`: axes with round ticks, gridlines, one path per
 * series (with `data-points` = its point count) and a legend. No script, no external resource.
 */
export function renderLineChart(series: readonly ChartSeries[], options: LineChartOptions): string {
  const width = options.width ?? 560
  const height = options.height ?? 300
  const plotWidth = width - MARGIN.left - MARGIN.right
  const plotHeight = height - MARGIN.top - MARGIN.bottom
  const all = series
    .flatMap((line) => line.points)
    .filter((point) => Number.isFinite(point.x) && Number.isFinite(point.y))
  const formatX = options.formatX ?? figureOrDash
  const formatY = options.formatY ?? figureOrDash
  const title = `<figcaption><span class="chart-title">${escapeHtml(options.title)}</span>${options.note ? `<span class="chart-note">${escapeHtml(options.note)}</span>` : ''}</figcaption>`
  if (all.length === 0) {
    return `<figure class="chart" data-chart="${escapeHtml(options.id)}" data-points="0">${title}<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(options.title)}: no data"><text x="${width / 2}" y="${height / 2}" text-anchor="middle" class="empty">no data</text></svg></figure>`
  }
  const xs = all.map((point) => point.x)
  const ys = all.map((point) => point.y)
  const xMin = options.xMin ?? Math.min(...xs)
  let xMax = options.xMax ?? Math.max(...xs)
  if (xMax === xMin) xMax = xMin + 1
  const yMin = options.yMin ?? Math.min(0, ...ys)
  let yMax = options.yMax ?? niceMax(yMin, Math.max(...ys))
  if (yMax === yMin) yMax = yMin + 1
  const sx = (x: number): number => MARGIN.left + ((x - xMin) / (xMax - xMin)) * plotWidth
  const sy = (y: number): number => MARGIN.top + plotHeight - ((y - yMin) / (yMax - yMin)) * plotHeight

  const grid: string[] = []
  for (const tick of niceTicks(yMin, yMax)) {
    const y = sy(tick).toFixed(1)
    grid.push(`<line class="grid" x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y}" y2="${y}"/>`)
    grid.push(
      `<text class="tick" x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeHtml(formatY(tick))}</text>`,
    )
  }
  for (const tick of niceTicks(xMin, xMax, 6)) {
    const x = sx(tick).toFixed(1)
    grid.push(`<line class="grid" x1="${x}" x2="${x}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}"/>`)
    grid.push(
      `<text class="tick" x="${x}" y="${MARGIN.top + plotHeight + 16}" text-anchor="middle">${escapeHtml(formatX(tick))}</text>`,
    )
  }
  const axes = [
    `<line class="axis" x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${MARGIN.top + plotHeight}" y2="${MARGIN.top + plotHeight}"/>`,
    `<line class="axis" x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}"/>`,
    `<text class="axis-label" x="${MARGIN.left + plotWidth / 2}" y="${height - 8}" text-anchor="middle">${escapeHtml(options.xLabel)}</text>`,
    `<text class="axis-label" transform="translate(14 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(options.yLabel)}</text>`,
  ]
  const lines = series.map((line, index) => {
    const color = line.color ?? SERIES_PALETTE[index % SERIES_PALETTE.length]
    const points = line.points.filter((point) => Number.isFinite(point.x) && Number.isFinite(point.y))
    const path = `<path class="series" data-series="${escapeHtml(line.name)}" data-points="${points.length}" d="${pathOf(points, sx, sy, line.step ?? false)}" stroke="${color}"${line.dashed ? ' stroke-dasharray="6 4"' : ''}><title>${escapeHtml(line.name)}</title></path>`
    if (!line.markers) return path
    const markers = points.map((point) => {
      const label = point.label ? `${point.label}: ` : ''
      const tip = `${label}${formatX(point.x)} ${options.xLabel}, ${formatY(point.y)} ${options.yLabel}`
      // Labels of points in the right part of the plot go to their left, so none runs off the edge.
      const leftward = sx(point.x) > MARGIN.left + plotWidth * 0.8
      const text = point.label
        ? `<text class="marker-label" x="${(sx(point.x) + (leftward ? -7 : 7)).toFixed(1)}" y="${(sy(point.y) - 7).toFixed(1)}" text-anchor="${leftward ? 'end' : 'start'}">${escapeHtml(point.label)}</text>`
        : ''
      return `<circle class="marker" cx="${sx(point.x).toFixed(1)}" cy="${sy(point.y).toFixed(1)}" r="4" fill="${color}"><title>${escapeHtml(tip)}</title></circle>${text}`
    })
    return path + markers.join('')
  })
  const legend = series
    .map((line, index) => {
      const color = line.color ?? SERIES_PALETTE[index % SERIES_PALETTE.length]
      return `<span class="legend-item"><svg width="22" height="10" aria-hidden="true"><line x1="0" x2="22" y1="5" y2="5" stroke="${color}" stroke-width="2.5"${line.dashed ? ' stroke-dasharray="6 4"' : ''}/></svg>${escapeHtml(line.name)}</span>`
    })
    .join('')
  const svg = `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(options.title)}">${grid.join('')}${axes.join('')}${lines.join('')}</svg>`
  return `<figure class="chart" data-chart="${escapeHtml(options.id)}" data-points="${all.length}">${title}${svg}<div class="legend">${legend}</div></figure>`
}

/** Options of {@link renderCurveChart}. */
export interface CurveChartOptions extends Omit<LineChartOptions, 'id'> {
  id?: string
  /** Series name in the legend. Default `measured`. */
  name?: string
}

/**
 * A curve through labelled points, e.g. throughput against latency over a sweep of loads:
 * points are joined in the order given and each carries a marker with its label.
 */
export function renderCurveChart(points: readonly ChartPoint[], options: CurveChartOptions): string {
  return renderLineChart([{ name: options.name ?? 'measured', points, markers: true }], {
    ...options,
    id: options.id ?? 'curve',
  })
}

/** A throughput-vs-latency curve (one point per load level of a sweep). */
export interface CurveSpec {
  title: string
  xLabel: string
  yLabel: string
  points: ChartPoint[]
}
