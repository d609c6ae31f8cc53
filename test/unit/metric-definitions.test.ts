/** Each per-request latency is defined once (src/core/metrics/request-latency.ts); everything else calls it. */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const DEFINITIONS = 'src/core/metrics/request-latency.ts'

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

// A subtraction whose operands are a request's timestamps: TTFT (firstTokenAt − sentAt or an
// origin), TTFO (firstOutputAt − sentAt), E2E (endAt − sentAt) and TPOT (endAt − firstTokenAt),
// whatever the record is called.
const LATENCY_ARITHMETIC = /\b(firstTokenAt|firstOutputAt|endAt)!?\s*-\s*[\w.]*(sentAt|firstTokenAt|origin)\b/

test('the TTFT, TTFO, E2E and TPOT subtractions appear only in the definitions file', () => {
  const offenders: string[] = []
  for (const file of [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'reporters'))]) {
    const where = relative(root, file)
    if (where === DEFINITIONS) continue
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (LATENCY_ARITHMETIC.test(line)) offenders.push(`${where}:${index + 1}: ${line.trim()}`)
      })
  }
  expect(offenders).toEqual([])
  // The pattern does find the definitions themselves (a pattern that matches nothing proves nothing).
  expect(
    readFileSync(join(root, DEFINITIONS), 'utf8')
      .split('\n')
      .filter((line) => LATENCY_ARITHMETIC.test(line)).length,
  ).toBeGreaterThanOrEqual(4)
})
