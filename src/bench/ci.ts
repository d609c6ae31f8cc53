/** True when running under CI (the `CI` variable, as Vitest and most CI services set it). */
export function isCI(env: Record<string, string | undefined> = process.env): boolean {
  const value = env.CI
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false'
}
