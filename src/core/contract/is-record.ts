/** True for a plain object (not null, not an array): the shape checks of options and JSON files start here. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
