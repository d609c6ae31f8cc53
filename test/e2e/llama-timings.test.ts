// compareLlamaTimings on hand-made records (no server): what is paired, skipped and computed.
import { describe, expect, test } from 'vitest'
import { compareLlamaTimings, llamaTimingPairs } from '../../src/core/server/llama-timings.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'

function record(
  index: number,
  ttft: number,
  tpot: number,
  tokens: number,
  timings: Record<string, number> | undefined,
  extra: Partial<RequestRecord> = {},
): RequestRecord {
  const sentAt = 1000 * index
  const firstTokenAt = sentAt + ttft
  return {
    index,
    plannedAt: undefined,
    sentAt,
    headersAt: sentAt + 1,
    firstTokenAt,
    endAt: firstTokenAt + tpot * (tokens - 1),
    chunkTimes: Array.from({ length: tokens }, (_, i) => firstTokenAt + tpot * i),
    outputTokens: tokens,
    inputTokens: 48,
    usageReported: true,
    streamed: true,
    readInOneBurst: false,
    ok: true,
    ...(timings ? { serverTimings: timings } : {}),
    ...extra,
  }
}

const server = (promptMs: number, perTokenMs: number, n: number) => ({
  prompt_n: 48,
  prompt_ms: promptMs,
  predicted_n: n,
  predicted_ms: perTokenMs * (n - 1),
  predicted_per_token_ms: perTokenMs,
})

describe('compareLlamaTimings', () => {
  test('pairs each streamed, completed request with its timings, and computes differences and ratios', () => {
    const records = [
      record(0, 10, 2, 11, server(4, 1.6, 11)),
      record(1, 12, 2, 11, server(5, 2, 11)),
      record(2, 20, 3, 11, server(8, 2.5, 11)),
    ]
    const c = compareLlamaTimings(records)!
    expect(c.requests).toBe(3)
    expect(c.tokenCountsAgree).toBe(3)
    expect(c.pairs.map((p) => p.ttftOutsidePromptMs)).toEqual([6, 7, 12])
    expect(c.ttft.clientP50Ms).toBe(12)
    expect(c.ttft.serverPromptP50Ms).toBe(5)
    expect(c.ttft.outsidePromptP50Ms).toBe(7)
    // Linear interpolation between 7 and 12 at 0.9 of the way from the 2nd to the 3rd value.
    expect(c.ttft.outsidePromptP90Ms).toBeCloseTo(11, 10)
    expect(c.ttft.outsidePromptMinMs).toBe(6)
    expect(c.tpot.clientP50Ms).toBeCloseTo(2, 10)
    expect(c.tpot.serverP50Ms).toBe(2)
    // Ratios 2/1.6 = 1.25, 2/2 = 1, 3/2.5 = 1.2.
    expect(c.tpot.ratioP50).toBeCloseTo(1.2, 10)
    expect(c.tpot.ratioMin).toBeCloseTo(1, 10)
    expect(c.tpot.ratioMax).toBeCloseTo(1.25, 10)
    expect(c.decodeTokensPerSec.client).toBeCloseTo(500, 8)
    expect(c.decodeTokensPerSec.server).toBe(500)
  })

  test('leaves out failed, unstreamed and timing-less requests, and single-token requests from TPOT', () => {
    const records = [
      record(0, 10, 2, 11, server(4, 2, 11)),
      record(1, 10, 2, 11, server(4, 2, 11), { ok: false, error: { kind: 'stream-error', message: 'x' } }),
      record(2, 10, 0, 11, server(4, 2, 11), { streamed: false }),
      record(3, 10, 2, 11, undefined),
      record(4, 9, 0, 1, { prompt_ms: 3, predicted_n: 1, predicted_per_token_ms: 0 }),
      record(5, 10, 2, 11, server(4, 2, 12)),
    ]
    const pairs = llamaTimingPairs(records)
    expect(pairs.map((p) => p.index)).toEqual([0, 4, 5])
    expect(pairs[1]).toMatchObject({ clientTpotMs: undefined, serverTpotMs: undefined, ttftOutsidePromptMs: 6 })
    const c = compareLlamaTimings(records)!
    expect(c.requests).toBe(3)
    // Request 5: the client counted 11 tokens, the server 12.
    expect(c.tokenCountsAgree).toBe(2)
    expect(c.tpot.ratioP50).toBe(1)
  })

  test('undefined when no request carried timings (a server other than llama.cpp)', () => {
    expect(compareLlamaTimings([record(0, 10, 2, 5, undefined)])).toBeUndefined()
    expect(compareLlamaTimings([])).toBeUndefined()
  })
})
