/** A figure for SLO messages and tables: 4 significant digits without trailing zeros, whole numbers from 1000 up. */
export function formatSloFigure(value: number): string {
  if (!Number.isFinite(value)) return String(value)
  if (Math.abs(value) >= 1000) return Math.round(value).toString()
  return Number(value.toPrecision(4)).toString()
}
