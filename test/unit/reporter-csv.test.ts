import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { LlmCsvReporter, toCsv } from '../../reporters/index.ts'
import { csvField } from '../../reporters/csv.ts'
import { moduleOf, reportEntries } from '../helpers/reporter-fixtures.ts'

/** RFC 4180 rows (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (char === '"') quoted = false
      else field += char
    } else if (char === '"') quoted = true
    else if (char === ',') {
      row.push(field)
      field = ''
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i++
    } else field += char
  }
  return rows
}

describe('toCsv', () => {
  test('one row per bench with the headline figures under unit-bearing column names', () => {
    const entries = reportEntries()
    const [header, ...rows] = parseCsv(toCsv(entries))
    expect(rows).toHaveLength(3)
    const column = (name: string): number => {
      const index = header!.indexOf(name)
      expect(index, name).toBeGreaterThanOrEqual(0)
      return index
    }
    const [steady, regressed, first] = rows
    expect(steady![column('bench')]).toBe('chat > steady closed loop, 16 streams')
    expect(Number(steady![column('ttft_p99_ms')])).toBeCloseTo(entries[0]!.result.metrics.ttftMs.p99, 3)
    expect(Number(steady![column('tpot_p50_ms')])).toBeCloseTo(entries[0]!.result.metrics.tpotMs.p50, 3)
    expect(steady![column('output_tokens_per_s')]).toBe('1062.4')
    expect(steady![column('gpu_memory_peak_mib')]).toBe('72098')
    expect(steady![column('gpu_energy_per_output_token_j')]).toBe('1.033')
    expect(steady![column('concurrency')]).toBe('16')
    expect(steady![column('gpu')]).toBe('NVIDIA H100 80GB HBM3')
    expect(regressed![column('status')]).toBe('fail')
    expect(regressed![column('requests_failed')]).toBe('3')
    expect(regressed![column('error_rate')]).toBe('0.0075')
    expect(regressed![column('request_rate')]).toBe('20')
    // Not measured: empty, not 0.
    expect(regressed![column('itl_p50_ms')]).toBe('')
    expect(first![column('gpu_memory_peak_mib')]).toBe('')
    expect(first![column('baseline_verdict')]).toBe('written')
    expect(rows.every((row) => row.length === header!.length)).toBe(true)
  })

  test('quotes fields with commas, quotes or line breaks', () => {
    expect(csvField('a, "b"')).toBe('"a, ""b"""')
    expect(csvField('x\ny')).toBe('"x\ny"')
    expect(csvField(1 / 3)).toBe('0.333333')
    expect(csvField(12)).toBe('12')
    expect(csvField(undefined)).toBe('')
  })

  test('LlmCsvReporter writes the CSV to its output file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-csv-'))
    try {
      await new LlmCsvReporter({ outputFile: join(dir, 'nested', 'results.csv') }).onTestRunEnd([
        moduleOf(reportEntries()),
      ])
      expect(await readFile(join(dir, 'nested', 'results.csv'), 'utf8')).toBe(toCsv(reportEntries()))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
