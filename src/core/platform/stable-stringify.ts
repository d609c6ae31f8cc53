/**
 * Compact JSON with keys sorted at every level, for hashing. Unlike `JSON.stringify`, non-finite
 * numbers keep their identity (`Infinity` is written as the string `"Infinity"`, so `rate: Infinity`
 * and no rate hash differently); functions, symbols and `undefined` members are left out.
 */
export function stableStringify(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(String(value))
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value)
  if (typeof value === 'bigint') return JSON.stringify(value.toString())
  if (typeof value === 'function' || typeof value === 'symbol') return 'null'
  const withJson = value as { toJSON?: () => unknown }
  if (typeof withJson.toJSON === 'function') return stableStringify(withJson.toJSON())
  if (Array.isArray(value)) return `[${value.map((item: unknown) => stableStringify(item)).join(',')}]`
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined && typeof record[key] !== 'function' && typeof record[key] !== 'symbol')
    .sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${stableStringify(record[key])}`).join(',')}}`
}
