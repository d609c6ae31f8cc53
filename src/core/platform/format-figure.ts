/**
 * How figures are written in messages, tables and reports, so the console, Markdown, HTML and
 * error messages show the same digits for the same figure.
 */

/** 4 significant digits without trailing zeros below 1000 (`41.25`, `0.1235`), whole numbers from 1000 up (`1235`). */
export function formatFigure(value: number): string {
  if (!Number.isFinite(value)) return String(value)
  if (Math.abs(value) >= 1000) return Math.round(value).toString()
  if (value === 0) return '0'
  return Number(value.toPrecision(4)).toString()
}

/** A duration given in milliseconds, for messages: `850 ms`, `12.5 s`, `4.2 min`. */
export function formatDurationMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`
  return `${Math.round(ms / 6000) / 10} min`
}
