/**
 * A bench history as console text: one row per point with the headline figures, change points
 * marked on their figure and explained with their p-value, fingerprint changes named. Lines stay
 * within 120 columns (notes wrap onto lines of their own).
 */
import type { HistoryAnalysis } from '../src/core/history/history-analysis.ts'
import { HISTORY_FIGURES, type HistoryFigureKey } from '../src/core/history/history-point.ts'
import { figureOrDash } from './format-figures.ts'
import { boundaryLines, changePointText, figureLabel, historyTitle, pointSource, shortDate } from './history-wording.ts'

/** The figures given a column (the others appear in notes when they move, and in the HTML page). */
const COLUMNS: readonly HistoryFigureKey[] = ['ttftP50', 'ttftP99', 'tpotP50', 'e2eP50', 'outputTokensPerSec']
const COLUMN_WIDTH = 13
/** Column headings where the figure's label and unit are wider than a column. */
const HEADINGS: Partial<Record<HistoryFigureKey, string>> = { outputTokensPerSec: 'out tok/s' }
/** A figure's heading with its unit: `TTFT p50 ms`. */
const heading = (key: HistoryFigureKey): string =>
  HEADINGS[key] ?? `${figureLabel(key)} ${HISTORY_FIGURES.find((figure) => figure.key === key)?.unit ?? ''}`.trimEnd()
/** Marks the row of a point measured on a disturbed machine; what disturbed it is on the HTML page. */
const DISTURBED_MARK = '!'
const LINE_WIDTH = 120
/** Where the notes under a row start. */
const NOTE_INDENT = ' '.repeat(7)

/** Splits `text` into pieces of at most `width` characters, at spaces where it can. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let rest = text
  while (rest.length > width) {
    const cut = rest.lastIndexOf(' ', width)
    const at = cut > width / 3 ? cut : width
    lines.push(rest.slice(0, at))
    rest = rest.slice(at).trimStart()
  }
  lines.push(rest)
  return lines
}

/** The console table of one analysed history. */
/**
 * The command that finds the commit of a change point between two recorded commits: the last commit
 * before the point and the point's own (none where either is a kept run, which has no commit).
 */
function bisectLine(points: HistoryAnalysis['history']['points'], index: number): string[] {
  const bad = points[index]?.commit
  const good = points
    .slice(0, index)
    .reverse()
    .find((point) => point.commit !== undefined)?.commit
  if (bad === undefined || good === undefined) return []
  return [`which commit: npx vitest-llm-bench bisect --good ${good} --bad ${bad}`]
}

export function historyTable(analysis: HistoryAnalysis): string {
  const { history, boundaries, changePoints } = analysis
  const commits = history.points.filter((point) => point.source === 'baseline').length
  const runs = history.points.length - commits
  const lines = [
    `${historyTitle(history)}: ${history.points.length} point${history.points.length === 1 ? '' : 's'}` +
      ` (${commits} commit${commits === 1 ? '' : 's'}${runs > 0 ? `, ${runs} kept run${runs === 1 ? '' : 's'}` : ''})`,
  ]
  const head = `${'#'.padStart(3)}  ${'date'.padEnd(10)}  ${'point'.padEnd(9)}`
  const header = head + COLUMNS.map((key) => heading(key).padStart(COLUMN_WIDTH)).join('') + '  subject'
  lines.push(header)
  const notesAt = head.length + COLUMNS.length * COLUMN_WIDTH + 2
  history.points.forEach((point, index) => {
    const moved = changePoints.filter((cp) => cp.index === index)
    const cells = COLUMNS.map((key) => {
      const cp = moved.find((c) => c.figure === key)
      const mark = cp ? (cp.relativeChange >= 0 ? ' ▲' : ' ▼') : '  '
      return (figureOrDash(point.figures[key]) + mark).padStart(COLUMN_WIDTH)
    }).join('')
    const boundary = boundaries.find((b) => b.index === index)
    const notes = [
      ...(boundary ? boundaryLines(boundary).map((line) => `⚑ ${line} (a fingerprint change: not judged)`) : []),
      ...moved.map((cp) => `${cp.relativeChange >= 0 ? '▲' : '▼'} change point: ${changePointText(cp)}`),
      ...(moved.length > 0 ? bisectLine(history.points, index) : []),
    ]
    const number = `${index + 1}${point.disturbed ? DISTURBED_MARK : ' '}`
    const row = `${number.padStart(4)} ${shortDate(point.date).padEnd(10)}  ${pointSource(point).padEnd(9)}`
    const label = point.subject ?? point.resultsFile ?? ''
    const room = LINE_WIDTH - notesAt
    lines.push(`${row}${cells}  ${label.length > room ? `${label.slice(0, room - 3)}...` : label}`.trimEnd())
    for (const note of notes) {
      wrap(note, LINE_WIDTH - NOTE_INDENT.length - 2).forEach((line, i) =>
        lines.push(`${NOTE_INDENT}${i > 0 ? '  ' : ''}${line}`),
      )
    }
  })
  if (history.points.some((point) => point.disturbed))
    lines.push(`  ${DISTURBED_MARK}: measured on a disturbed machine (what disturbed it: the HTML page)`)
  if (changePoints.length === 0) lines.push('  no change point within any stretch of one fingerprint')
  return lines.join('\n')
}
