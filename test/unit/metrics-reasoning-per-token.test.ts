/**
 * TTFO, reasoning tokens and per-token ITL from hand-computed records (the definitions:
 * src/core/metrics/request-latency.ts; README "Metric definitions").
 */
import { describe, expect, test } from 'vitest'
import { MetricsAccumulator } from '../../src/core/metrics/index.ts'
import { forEachPerTokenInterTokenLatencyMs, timeToFirstOutputMs } from '../../src/core/metrics/request-latency.ts'
import { mergeTrials } from '../../src/core/trials/merge-trials.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { okRecord, threeRecords } from '../helpers/metrics-fixtures.ts'

/**
 * A reasoning request: sent at 1000, reasoning events at 1100 and 1140, answer events at 1190,
 * 1200 and 1230 (chunk tokens 1, 3, 2, 1, 2 with continuous usage: 9 tokens, 4 reasoning).
 *   TTFT 100, TTFO 190; per-chunk ITL 40, 50, 10, 30;
 *   per-token ITL: 40/3 x3, 50/2 x2, 10/1, 30/2 x2 = 13.33, 13.33, 13.33, 25, 25, 10, 15, 15 (8 values,
 *   sum 130 = 1230 - 1100).
 */
function reasoningRecord(index = 0): RequestRecord {
  return okRecord({
    index,
    sentAt: 1000,
    firstTokenAt: 1100,
    firstOutputAt: 1190,
    chunkTimes: [1100, 1140, 1190, 1200, 1230],
    chunkTokens: [1, 3, 2, 1, 2],
    endAt: 1230,
    outputTokens: 9,
    reasoningTokens: 4,
    reasoningChunks: 2,
    inputTokens: 5,
  })
}

function perTokenValues(record: RequestRecord): number[] {
  const values: number[] = []
  forEachPerTokenInterTokenLatencyMs(record, (ms, tokens) => {
    for (let i = 0; i < tokens; i++) values.push(ms)
  })
  return values
}

describe('definitions', () => {
  test('TTFO = firstOutputAt - sentAt; undefined without an answer event', () => {
    expect(timeToFirstOutputMs(reasoningRecord())).toBe(190)
    expect(timeToFirstOutputMs(okRecord({ sentAt: 0, endAt: 5, firstTokenAt: 3, chunkTimes: [3] }))).toBeUndefined()
  })

  test('per-token ITL: each gap divided evenly among the tokens of the later chunk; the first chunk gives none', () => {
    const values = perTokenValues(reasoningRecord())
    const third = 40 / 3
    expect(values).toEqual([third, third, third, 25, 25, 10, 15, 15])
    expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(130, 9)
  })

  test('a chunk of 0 tokens gives nothing; its wait goes to the next token', () => {
    const record = okRecord({
      sentAt: 0,
      endAt: 40,
      firstTokenAt: 10,
      chunkTimes: [10, 20, 40],
      chunkTokens: [1, 0, 2],
      outputTokens: 3,
    })
    expect(perTokenValues(record)).toEqual([15, 15])
  })

  test('nothing without exact tokens per chunk, or when they do not line up with the chunks', () => {
    expect(
      perTokenValues(okRecord({ sentAt: 0, endAt: 20, firstTokenAt: 10, chunkTimes: [10, 20], outputTokens: 4 })),
    ).toEqual([])
    expect(
      perTokenValues(
        okRecord({ sentAt: 0, endAt: 20, firstTokenAt: 10, chunkTimes: [10, 20], chunkTokens: [2], outputTokens: 4 }),
      ),
    ).toEqual([])
  })
})

describe('MetricsAccumulator: reasoning and per-token timing', () => {
  test('a reasoning request: TTFO, reasoning tokens and per-token ITL beside TTFT and per-chunk ITL', () => {
    const metrics = new MetricsAccumulator()
    metrics.add(reasoningRecord())
    const outcome = metrics.finish({ durationMs: 1000 })
    const m = outcome.metrics
    expect(m.ttftMs.mean).toBe(100)
    expect(m.ttfoMs?.count).toBe(1)
    expect(m.ttfoMs?.mean).toBe(190)
    expect(m.reasoningTokens).toMatchObject({ count: 1, mean: 4, min: 4, max: 4 })
    expect(m.itlMs).toMatchObject({ count: 4, min: 10, max: 50, mean: 32.5 })
    expect(m.itlPerTokenMs).toMatchObject({ count: 8, min: 10, max: 25 })
    expect(m.itlPerTokenMs?.mean).toBeCloseTo(130 / 8, 9)
    // hdr keeps 3 significant digits of microseconds: 13333 µs.
    expect(m.itlPerTokenMs?.p50).toBeCloseTo(40 / 3, 2)
    expect(outcome.histograms.ttfoUs).toBeDefined()
    expect(outcome.histograms.itlPerTokenUs).toBeDefined()
    // Exact multi-token chunk count (chunks of 3 and 2 tokens, twice), not the surplus estimate (9 - 5 = 4).
    expect(outcome.streaming.multiTokenChunks).toBe(3)
    expect(outcome.streaming.note).toContain('counted from per-chunk usage')
  })

  test('without reasoning or per-chunk usage, the three are absent', () => {
    const metrics = new MetricsAccumulator()
    for (const record of threeRecords()) metrics.add(record)
    const outcome = metrics.finish({ durationMs: 1000 })
    expect(outcome.metrics.ttfoMs).toBeUndefined()
    expect(outcome.metrics.itlPerTokenMs).toBeUndefined()
    expect(outcome.metrics.reasoningTokens).toBeUndefined()
    expect(outcome.histograms.ttfoUs).toBeUndefined()
    expect(outcome.histograms.itlPerTokenUs).toBeUndefined()
    expect(Object.keys(outcome.metrics)).toEqual(['ttftMs', 'tpotMs', 'itlMs', 'e2eMs', 'outputTokens', 'inputTokens'])
  })

  test('multi-token chunks without per-chunk usage: the note says per-token ITL is estimated, and how', () => {
    const metrics = new MetricsAccumulator()
    metrics.add(
      okRecord({
        sentAt: 0,
        firstTokenAt: 10,
        firstOutputAt: 10,
        chunkTimes: [10, 30, 50],
        endAt: 50,
        outputTokens: 6,
      }),
    )
    const outcome = metrics.finish({ durationMs: 1000 })
    expect(outcome.metrics.itlPerTokenMs).toBeUndefined()
    expect(outcome.streaming.meanTokensPerChunk).toBe(2)
    expect(outcome.streaming.note).toContain('per-token ITL is not measured')
    expect(outcome.streaming.note).toContain('ITL / 2.00 estimates it')
  })

  test('a reply that was all reasoning has a TTFT but no TTFO, and the note says so', () => {
    const metrics = new MetricsAccumulator()
    metrics.add(reasoningRecord(0))
    metrics.add(
      okRecord({
        index: 1,
        sentAt: 0,
        firstTokenAt: 50,
        chunkTimes: [50, 60],
        endAt: 60,
        outputTokens: 2,
        reasoningTokens: 2,
        reasoningChunks: 2,
      }),
    )
    const outcome = metrics.finish({ durationMs: 1000 })
    expect(outcome.metrics.ttftMs.count).toBe(2)
    expect(outcome.metrics.ttfoMs?.count).toBe(1)
    expect(outcome.metrics.reasoningTokens).toMatchObject({ count: 2, min: 2, max: 4, mean: 3 })
    expect(outcome.streaming.note).toContain('1 of 2 streamed replies were reasoning only')
  })

  test('a server that did not stream reports no TTFO or per-token ITL (as TTFT and ITL)', () => {
    const metrics = new MetricsAccumulator()
    metrics.add(reasoningRecord())
    const outcome = metrics.finish({ durationMs: 1000, serverBuffers: true })
    expect(outcome.metrics.ttfoMs).toBeUndefined()
    expect(outcome.metrics.itlPerTokenMs).toBeUndefined()
    expect(outcome.metrics.reasoningTokens?.count).toBe(1)
  })

  test('workers: snapshots and merges keep the new distributions and counters', () => {
    const a = new MetricsAccumulator()
    const b = new MetricsAccumulator()
    a.add(reasoningRecord(0))
    b.add(reasoningRecord(1))
    const merged = MetricsAccumulator.fromJSON(JSON.parse(JSON.stringify(a.toJSON())))
    merged.merge(MetricsAccumulator.fromJSON(b.toJSON()))
    const m = merged.finish({ durationMs: 1000 }).metrics
    expect(m.ttfoMs?.count).toBe(2)
    expect(m.itlPerTokenMs?.count).toBe(16)
    expect(m.reasoningTokens?.count).toBe(2)
  })

  test('mergeTrials pools TTFO and per-token ITL over the trials that have them', () => {
    const trial = (records: RequestRecord[]): BenchmarkResult => {
      const metrics = new MetricsAccumulator()
      for (const record of records) metrics.add(record)
      const outcome = metrics.finish({ durationMs: 1000 })
      return {
        schemaVersion: 2,
        startedAt: '',
        durationMs: 1000,
        ...outcome,
        client: { keptUp: true, warnings: [] },
        workload: {},
        environment: {},
        config: {},
      } as unknown as BenchmarkResult
    }
    const plain = trial(threeRecords())
    const merged = mergeTrials([trial([reasoningRecord(0)]), plain, trial([{ ...reasoningRecord(1), sentAt: 900 }])])
    expect(merged.metrics.ttfoMs).toMatchObject({ count: 2, min: 190, max: 290, mean: 240 })
    expect(merged.metrics.itlPerTokenMs?.count).toBe(16)
    expect(merged.metrics.reasoningTokens?.count).toBe(2)
    expect(merged.histograms.ttfoUs).toBeDefined()
    expect(mergeTrials([plain, plain]).metrics.ttfoMs).toBeUndefined()
  })
})
