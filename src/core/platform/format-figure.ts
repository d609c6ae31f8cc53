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

/**
 * A spread (a relative standard deviation: 0.042 = 4.2 %) as every message prints it: one decimal, a trailing
 * zero dropped (`4.2%`, `15%`), and `<0.1%` for one that would round to zero, so spreads side by side compare.
 */
export function formatSpread(fraction: number): string {
  const tenths = Math.round(fraction * 1000)
  if (tenths === 0 && fraction > 0) return '<0.1%'
  return `${tenths / 10}%`
}
