import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { detectDialect, parsePrometheusText, summarizeServerMetrics } from '../../src/core/server/metrics/index.ts'
import type { ServerMetricsScrape } from '../../src/core/server/metrics/index.ts'

const fixture = (name: string) => readFileSync(new URL(`../fixtures/server-metrics/${name}`, import.meta.url), 'utf8')

/** The same exposition as a freshly started server shows it: every sample 0. */
const zeroed = (text: string) => text.replace(/^([^#\s][^ ]*(?:\{[^}]*\})?) \S+$/gm, '$1 0')
const scrape = (t: number, text: string): ServerMetricsScrape => ({
  t,
  durationMs: 1,
  exposition: parsePrometheusText(text),
})

describe('a vLLM V1 /metrics text (names, types, labels and buckets from vllm/v1/metrics/loggers.py and buckets.py)', () => {
  const text = fixture('vllm-v1-3168f587.txt')

  test('every sample line parses and the dialect is vLLM', () => {
    const exposition = parsePrometheusText(text)
    expect(exposition.invalidLines).toBe(0)
    expect(detectDialect(exposition)?.dialect).toBe('vllm')
    expect(exposition.types.get('vllm:time_to_first_token_seconds')).toBe('histogram')
    expect(exposition.types.get('vllm:prefix_cache_hits_total')).toBe('counter')
  })

  test("from a fresh server to this text, the documented set holds the fixture's figures", () => {
    const names = detectDialect(parsePrometheusText(text))!
    const m = summarizeServerMetrics({
      names,
      url: 'http://127.0.0.1:8000/metrics',
      intervalMs: 1000,
      scrapes: [scrape(0, zeroed(text)), scrape(1000, text)],
    })
    expect(m).toMatchObject({
      dialect: 'vllm',
      promptTokens: 103_424,
      generatedTokens: 25_787,
      finishedRequests: 200,
      preemptions: 3,
    })
    expect(m.prefixCache).toEqual({ queriedTokens: 103_936, hitTokens: 40_960, hitRate: 40_960 / 103_936 })
    expect(m.requestsRunning).toEqual({ mean: 1, peak: 2, stddev: Math.SQRT2, samples: 2 })
    expect(m.requestsWaiting?.peak).toBe(1)
    expect(m.kvCacheUsage?.peak).toBeCloseTo(0.0731, 10)
    // TTFT: 202 observations, sum 23.0805 s; the 101st falls 18 of 26 into (80, 100] ms, the 199.98th 8.98 of 10 into (250, 500] ms.
    expect(m.ttftMs?.count).toBe(202)
    expect(m.ttftMs?.mean).toBeCloseTo((23.080_5 / 202) * 1000, 6)
    expect(m.ttftMs?.p50).toBeCloseTo(80 + (20 * 18) / 26, 6)
    expect(m.ttftMs?.p99).toBeCloseTo(250 + 250 * 0.898, 6)
    expect(m.queueTimeMs?.mean).toBeCloseTo((9.73 / 200) * 1000, 6)
    expect(m.prefillTimeMs?.count).toBe(200)
    expect(m.decodeTimeMs?.count).toBe(200)
    expect(m.e2eMs?.count).toBe(200)
    expect(m.itlMs?.count).toBe(8418)
    // vLLM's own formulas (vllm/v1/spec_decode/metrics.py): accepted / draft tokens, 1 + accepted / drafts.
    expect(m.specDecode).toEqual({
      drafts: 8000,
      draftTokens: 24_000,
      acceptedTokens: 15_600,
      acceptanceRate: 0.65,
      meanAcceptedLength: 2.95,
    })
    expect(m.notes).toEqual([])
  })
})

describe("llama-server --metrics, as this project's build (llama.cpp 80fb11a) serves it", () => {
  test('one request of 5 prompt and 16 output tokens', () => {
    const text = fixture('llamacpp-80fb11a-after-one-request.txt')
    const exposition = parsePrometheusText(text)
    expect(exposition.invalidLines).toBe(0)
    const names = detectDialect(exposition)!
    expect(names.dialect).toBe('llamacpp')
    const m = summarizeServerMetrics({
      names,
      url: 'u',
      intervalMs: 1000,
      scrapes: [scrape(0, zeroed(text)), scrape(1000, text)],
    })
    expect(m).toMatchObject({ promptTokens: 5, generatedTokens: 16 })
    expect(m.prefixCache).toEqual({ queriedTokens: 5, hitTokens: 0, hitRate: 0 })
    expect(m.requestsRunning).toEqual({ mean: 0, peak: 0, stddev: 0, samples: 2 })
    expect(m.ttftMs).toBeUndefined()
    expect(m.specDecode).toBeUndefined() // no drafts
  })
})
