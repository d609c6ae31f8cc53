import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { WorkloadError } from '../../src/core/contract/errors.ts'
import { readDatasetLines, readJsonArrayElements } from '../../src/core/workload/index.ts'

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/datasets/${name}`, import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'llm-bench-dataset-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const write = (name: string, content: string): string => {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

describe('readJsonArrayElements', () => {
  it('yields the same elements as JSON.parse whatever the chunk size', async () => {
    const path = fixture('sharegpt-small.json')
    const expected = JSON.parse(readFileSync(path, 'utf8')) as unknown[]
    for (const chunkBytes of [3, 7, 64, 1 << 20]) {
      const seen: unknown[] = []
      await readJsonArrayElements(path, (value) => seen.push(value), chunkBytes)
      expect(seen).toEqual(expected)
    }
  })

  it('handles scalars, nesting, escapes, a BOM and an empty array', async () => {
    const values = [1, 'a,]"\\', [2, [3]], { b: '}' }, null, true, -0.5e3]
    const path = write('mixed.json', '\ufeff[ ' + values.map((v) => JSON.stringify(v)).join(' ,\n') + ' ]\n')
    for (const chunkBytes of [1, 2, 5, 1000]) {
      const seen: unknown[] = []
      const lines: number[] = []
      await readJsonArrayElements(path, (value, _index, line) => (seen.push(value), lines.push(line)), chunkBytes)
      expect(seen).toEqual(values)
      expect(lines).toEqual([1, 2, 3, 4, 5, 6, 7])
    }
    const empty: unknown[] = []
    await readJsonArrayElements(write('empty-array.json', '[]'), (v) => empty.push(v))
    expect(empty).toEqual([])
  })

  it('reports syntax errors between entries with their line', async () => {
    const missingComma = write('missing-comma.json', '[\n{"a": 1}\n{"b": 2}\n]')
    await expect(readJsonArrayElements(missingComma, () => {})).rejects.toThrow(
      /missing-comma\.json:3: expected `,` or `\]` after entry 0/,
    )
    const stray = write('stray.json', '[\n{"a": 1},\n]')
    await expect(readJsonArrayElements(stray, () => {})).rejects.toThrow(/stray\.json:3: expected an entry, found `\]`/)
    const trailing = write('trailing.json', '[1]\nx')
    await expect(readJsonArrayElements(trailing, () => {})).rejects.toThrow(/trailing\.json:2: unexpected `x`/)
    const empty = write('empty.json', '')
    await expect(readJsonArrayElements(empty, () => {})).rejects.toBeInstanceOf(WorkloadError)
  })
})

describe('readDatasetLines', () => {
  it('splits lines across chunks without breaking multi-byte characters, and hashes the file', async () => {
    const content = 'première ligne\r\n€ deux\n\ntrois 😀'
    const path = write('lines.txt', content)
    for (const chunkBytes of [1, 2, 3, 100]) {
      const lines: Array<[string, number]> = []
      const facts = await readDatasetLines(path, (line, n) => lines.push([line, n]), chunkBytes)
      expect(lines).toEqual([
        ['première ligne', 1],
        ['€ deux', 2],
        ['', 3],
        ['trois 😀', 4],
      ])
      expect(facts.bytes).toBe(Buffer.byteLength(content))
      expect(facts.sha256).toMatch(/^[0-9a-f]{64}$/)
    }
  })
})
