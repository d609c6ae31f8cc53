/**
 * Golden SSE fixtures (test/fixtures/sse/*.sse) played by a local server with real delays.
 * Each expectation below is computed by hand from the fixture (its header comment shows how).
 *
 * Timing checks are two-sided but robust on a loaded machine: the server runs in this process
 * and records performance.now() before each write, so every client timestamp must lie after
 * the write that carried it and before the next write (the client reads a write in the same
 * event-loop turn it is sent). Against the planned schedule, TTFT gets -2 / +60 ms of slack.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { StreamingClient, endpointPath, resolveTarget } from '../../src/core/client/index.ts'
import { MetricsAccumulator } from '../../src/core/metrics/index.ts'
import type { ApiKind } from '../../src/core/contract/api-kinds.ts'
import type { FailureKind, RequestRecord } from '../../src/core/contract/request-record.ts'
import { loadSseFixture } from '../fixtures/sse/fixture-file.ts'
import { startScriptedServer } from '../fixtures/sse/scripted-server.ts'
import type { ScriptedServer } from '../fixtures/sse/scripted-server.ts'

interface Expectation {
  fixture: string
  api?: ApiKind
  expectedInputTokens?: number
  ok: boolean
  errorKind?: FailureKind
  messageIncludes?: string
  /** The write that carries each content event, in order. */
  contentWrites: number[]
  outputTokens: number
  inputTokens: number
  usageReported: boolean
  streamed: boolean
  /** Every content event (3 or more) in one read. Default false. */
  readInOneBurst?: boolean
  finishReason?: string
  /** For a failure: the write whose arrival fails the request (endAt lies after it, before the next). */
  failsAtWrite?: number
  serverTimings?: Record<string, number>
  /** The write carrying the first answer (non-reasoning) output: TTFO's end (checked when given). */
  firstAnswerWrite?: number
  /** Output events that carried reasoning only. */
  reasoningChunks?: number
  reasoningTokens?: number
  /** The answer text, when the case checks it. */
  outputText?: string
  /** The reply carried a tool call. Default false. */
  toolCall?: boolean
  /** The calls collected for a session's next turn (kept with the output text): id, function, whole arguments. */
  toolCalls?: RequestRecord['toolCalls']
}

const cases: Expectation[] = [
  {
    fixture: 'role-only-first-chunk',
    ok: true,
    contentWrites: [1, 2, 3],
    outputTokens: 3,
    inputTokens: 7,
    usageReported: true,
    streamed: true,
    finishReason: 'stop',
  },
  {
    fixture: 'empty-content-chunks',
    ok: true,
    contentWrites: [2, 4],
    outputTokens: 2,
    inputTokens: 4,
    usageReported: true,
    streamed: true,
    finishReason: 'length',
  },
  {
    fixture: 'reasoning-before-content',
    ok: true,
    contentWrites: [0, 1, 2],
    outputTokens: 5,
    inputTokens: 11,
    usageReported: true,
    streamed: true,
    finishReason: 'stop',
  },
  {
    fixture: 'ping-comments',
    ok: true,
    contentWrites: [1, 3],
    outputTokens: 2,
    inputTokens: 3,
    usageReported: true,
    streamed: true,
    finishReason: 'stop',
  },
  {
    fixture: 'crlf-line-endings',
    ok: true,
    contentWrites: [0, 1, 2],
    outputTokens: 3,
    inputTokens: 2,
    usageReported: true,
    streamed: true,
    finishReason: 'stop',
  },
  {
    fixture: 'several-events-one-write',
    ok: true,
    contentWrites: [0, 0, 0, 1, 1],
    outputTokens: 5,
    inputTokens: 6,
    usageReported: true,
    streamed: true,
    finishReason: 'stop',
  },
  {
    fixture: 'usage-only-final-chunk',
    ok: true,
    contentWrites: [0, 1],
    outputTokens: 2,
    inputTokens: 9,
    usageReported: true,
    streamed: true,
    finishReason: 'stop',
  },
  {
    fixture: 'no-usage',
    expectedInputTokens: 32,
    ok: true,
    contentWrites: [0, 1, 2],
    outputTokens: 3,
    inputTokens: 32,
    usageReported: false,
    streamed: true,
    finishReason: 'stop',
  },
  {
    fixture: 'reasoning-continuous-usage',
    ok: true,
    contentWrites: [1, 2, 3, 4, 5],
    outputTokens: 9,
    inputTokens: 12,
    usageReported: true,
    streamed: true,
    finishReason: 'stop',
  },
  {
    fixture: 'reasoning-field-held-token',
    ok: true,
    contentWrites: [0, 1, 3],
    outputTokens: 7,
    inputTokens: 3,
    usageReported: true,
    streamed: true,
    finishReason: 'length',
  },
  {
    fixture: 'multi-token-chunks',
    ok: true,
    contentWrites: [0, 1, 2, 3],
    outputTokens: 10,
    inputTokens: 20,
    usageReported: true,
    streamed: true,
    finishReason: 'length',
  },
  {
    fixture: 'completions-text',
    api: 'completions',
    ok: true,
    contentWrites: [0, 1],
    outputTokens: 2,
    inputTokens: 1,
    usageReported: true,
    streamed: true,
    finishReason: 'length',
  },
  {
    fixture: 'llama-cpp-timings',
    ok: true,
    contentWrites: [0, 1],
    outputTokens: 2,
    inputTokens: 5,
    usageReported: true,
    streamed: true,
    finishReason: 'stop',
    serverTimings: {
      prompt_n: 5,
      prompt_ms: 12.5,
      prompt_per_token_ms: 2.5,
      prompt_per_second: 400,
      predicted_n: 2,
      predicted_ms: 20,
      predicted_per_token_ms: 10,
      predicted_per_second: 100,
    },
  },
  {
    fixture: 'one-burst',
    ok: true,
    contentWrites: [0, 0, 0, 0, 0],
    outputTokens: 5,
    inputTokens: 3,
    usageReported: true,
    streamed: true,
    readInOneBurst: true,
    finishReason: 'stop',
  },
  // Failures: token counts are what was seen before the failure (for diagnosis only).
  {
    fixture: 'error-mid-stream',
    ok: false,
    errorKind: 'stream-error',
    messageIncludes: 'CUDA out of memory',
    contentWrites: [0, 1],
    failsAtWrite: 2,
    outputTokens: 2,
    inputTokens: 0,
    usageReported: false,
    streamed: true,
  },
  {
    fixture: 'error-event',
    ok: false,
    errorKind: 'stream-error',
    messageIncludes: 'model overloaded',
    contentWrites: [0],
    failsAtWrite: 1,
    outputTokens: 1,
    inputTokens: 0,
    usageReported: false,
    streamed: true,
  },
  {
    fixture: 'no-done',
    ok: false,
    errorKind: 'incomplete',
    messageIncludes: '[DONE]',
    contentWrites: [0, 1],
    failsAtWrite: 1,
    outputTokens: 2,
    inputTokens: 2,
    usageReported: true,
    streamed: true,
  },
  {
    fixture: 'malformed-json',
    ok: false,
    errorKind: 'malformed',
    messageIncludes: 'not a JSON object',
    contentWrites: [0],
    failsAtWrite: 1,
    outputTokens: 1,
    inputTokens: 0,
    usageReported: false,
    streamed: true,
  },
  {
    fixture: 'chat-tool-call-first',
    ok: true,
    contentWrites: [1, 2, 3],
    firstAnswerWrite: 1,
    outputTokens: 9,
    inputTokens: 15,
    usageReported: true,
    streamed: true,
    finishReason: 'tool_calls',
    outputText: '',
    toolCall: true,
    toolCalls: [{ id: 'chatcmpl-tool-1', name: 'get_weather', arguments: '{"city": "Paris"}' }],
  },
  {
    fixture: 'responses-reasoning',
    api: 'responses',
    ok: true,
    contentWrites: [1, 2, 3, 4],
    firstAnswerWrite: 3,
    outputTokens: 6,
    inputTokens: 9,
    usageReported: true,
    streamed: true,
    finishReason: 'stop',
    reasoningChunks: 2,
    reasoningTokens: 3,
    outputText: 'Hello world',
    serverTimings: { prompt_ms: 12.5, predicted_ms: 170 },
  },
  {
    fixture: 'responses-failed',
    api: 'responses',
    ok: false,
    errorKind: 'stream-error',
    messageIncludes: 'out of memory',
    contentWrites: [1, 2],
    failsAtWrite: 3,
    outputTokens: 2,
    inputTokens: 0,
    usageReported: false,
    streamed: true,
  },
  {
    fixture: 'responses-tool-first',
    api: 'responses',
    ok: true,
    contentWrites: [1, 2],
    firstAnswerWrite: 1,
    outputTokens: 5,
    inputTokens: 11,
    usageReported: true,
    streamed: true,
    finishReason: 'tool_calls',
    outputText: '',
    toolCall: true,
    toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"q":"x"}' }],
  },
  {
    fixture: 'messages-thinking',
    api: 'messages',
    ok: true,
    contentWrites: [0, 1, 2, 3],
    firstAnswerWrite: 2,
    outputTokens: 5,
    inputTokens: 7,
    usageReported: true,
    streamed: true,
    finishReason: 'length',
    reasoningChunks: 2,
    outputText: 'Sure!',
  },
  {
    fixture: 'messages-tool-first',
    api: 'messages',
    ok: true,
    contentWrites: [1, 2],
    firstAnswerWrite: 1,
    outputTokens: 7,
    inputTokens: 20,
    usageReported: true,
    streamed: true,
    finishReason: 'tool_calls',
    outputText: '',
    toolCall: true,
    toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city": "Paris"}' }],
  },
  {
    fixture: 'messages-error',
    api: 'messages',
    ok: false,
    errorKind: 'stream-error',
    messageIncludes: 'Overloaded',
    contentWrites: [0],
    failsAtWrite: 1,
    outputTokens: 1,
    inputTokens: 0,
    usageReported: false,
    streamed: true,
  },
]

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer(() => ({ writes: [] }))
})
afterAll(async () => {
  await server.close()
})

function assertTimeline(record: RequestRecord, exp: Expectation, writeTimes: number[], plannedAtMs: number[]): void {
  const { chunkTimes } = record
  expect(chunkTimes).toHaveLength(exp.contentWrites.length)
  exp.contentWrites.forEach((write, k) => {
    const at = chunkTimes[k] as number
    expect(at).toBeGreaterThanOrEqual(writeTimes[write] as number)
    const next = writeTimes[write + 1]
    if (next !== undefined) expect(at).toBeLessThan(next)
    if (k > 0) expect(at).toBeGreaterThanOrEqual(chunkTimes[k - 1] as number)
  })
  expect(record.firstTokenAt).toBe(chunkTimes[0])
  const ttft = (record.firstTokenAt as number) - record.sentAt
  const planned = plannedAtMs[exp.contentWrites[0] as number] as number
  expect(ttft).toBeGreaterThanOrEqual(planned - 2)
  expect(ttft).toBeLessThan(planned + 60)
  expect(record.headersAt).toBeGreaterThanOrEqual(record.sentAt)
  expect(record.headersAt).toBeLessThanOrEqual(record.firstTokenAt as number)
}

/**
 * The fixture's record through the metrics, checked against DESIGN.md's definitions computed here
 * from the record's own timestamps: a completed request counts once in TTFT, E2E and TPOT (TPOT
 * only with >= 2 output tokens) and adds one ITL gap per pair of content events; a request that
 * was not streamed has no TTFT, TPOT or ITL; a failed one is in no latency distribution.
 */
function assertMetrics(record: RequestRecord, exp: Expectation): void {
  const metrics = new MetricsAccumulator()
  metrics.add(record)
  const outcome = metrics.finish({ durationMs: 1000 })
  const m = outcome.metrics
  expect(outcome.counts).toEqual({ total: 1, completed: exp.ok ? 1 : 0, failed: exp.ok ? 0 : 1 })
  // A completed reply with a tool call is reported apart; none, and the field is absent.
  expect(outcome.streaming.toolCallRequests).toBe(exp.ok && exp.toolCall === true ? 1 : undefined)
  if (!exp.ok) {
    for (const name of ['ttftMs', 'tpotMs', 'itlMs', 'e2eMs'] as const) expect(m[name].count, name).toBe(0)
    expect(outcome.errors.map((e) => [e.kind, e.count])).toEqual([[exp.errorKind, 1]])
    return
  }
  expect(m.outputTokens.count).toBe(1)
  expect(m.outputTokens.mean).toBe(exp.outputTokens)
  expect(m.e2eMs.count).toBe(1)
  const close = (summary: { p50: number }, ms: number) =>
    expect(Math.abs(summary.p50 - ms)).toBeLessThanOrEqual(Math.max(0.002, ms * 0.001))
  close(m.e2eMs, record.endAt - record.sentAt)
  // A stream read in one burst is still measured (a late client); only the probe calls a server buffered.
  expect(outcome.streaming.burstRequests).toBe(exp.readInOneBurst ? 1 : 0)
  const ttft = (record.firstTokenAt as number) - record.sentAt
  expect(m.ttftMs.count).toBe(1)
  close(m.ttftMs, ttft)
  expect(m.tpotMs.count).toBe(exp.outputTokens >= 2 ? 1 : 0)
  if (exp.outputTokens >= 2) close(m.tpotMs, (record.endAt - record.sentAt - ttft) / (exp.outputTokens - 1))
  expect(m.itlMs.count).toBe(exp.contentWrites.length - 1)
  expect(outcome.streaming.tokenCountEstimated).toBe(!exp.usageReported)
  // More tokens (by usage) than content events: some chunks carried several, and the result says so.
  const severalPerChunk = exp.usageReported && exp.outputTokens > exp.contentWrites.length
  expect(outcome.streaming.multiTokenChunks > 0).toBe(severalPerChunk)
}

// Each event must be timed between its write and the next (50 ms apart). A CPU-starved test
// process can read two writes at once; a retry tells that apart from a bug, which fails every time.
describe('golden SSE fixtures', { retry: 2 }, () => {
  test.each(cases)('$fixture', async (exp) => {
    const fixture = loadSseFixture(exp.fixture)
    server.respond = () => ({ writes: fixture.writes })
    const before = server.requests.length
    const client = new StreamingClient(
      resolveTarget({ baseUrl: server.url, api: exp.api, requestTimeoutMs: 10_000 }, 'm'),
      { connections: 1 },
    )
    try {
      const record = await client.send(
        {
          messages: [{ role: 'user', content: 'hi' }],
          prompt: 'hi',
          maxTokens: 16,
          expectedInputTokens: exp.expectedInputTokens,
          keepOutputText: exp.outputText !== undefined,
        },
        { index: 7, plannedAt: 1.5 },
      )
      const received = server.requests[before]
      expect(received?.url).toBe(endpointPath(exp.api ?? 'chat'))
      // Anthropic's version header goes with the Messages API only (no key here, so no x-api-key).
      expect(received?.headers['anthropic-version']).toBe(exp.api === 'messages' ? '2023-06-01' : undefined)
      expect(received?.headers['x-api-key']).toBeUndefined()
      const writeTimes = received?.writeTimes ?? []

      expect(record.index).toBe(7)
      expect(record.plannedAt).toBe(1.5)
      expect(record.ok).toBe(exp.ok)
      expect(record.error?.kind).toBe(exp.errorKind)
      if (exp.messageIncludes !== undefined) expect(record.error?.message).toContain(exp.messageIncludes)
      expect(record.outputTokens).toBe(exp.outputTokens)
      expect(record.inputTokens).toBe(exp.inputTokens)
      expect(record.usageReported).toBe(exp.usageReported)
      expect(record.streamed).toBe(exp.streamed)
      expect(record.readInOneBurst).toBe(exp.readInOneBurst ?? false)
      expect(record.finishReason).toBe(exp.finishReason)
      expect(record.serverTimings).toEqual(exp.serverTimings)
      if (exp.api === 'responses' || exp.api === 'messages') {
        // Chat's reasoning fixtures have their own test (client-stream-reasoning-fixtures.test.ts).
        expect(record.reasoningChunks).toBe(exp.reasoningChunks)
        expect(record.reasoningTokens).toBe(exp.reasoningTokens)
      }
      if (exp.outputText !== undefined) expect(record.outputText).toBe(exp.outputText)
      // Collected only with the output text (a session's turn); a reply without a call has none.
      expect(record.toolCalls).toEqual(exp.outputText !== undefined ? exp.toolCalls : undefined)
      // TTFO's event: the first answer output, between the write that carried it and the next.
      expect(record.toolCall === true).toBe(exp.toolCall ?? false)
      if (exp.firstAnswerWrite !== undefined)
        expect(record.firstOutputAt).toBe(record.chunkTimes[exp.contentWrites.indexOf(exp.firstAnswerWrite)])
      assertTimeline(record, exp, writeTimes, fixture.plannedAtMs)

      assertMetrics(record, exp)

      if (exp.ok) {
        // E2E ends at the last content event: the usage-only chunk and [DONE] do not move it.
        expect(record.endAt).toBe(record.chunkTimes.at(-1))
        if (exp.fixture === 'usage-only-final-chunk') expect(record.endAt).toBeLessThan(writeTimes[2] as number)
      } else {
        const failsAt = exp.failsAtWrite as number
        expect(record.endAt).toBeGreaterThanOrEqual(writeTimes[failsAt] as number)
        const next = writeTimes[failsAt + 1]
        if (next !== undefined) expect(record.endAt).toBeLessThan(next)
      }
    } finally {
      await client.close()
    }
  })
})
