/**
 * Deterministic JSON text: the same value always gives the same bytes, so baseline files diff
 * cleanly in review and config hashes do not depend on key order.
 */

/** Significant digits kept for non-integer figures in baseline files (0.01 %, finer than the histograms' 0.1 %). */
export const BASELINE_SIGNIFICANT_DIGITS = 4

/**
 * `value` rounded to `significantDigits` significant digits, but never coarser than an integer
 * (12345.6 -> 12346, 0.0123456 -> 0.01235). Integers come back unchanged, so counts stay exact.
 * Never returns -0, so a file never shows `-0`.
 */
export function roundFigure(value: number, significantDigits: number = BASELINE_SIGNIFICANT_DIGITS): number {
  if (!Number.isFinite(value)) return value
  if (Number.isInteger(value)) return value === 0 ? 0 : value
  const integerDigits = Math.floor(Math.log10(Math.abs(value))) + 1
  const decimals = Math.min(100, Math.max(0, significantDigits - integerDigits))
  const rounded = Number(value.toFixed(decimals))
  return rounded === 0 ? 0 : rounded
}

/** Every number inside `value` (objects and arrays, recursively) passed through {@link roundFigure}. */
export function roundFigures<T>(value: T, significantDigits: number = BASELINE_SIGNIFICANT_DIGITS): T {
  if (typeof value === 'number') return roundFigure(value, significantDigits) as T
  if (Array.isArray(value)) return value.map((item: unknown) => roundFigures(item, significantDigits)) as T
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) out[key] = roundFigures(item, significantDigits)
    }
    return out as T
  }
  return value
}

/** JSON text of a finite number without an exponent for small magnitudes (`1e-7` becomes `0.0000001`). */
function formatNumber(value: number, where: string): string {
  if (!Number.isFinite(value)) {
    throw new TypeError(`Cannot write ${value} at ${where} to a baseline file: JSON has no non-finite numbers.`)
  }
  if (value === 0) return '0'
  const text = String(value)
  if (!text.includes('e-')) return text
  // Exactly as many decimals as the shortest round-trip text has digits: 1.5e-7 -> 0.00000015.
  const [mantissa = '', exponent = '0'] = text.split('e-')
  const decimals = Number(exponent) + (mantissa.split('.')[1]?.length ?? 0)
  return decimals <= 100 ? value.toFixed(decimals) : text
}

/**
 * Pretty JSON with keys sorted (by UTF-16 code unit, as `Array.prototype.sort`), two-space
 * indentation and a trailing newline. Numbers are written as they are (round them first with
 * {@link roundFigures}); `undefined` members are left out, as `JSON.stringify` does.
 *
 * @throws {TypeError} on a non-finite number (JSON cannot hold it).
 */
export function formatStableJson(value: unknown): string {
  return `${write(value, '', '$')}\n`
}

function write(value: unknown, indent: string, where: string): string {
  if (value === null) return 'null'
  if (typeof value === 'number') return formatNumber(value, where)
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value)
  const inner = `${indent}  `
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    const items = value.map(
      (item: unknown, i) => `${inner}${item === undefined ? 'null' : write(item, inner, `${where}[${i}]`)}`,
    )
    return `[\n${items.join(',\n')}\n${indent}]`
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
    if (keys.length === 0) return '{}'
    const members = keys.map(
      (key) =>
        `${inner}${JSON.stringify(key)}: ${write((value as Record<string, unknown>)[key], inner, `${where}.${key}`)}`,
    )
    return `{\n${members.join(',\n')}\n${indent}}`
  }
  throw new TypeError(`Cannot write a ${typeof value} at ${where} to a baseline file.`)
}
