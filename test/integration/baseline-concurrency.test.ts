import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BASELINE_SCHEMA_VERSION } from '../../src/core/baseline/baseline-file.ts'
import {
  baselineEntryFrom,
  baselinePathFor,
  formatBaselineFile,
  parseBaselineFile,
} from '../../src/core/baseline/index.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'

const run = promisify(execFile)
const WRITER = join(import.meta.dirname, '../helpers/baseline-writer.ts')
const STORED = 2000
const PAIRS = 20

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-baseline-concurrency-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('several -u runs of one bench file at once', () => {
  test(`${PAIRS} pairs on a file of ${STORED} entries: every new entry kept, no live entry removed, the obsolete one removed`, async () => {
    const benchFile = join(dir, 'many.bench.ts')
    const path = baselinePathFor(benchFile)
    const entry = baselineEntryFrom(makeResult({ ttftMs: lognormalSamples(seededRandom(7), 20, 100, 0.2) }))
    const stored = Array.from({ length: STORED }, (_, i) => `stored ${i}`)
    const entries = Object.fromEntries([...stored, 'gone'].map((name) => [name, entry]))
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, formatBaselineFile({ schemaVersion: BASELINE_SCHEMA_VERSION, entries }))
    // Each pair is `-t pair i a -u` beside `-t pair i b -u`: new benches the file registers, so every run knows their names.
    const added = Array.from({ length: PAIRS }, (_, i) => [`pair ${i} a`, `pair ${i} b`]).flat()
    const namesFile = join(dir, 'names.json')
    await writeFile(namesFile, JSON.stringify([...stored, ...added]))
    await Promise.all(added.map((name) => run(process.execPath, [WRITER, benchFile, name, namesFile])))
    const names = Object.keys(parseBaselineFile(await readFile(path, 'utf8'), path).entries)
    expect(names.filter((name) => name.startsWith('pair ')).sort()).toEqual([...added].sort())
    expect(names.filter((name) => name.startsWith('stored ')).length).toBe(STORED)
    expect(names).not.toContain('gone')
    // No lock file and no temporary file is left beside the baseline.
    expect(await readdir(join(dir, '__llm_baselines__'))).toEqual(['many.bench.ts.json'])
  }, 180_000)
})
