import { describe, expect, it } from 'vitest'
import { TimelineAccumulator } from '../../src/core/metrics/index.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'

function record(sentAt: number, chunkTimes: number[], outputTokens: number, ok = true): RequestRecord {
  return {
    index: 0,
    plannedAt: undefined,
    sentAt,
    headersAt: sentAt,
    firstTokenAt: chunkTimes[0],
    endAt: chunkTimes.at(-1) ?? sentAt + 1,
    chunkTimes,
    outputTokens,
    inputTokens: 10,
    usageReported: true,
    streamed: true,
    readInOneBurst: false,
    ok,
  }
}

describe('TimelineAccumulator', () => {
  it('spreads output tokens over the windows of their chunks and counts a request where it ended', () => {
    const t = new TimelineAccumulator(1000, 1000)
    t.dispatched(1000)
    t.dispatched(1500)
    // 4 tokens in 2 chunks: 2 tokens land in window 0, 2 in window 1.
    t.finished(record(1000, [1200, 2100], 4))
    // 3 tokens in 3 chunks, all in window 2; it ends there.
    t.finished(record(1500, [2900 + 100, 3100, 3500], 3))
    const timeline = t.finish()
    expect(timeline.windowMs).toBe(1000)
    expect(timeline.outputTokens).toEqual([2, 2, 3])
    expect(timeline.requests).toEqual([0, 1, 1])
    expect(timeline.totalTokens).toEqual([2, 2 + 10, 3 + 10])
    expect(timeline.inFlightMax).toEqual([2, 2, 1])
    // The last completion was at 3500: window 2 covers 3000..4000, so it is partial.
    expect(timeline.lastWindowPartial).toBe(true)
  })

  it('counts failed requests in flight but not in throughput', () => {
    const t = new TimelineAccumulator(0, 100)
    t.dispatched(0)
    t.finished(record(0, [50], 1, false))
    const timeline = t.finish()
    expect(timeline.requests).toEqual([0])
    expect(timeline.outputTokens).toEqual([0])
    expect(timeline.inFlightMax).toEqual([1])
  })

  it('puts a non-streamed response (no chunk times) whole into the window where it ended', () => {
    const t = new TimelineAccumulator(0, 100)
    t.dispatched(0)
    t.finished({ ...record(0, [], 7), endAt: 250 })
    expect(t.finish().outputTokens).toEqual([0, 0, 7])
  })
})
