import { figureOrDash } from '../format-figures.ts'
import { escapeHtml } from './escape-html.ts'

/** One point of a chart, in data units; `label` names it in tooltips (and beside markers). */
export interface ChartPoint {
  x: number
  y: number
  label?: string
  /** The point the chart is about (a sweep's knee, a search's capacity): its label is placed first and always kept. */
  emphasis?: boolean
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
  /** Highest upper bound the y axis may take when it is scaled to the data (a share: 1). */
  yCeiling?: number
  /** Tick text. Default: `figureOrDash`. */
  formatX?: (value: number) => string
  formatY?: (value: number) => string
  /** Shown under the title. */
  note?: string
  /** Vertical lines across the plot at given x values, each labelled at its top. */
  marks?: readonly ChartMark[]
}

/** A vertical line across a chart: an event on the x axis (a fingerprint change, a change point). */
export interface ChartMark {
  /** Where, in x data units. */
  x: number
  /** A few characters written beside the line's top. */
  label: string
  /** Tooltip: what the mark means in full. */
  title: string
  /** CSS colour. */
  color: string
  dashed?: boolean
}

/** Vertical marks with their labels, each label on the first of three rows where it overlaps no other. */
function renderMarks(marks: readonly ChartMark[], sx: (x: number) => number, plot: Box): string {
  const { top, bottom } = plot
  const rowEnds = [-Infinity, -Infinity, -Infinity]
  return [...marks]
    .sort((a, b) => a.x - b.x)
    .map((mark) => {
      const x = sx(mark.x)
      // Mark labels are bold: a wider estimate than LABEL_CHAR_PX.
      const width = mark.label.length * MARK_LABEL_CHAR_PX
      // Near the right edge the label goes left of its line rather than out of the plot.
      const left = x + 3 + width > plot.right + 16 ? x - 3 - width : x + 3
      const row = Math.max(
        0,
        rowEnds.findIndex((end) => end < left),
      )
      rowEnds[row] = left + width
      const tip = `<title>${escapeHtml(mark.title)}</title>`
      const dash = mark.dashed ? ' stroke-dasharray="4 3"' : ''
      return (
        `<line class="mark" x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${top}" y2="${bottom}" ` +
        `stroke="${mark.color}"${dash}>${tip}</line>` +
        `<text class="mark-label" x="${left.toFixed(1)}" y="${top + 10 + row * LABEL_HEIGHT_PX}" ` +
        `fill="${mark.color}">${escapeHtml(mark.label)}${tip}</text>`
      )
    })
    .join('')
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

/**
 * The span of an axis whose data is one value (a one-point chart): a tenth of the value's size on
 * either side (0 to 1 around 0), so that round ticks can be found in it. Padding by one data unit
 * gave ticks 0.2 apart around 1234, all printed as `1234`. `fixedMin` keeps a given lower bound.
 */
export function degenerateSpan(value: number, fixedMin?: number): [number, number] {
  const pad = value === 0 ? 1 : Math.abs(value) / 10
  return [fixedMin ?? (value === 0 ? 0 : value - pad), value + pad]
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

function finitePoints(points: readonly ChartPoint[]): ChartPoint[] {
  return points.filter((point) => Number.isFinite(point.x) && Number.isFinite(point.y))
}

/** A rectangle in SVG pixels. */
interface Box {
  left: number
  top: number
  right: number
  bottom: number
}

/** Where a marker's label is drawn: its text baseline start (or end, with `anchor` `end`), SVG pixels. */
interface PlacedLabel {
  x: number
  y: number
  anchor: 'start' | 'end'
}

/** Width of one character of a marker label (11 px sans-serif, see html-style.ts), px: a generous estimate. */
const LABEL_CHAR_PX = 6.4
/** Width of one character of a mark's label (11 px bold), px. */
const MARK_LABEL_CHAR_PX = 7.2
/** Height of a marker label's box, px. */
const LABEL_HEIGHT_PX = 12
/** Gap between a marker's centre and its label, px. */
const LABEL_GAP_PX = 7

function overlaps(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom
}

function labelBox(label: PlacedLabel, width: number): Box {
  const left = label.anchor === 'start' ? label.x : label.x - width
  return { left, right: left + width, top: label.y - LABEL_HEIGHT_PX + 2, bottom: label.y + 2 }
}

/**
 * Places the labels of marked points so that none overlaps another or leaves the plot: emphasised
 * points first, then in order, each above-right, above-left, below-right or below-left of its
 * marker, whichever is free first; a label with no free place is left out (its marker keeps the
 * tooltip). Points close together (a capacity search's bisection) no longer print over each other.
 */
export function placeLabels(
  points: readonly ChartPoint[],
  sx: (x: number) => number,
  sy: (y: number) => number,
  plot: Box,
): Map<ChartPoint, PlacedLabel> {
  const placed = new Map<ChartPoint, PlacedLabel>()
  const taken: Box[] = []
  const order = [...points.filter((point) => point.emphasis), ...points.filter((point) => !point.emphasis)]
  for (const point of order) {
    if (!point.label) continue
    const width = point.label.length * LABEL_CHAR_PX
    const [x, y] = [sx(point.x), sy(point.y)]
    const candidates: PlacedLabel[] = [
      { x: x + LABEL_GAP_PX, y: y - LABEL_GAP_PX, anchor: 'start' },
      { x: x - LABEL_GAP_PX, y: y - LABEL_GAP_PX, anchor: 'end' },
      { x: x + LABEL_GAP_PX, y: y + LABEL_GAP_PX + LABEL_HEIGHT_PX - 2, anchor: 'start' },
      { x: x - LABEL_GAP_PX, y: y + LABEL_GAP_PX + LABEL_HEIGHT_PX - 2, anchor: 'end' },
    ]
    const inside = (box: Box): boolean =>
      box.left >= plot.left && box.right <= plot.right + 16 && box.top >= plot.top - 12 && box.bottom <= plot.bottom
    const free = candidates.find((candidate) => {
      const box = labelBox(candidate, width)
      return inside(box) && !taken.some((other) => overlaps(box, other))
    })
    // An emphasised label is kept even where nothing is free: it is the answer the chart shows.
    const chosen = free ?? (point.emphasis ? candidates.find((c) => inside(labelBox(c, width))) : undefined)
    if (!chosen) continue
    placed.set(point, chosen)
    taken.push(labelBox(chosen, width))
  }
  return placed
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
  let xMin = options.xMin ?? Math.min(...xs)
  let xMax = options.xMax ?? Math.max(...xs)
  if (xMax <= xMin) [xMin, xMax] = degenerateSpan(Math.max(xMin, xMax), options.xMin)
  const yMin = options.yMin ?? Math.min(0, ...ys)
  let yMax = options.yMax ?? Math.min(options.yCeiling ?? Infinity, niceMax(yMin, Math.max(...ys)))
  if (yMax <= yMin) yMax = degenerateSpan(yMin, yMin)[1]
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
  const labels = placeLabels(
    series.flatMap((line) => (line.markers ? finitePoints(line.points) : [])),
    sx,
    sy,
    { left: MARGIN.left, top: MARGIN.top, right: MARGIN.left + plotWidth, bottom: MARGIN.top + plotHeight },
  )
  const lines = series.map((line, index) => {
    const color = line.color ?? SERIES_PALETTE[index % SERIES_PALETTE.length]
    const points = finitePoints(line.points)
    const path = `<path class="series" data-series="${escapeHtml(line.name)}" data-points="${points.length}" d="${pathOf(points, sx, sy, line.step ?? false)}" stroke="${color}"${line.dashed ? ' stroke-dasharray="6 4"' : ''}><title>${escapeHtml(line.name)}</title></path>`
    if (!line.markers) return path
    const markers = points.map((point) => {
      const label = point.label ? `${point.label}: ` : ''
      const tip = `${label}${formatX(point.x)} ${options.xLabel}, ${formatY(point.y)} ${options.yLabel}`
      const placed = labels.get(point)
      const text = placed
        ? `<text class="marker-label${point.emphasis ? ' emphasis' : ''}" x="${placed.x.toFixed(1)}" y="${placed.y.toFixed(1)}" text-anchor="${placed.anchor}">${escapeHtml(point.label ?? '')}</text>`
        : ''
      return `<circle class="marker" cx="${sx(point.x).toFixed(1)}" cy="${sy(point.y).toFixed(1)}" r="${point.emphasis ? 6 : 4}" fill="${color}"><title>${escapeHtml(tip)}</title></circle>${text}`
    })
    return path + markers.join('')
  })
  const unlabelled = series
    .flatMap((line) => (line.markers ? finitePoints(line.points) : []))
    .filter((point) => point.label !== undefined && !labels.has(point)).length
  const crowded =
    unlabelled > 0
      ? `<span class="chart-note">${unlabelled} label${unlabelled === 1 ? '' : 's'} left out where points crowd: hover a marker for its values</span>`
      : ''
  const legend = series
    .map((line, index) => {
      const color = line.color ?? SERIES_PALETTE[index % SERIES_PALETTE.length]
      return `<span class="legend-item"><svg width="22" height="10" aria-hidden="true"><line x1="0" x2="22" y1="5" y2="5" stroke="${color}" stroke-width="2.5"${line.dashed ? ' stroke-dasharray="6 4"' : ''}/></svg>${escapeHtml(line.name)}</span>`
    })
    .join('')
  const marks = renderMarks(options.marks ?? [], sx, {
    left: MARGIN.left,
    top: MARGIN.top,
    right: MARGIN.left + plotWidth,
    bottom: MARGIN.top + plotHeight,
  })
  const svg = `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(options.title)}">${grid.join('')}${axes.join('')}${marks}${lines.join('')}</svg>`
  const caption = crowded ? title.replace('</figcaption>', `${crowded}</figcaption>`) : title
  return `<figure class="chart" data-chart="${escapeHtml(options.id)}" data-points="${all.length}">${caption}${svg}<div class="legend">${legend}</div></figure>`
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
  /** The sweep it is the curve of (its test name with the describe path): the HTML draws it in that sweep's section. */
  sweep?: string
  title: string
  xLabel: string
  yLabel: string
  points: ChartPoint[]
}
