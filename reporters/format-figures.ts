import { formatFigure } from '../src/core/platform/format-figure.ts'
/**
 * Number formatting shared by every report, so the console, Markdown and HTML show the same
 * digits for the same figure.
 */

/** A figure with `formatFigure` (4 significant digits below 1000, whole numbers from 1000 up), `-` when absent. */
export function figureOrDash(value: number | undefined | null): string {
  return value === undefined || value === null ? '-' : formatFigure(value)
}

/** A figure with its unit (`41.2 ms`, `1235 tok/s`); `-` when absent. */
export function formatWithUnit(value: number | undefined | null, unit: string): string {
  const figure = figureOrDash(value)
  return figure === '-' || unit === '' ? figure : `${figure} ${unit}`
}

/** Seconds from milliseconds with one decimal (`12.6 s`). */
export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

/** Signed percentage change of a ratio (`+3.1%`, `-12.0%`); `-` when there is no ratio. */
export function formatChange(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '-'
  const percent = (ratio - 1) * 100
  const rounded = Math.abs(percent) < 0.05 ? 0 : percent
  return `${rounded >= 0 ? '+' : ''}${rounded.toFixed(1)}%`
}

/** A share 0..1 as a percentage (`0.5%`). */
export function formatShare(share: number): string {
  return `${Number((share * 100).toPrecision(3))}%`
}

/** Bytes in binary units (`23.5 GiB`). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${Number(value.toPrecision(3))} ${units[unit]}`
}
