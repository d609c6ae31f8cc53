import { readFileSync } from 'node:fs'

let cached: string | undefined

/**
 * This package's version, read from its package.json. Looked up by walking up from this file
 * because the sources (src/sim) and the build (dist/src/sim) sit at different depths.
 */
export function packageVersion(): string {
  if (cached !== undefined) return cached
  cached = '0.0.0'
  let dir = new URL('./', import.meta.url)
  for (let depth = 0; depth < 6; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: unknown; version?: unknown }
      if (pkg.name === 'vitest-llm-bench' && typeof pkg.version === 'string') {
        cached = pkg.version
        break
      }
    } catch {
      // No package.json at this level: keep walking up.
    }
    dir = new URL('../', dir)
  }
  return cached
}
