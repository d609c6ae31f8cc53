/** The words the history table and page share for a point, a change point and a fingerprint change. */
import type { FigureChangePoint, HistoryBoundary } from '../src/core/history/history-analysis.ts'
import { HISTORY_FIGURES, type BenchHistory, type HistoryPoint } from '../src/core/history/history-point.ts'
import { formatChange } from './format-figures.ts'

/** A p-value as read in a report: `3.2e-6` below 0.001, else two significant digits. */
export function formatPValue(p: number): string {
  if (p === 0) return '0'
  return p < 0.001 ? p.toExponential(1) : String(Number(p.toPrecision(2)))
}

/** The figure's label, e.g. `TTFT p50`. */
export function figureLabel(key: FigureChangePoint['figure']): string {
  return HISTORY_FIGURES.find((figure) => figure.key === key)?.label ?? key
}

/** `TTFT p50 +20.1% (p = 3.2e-6)`. */
export function changePointText(point: FigureChangePoint): string {
  return `${figureLabel(point.figure)} ${formatChange(point.relativeChange + 1)} (p = ${formatPValue(point.pValue)})`
}

/** One line per part that changed: `machine: GPU A -> B`, `software: vllm 0.10.1 -> 0.11.0`, `config: ...`. */
export function boundaryLines(boundary: HistoryBoundary): string[] {
  return [
    ...(boundary.machine.length > 0 ? [`machine: ${boundary.machine.join('; ')}`] : []),
    ...(boundary.software.length > 0 ? [`software: ${boundary.software.join('; ')}`] : []),
    ...(boundary.config.length > 0 ? [`config: ${boundary.config.join('; ')}`] : []),
  ]
}

/** `2026-11-02` from an ISO date (the text itself when it is no date). */
export function shortDate(date: string): string {
  return /^\d{4}-\d{2}-\d{2}/.exec(date)?.[0] ?? date
}

/** What a point is: its short commit, or `run` for a kept result. */
export function pointSource(point: HistoryPoint): string {
  return point.commit ?? 'run'
}

/** `benches/chat.bench.ts > chat 128/128`, with the machine of an extra lane. */
export function historyTitle(history: BenchHistory): string {
  return `${history.benchFile} > ${history.name}${history.machine ? ` (on ${history.machine})` : ''}`
}
