import { readFileSync } from 'node:fs'

let cached: string | undefined

/**
 * The version of vitest-llm-bench, from its package.json; `unknown` when it cannot be read.
 * Looked up by walking up from this file: the sources (src/core/telemetry) and the build
 * (dist/src/core/telemetry) sit at different depths below the package root.
 */
export function toolVersion(): string {
  if (cached !== undefined) return cached
  cached = 'unknown'
  let dir = new URL('./', import.meta.url)
  for (let depth = 0; depth < 6; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as {
        name?: unknown
        version?: unknown
      }
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
