import { readFileSync } from 'node:fs'

let cached: string | undefined

/** The version of vitest-llm-bench, from its package.json; `unknown` when it cannot be read. */
export function toolVersion(): string {
  if (cached !== undefined) return cached
  try {
    // Read at run time rather than imported: the path holds from the sources and from dist alike.
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string }
    cached = pkg.name === 'vitest-llm-bench' && typeof pkg.version === 'string' ? pkg.version : 'unknown'
  } catch {
    cached = 'unknown'
  }
  return cached
}
