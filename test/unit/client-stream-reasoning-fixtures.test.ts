/**
 * Golden SSE fixtures for reasoning and per-token timing (test/fixtures/sse/reasoning-*.sse),
 * played by a local server with real delays, through the client and the metrics. Every expected
 * figure below is the fixture's hand computation (its header comment); the timing checks allow
 * for a loaded machine the way client-stream-fixtures.test.ts does (each event lies between the
 * write that carried it and the next), and the per-token values are also checked exactly against
 * the record's own timestamps.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { StreamingClient, resolveTarget } from '../../src/core/client/index.ts'
import { MetricsAccumulator } from '../../src/core/metrics/index.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { loadSseFixture } from '../fixtures/sse/fixture-file.ts'
import { startScriptedServer } from '../fixtures/sse/scripted-server.ts'
import type { ScriptedServer } from '../fixtures/sse/scripted-server.ts'

interface Golden {
  fixture: string
  /** The write carrying each output event. */
  outputWrites: number[]
  /** The write carrying the first answer (non-reasoning) output. */
  firstAnswerWrite: number
  chunkTokens: number[]
  reasoningTokens: number
  reasoningChunks: number
  outputTokens: number
  outputText: string
  /** Planned TTFT, TTFO and E2E, ms after the request. */
  ttftMs: number
  ttfoMs: number
  e2eMs: number
  /** Planned per-chunk ITL, ms. */
  itlMs: number[]
  /** Planned per-token ITL, ms, in stream order. */
  itlPerTokenMs: number[]
}

const goldens: Golden[] = [
  {
    fixture: 'reasoning-continuous-usage',
    outputWrites: [1, 2, 3, 4, 5],
    firstAnswerWrite: 3,
    chunkTokens: [1, 3, 2, 1, 2],
    reasoningTokens: 4,
    reasoningChunks: 2,
    outputTokens: 9,
    outputText: 'The answer is 42.',
    ttftMs: 100,
    ttfoMs: 200,
    e2eMs: 270,
    itlMs: [50, 50, 30, 40],
    itlPerTokenMs: [50 / 3, 50 / 3, 50 / 3, 25, 25, 30, 20, 20],
  },
  {
    fixture: 'reasoning-field-held-token',
    outputWrites: [0, 1, 3],
    firstAnswerWrite: 1,
    chunkTokens: [2, 2, 3],
    reasoningTokens: 3,
    reasoningChunks: 1,
    outputTokens: 7,
    outputText: 'Yes, sure',
    ttftMs: 50,
    ttfoMs: 90,
    e2eMs: 160,
    itlMs: [40, 70],
    itlPerTokenMs: [20, 20, 70 / 3, 70 / 3, 70 / 3],
  },
]

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer(() => ({ writes: [] }))
})
afterAll(async () => {
  await server.close()
})

/** `itlPerTokenMs` of one record, as the accumulator reports it. */
function perTokenOf(record: RequestRecord): { count: number; mean: number; min: number; max: number } {
  const metrics = new MetricsAccumulator()
  metrics.add(record)
  const summary = metrics.finish({ durationMs: 1000 }).metrics.itlPerTokenMs
  if (summary === undefined) throw new Error('no itlPerTokenMs')
  return summary
}

// A CPU-starved test process can read two writes at once; a retry tells that apart from a bug.
describe('golden reasoning and per-token fixtures', { retry: 2 }, () => {
  test.each(goldens)('$fixture', async (g) => {
    const fixture = loadSseFixture(g.fixture)
    server.respond = () => ({ writes: fixture.writes })
    const before = server.requests.length
    const client = new StreamingClient(
      resolveTarget({ baseUrl: server.url, requestTimeoutMs: 10_000, continuousUsageStats: true }, 'm'),
      { connections: 1 },
    )
    let record: RequestRecord
    try {
      record = await client.send(
        { messages: [{ role: 'user', content: 'q' }], maxTokens: 16, keepOutputText: true },
        { index: 0 },
      )
    } finally {
      await client.close()
    }
    const received = server.requests[before]
    expect(JSON.parse(received?.body ?? '{}').stream_options).toEqual({
      include_usage: true,
      continuous_usage_stats: true,
    })
    const writeTimes = received?.writeTimes ?? []

    expect(record.ok).toBe(true)
    expect(record.outputTokens).toBe(g.outputTokens)
    expect(record.reasoningTokens).toBe(g.reasoningTokens)
    expect(record.reasoningChunks).toBe(g.reasoningChunks)
    expect(record.chunkTokens).toEqual(g.chunkTokens)
    expect(record.outputText).toBe(g.outputText)
    // Each output event between the write that carried it and the next.
    expect(record.chunkTimes).toHaveLength(g.outputWrites.length)
    g.outputWrites.forEach((write, k) => {
      expect(record.chunkTimes[k]).toBeGreaterThanOrEqual(writeTimes[write] as number)
      const next = writeTimes[write + 1]
      if (next !== undefined) expect(record.chunkTimes[k]).toBeLessThan(next)
    })
    expect(record.firstOutputAt).toBe(record.chunkTimes[g.outputWrites.indexOf(g.firstAnswerWrite)])

    const metrics = new MetricsAccumulator()
    metrics.add(record)
    const outcome = metrics.finish({ durationMs: 1000 })
    const m = outcome.metrics
    const near = (actual: number | undefined, planned: number) => {
      expect(actual).toBeGreaterThanOrEqual(planned - 2)
      expect(actual).toBeLessThan(planned + 60)
    }
    near(m.ttftMs.mean, g.ttftMs)
    near(m.ttfoMs?.mean, g.ttfoMs)
    near(m.e2eMs.mean, g.e2eMs)
    // TTFO - TTFT is the reasoning time: the planned gap between the first output and the first answer write.
    expect((m.ttfoMs?.mean as number) - m.ttftMs.mean).toBeGreaterThanOrEqual(g.ttfoMs - g.ttftMs - 2)
    expect(m.reasoningTokens).toMatchObject({ count: 1, mean: g.reasoningTokens })
    expect(m.tpotMs.mean).toBeCloseTo((record.endAt - (record.firstTokenAt as number)) / (g.outputTokens - 1), 6)

    // Per chunk: one gap per event after the first.
    expect(m.itlMs.count).toBe(g.itlMs.length)
    // Per token: one value per token after the first event's, summing to E2E - TTFT.
    const perToken = perTokenOf(record)
    expect(perToken.count).toBe(g.itlPerTokenMs.length)
    expect(perToken.count).toBe(g.outputTokens - (g.chunkTokens[0] as number))
    expect(perToken.mean * perToken.count).toBeCloseTo(record.endAt - (record.firstTokenAt as number), 6)
    // Exactly each gap divided by its chunk's tokens, from the record's own times.
    const gaps = record.chunkTimes.slice(1).map((t, i) => t - (record.chunkTimes[i] as number))
    const exact = gaps.flatMap((gap, i) =>
      Array.from({ length: g.chunkTokens[i + 1] as number }, () => gap / (g.chunkTokens[i + 1] as number)),
    )
    expect(perToken.min).toBeCloseTo(Math.min(...exact), 9)
    expect(perToken.max).toBeCloseTo(Math.max(...exact), 9)
    expect(perToken.mean).toBeCloseTo(exact.reduce((a, b) => a + b, 0) / exact.length, 9)
    // And each near the hand computation from the planned writes (a late read moves a gap by up to a write's spacing).
    expect(exact).toHaveLength(g.itlPerTokenMs.length)
    exact.forEach((value, i) =>
      expect(
        Math.abs(value - (g.itlPerTokenMs[i] as number)),
        `token ${i + 1}: ${value} vs ${g.itlPerTokenMs[i]}`,
      ).toBeLessThan(20),
    )
    expect(outcome.histograms.itlPerTokenUs).toBeDefined()
    expect(outcome.histograms.ttfoUs).toBeDefined()
  })
})
