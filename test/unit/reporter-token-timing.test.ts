/**
 * Reporters with reasoning and per-token timing: TTFO, per-token ITL and reasoning tokens are shown
 * where a result has them (a thinking model on the simulator, usage in every chunk), and the result
 * with its per-request records still validates against the published JSON schema.
 */
import { beforeAll, describe, expect, test } from 'vitest'
import { renderMarkdown, type ReportEntry } from '../../reporters/index.ts'
import { renderConsoleEntry } from '../../reporters/console-table.ts'
import { renderHtml } from '../../reporters/html/html-report.ts'
import { runBenchmark } from '../../src/core/index.ts'
import {
  BENCHMARK_RESULT_SCHEMA,
  BENCHMARK_RESULT_SCHEMA_ID,
  JsonSchemaValidator,
  REPORT_SCHEMA,
} from '../../src/core/contract/json-schema/index.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { startSimulator } from '../../src/sim/index.ts'
import { reportEntries } from '../helpers/reporter-fixtures.ts'

let result: BenchmarkResult
let entry: ReportEntry

beforeAll(async () => {
  const sim = await startSimulator({ speedFactor: 0.2, reasoningTokens: 4, tokensPerChunk: 2 })
  try {
    result = await runBenchmark({
      target: { baseUrl: sim.url, continuousUsageStats: true },
      workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 12 } },
      load: { concurrency: 2, requests: 6 },
      recordRequests: true,
      serverMetrics: false,
    })
  } finally {
    await sim.close()
  }
  entry = { name: 'reasoning > thinking model', file: 'benches/reasoning.bench.ts', state: 'passed', result }
})

describe('reasoning and per-token timing in reports', () => {
  test('the result and its records (TTFO, reasoning, tokens per chunk, output text) validate against the schema', () => {
    const validator = new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA])
    expect(result.metrics.ttfoMs?.count).toBe(6)
    expect(result.metrics.itlPerTokenMs?.count).toBeGreaterThan(0)
    expect(result.metrics.reasoningTokens?.mean).toBe(4)
    const records = result.requests as RequestRecord[]
    expect(records[0]?.chunkTokens).toEqual([2, 2, 2, 2, 2, 2])
    const withText = { ...result, requests: records.map((r) => ({ ...r, outputText: 'the answer' })) }
    expect(validator.validate(BENCHMARK_RESULT_SCHEMA_ID, JSON.parse(JSON.stringify(withText)))).toEqual([])
  })

  test('console: TTFO after TTFT, ITL per token after ITL, and reasoning tokens, with their figures', () => {
    const lines = renderConsoleEntry(entry).split('\n')
    const labels = lines.map((line) => line.trim().split(/\s{2,}/)[0])
    expect(
      labels.filter((label) =>
        ['TTFT', 'TTFO', 'TPOT', 'ITL', 'ITL per token', 'E2E', 'reasoning tokens'].includes(label as string),
      ),
    ).toEqual(['TTFT', 'TTFO', 'TPOT', 'ITL', 'ITL per token', 'E2E', 'reasoning tokens'])
    const row = lines.find((line) => line.trim().startsWith('reasoning tokens')) as string
    expect(row).toContain('4 tok')
  })

  test('markdown: one line with TTFO, reasoning tokens and per-token ITL in the bench section', () => {
    const markdown = renderMarkdown([entry])
    const line = markdown
      .split('\n')
      .find((l) => l.startsWith('Reasoning, tool calls, structured output and per-token timing: ')) as string
    expect(line).toMatch(/TTFO p50 [\d.]+ ms, p99 [\d.]+ ms \(TTFT p50 [\d.]+ ms/)
    expect(line).toContain('reasoning tokens mean 4 tok of 12 tok output')
    expect(line).toMatch(/ITL per token p50 [\d.]+ ms, p99 [\d.]+ ms \(per chunk p50 [\d.]+ ms\)/)
  })

  test('tool calls: the markdown line says how many replies called a tool; the records validate', () => {
    const records = (result.requests as RequestRecord[]).map((r, i) => (i < 4 ? { ...r, toolCall: true as const } : r))
    const withTools = { ...result, requests: records, streaming: { ...result.streaming, toolCallRequests: 4 } }
    const line = renderMarkdown([{ ...entry, result: withTools }])
      .split('\n')
      .find((l) => l.startsWith('Reasoning, tool calls, structured output and per-token timing: ')) as string
    expect(line).toContain('tool calls in 4 of 6 replies (their arguments are output)')
    const validator = new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA])
    expect(validator.validate(BENCHMARK_RESULT_SCHEMA_ID, JSON.parse(JSON.stringify(withTools)))).toEqual([])
    expect(renderMarkdown([entry])).not.toContain('tool calls in')
  })

  test('html: cards for TTFO and ITL per token', () => {
    const html = renderHtml([entry])
    expect(html).toContain('TTFO p50')
    expect(html).toContain('ITL per token p99')
  })

  test('one token per chunk: ITL per token is ITL, shown once', () => {
    const itlMs = result.metrics.itlMs
    const oneTokenChunks = { ...result, metrics: { ...result.metrics, itlPerTokenMs: { ...itlMs } } }
    const single = { ...entry, result: oneTokenChunks }
    expect(renderConsoleEntry(single)).not.toContain('ITL per token')
    expect(renderConsoleEntry(single)).toMatch(/^ {2}ITL /m)
    expect(renderMarkdown([single])).not.toContain('ITL per token')
  })

  test('results without them show none of it', () => {
    for (const plain of reportEntries()) {
      expect(renderConsoleEntry(plain)).not.toMatch(/TTFO|ITL per token|reasoning tokens/)
      expect(renderMarkdown([plain])).not.toContain('Reasoning, tool calls, structured output and per-token timing')
    }
  })
})
