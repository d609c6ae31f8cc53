import { describe, expect, test } from 'vitest'
import { MetricsDataError, OptionsError } from '../../src/core/contract/errors.ts'
import { validateOptions } from '../../src/core/plan/index.ts'
import {
  MetricsAccumulator,
  costPerMillionOutputTokens,
  decodeHistogram,
  summarizeHistogram,
} from '../../src/core/metrics/index.ts'
import { validateCostOptions } from '../../src/core/metrics/cost.ts'
import type { MetricsOutcome } from '../../src/core/metrics/index.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { failedRecord, okRecord, randomRecord, seededRandom, threeRecords } from '../helpers/metrics-fixtures.ts'

/** Equal to 3 significant digits (relative error below 0.1 %). */
function expectSig3(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.abs(expected) * 1e-3)
}

function finishAll(
  records: RequestRecord[],
  durationMs = 4000,
  options?: ConstructorParameters<typeof MetricsAccumulator>[0],
): MetricsOutcome {
  const accumulator = new MetricsAccumulator(options)
  for (const record of records) accumulator.add(record)
  return accumulator.finish({ durationMs })
}

describe('MetricsAccumulator: hand-computed fixture (3 completed + 1 failed, 4000 ms)', () => {
  const outcome = finishAll([...threeRecords(), failedRecord(3, 'http', 'HTTP 500: boom')])
  const { metrics } = outcome

  test('counts completed and failed requests', () => {
    expect(outcome.counts).toEqual({ total: 4, completed: 3, failed: 1 })
    expect(outcome.errors).toEqual([{ kind: 'http', message: 'HTTP 500: boom', count: 1 }])
  })

  test('TTFT = firstTokenAt - sentAt: 100, 50, 300 ms', () => {
    expect(metrics.ttftMs.count).toBe(3)
    expect(metrics.ttftMs.min).toBe(50)
    expect(metrics.ttftMs.max).toBe(300)
    expect(metrics.ttftMs.mean).toBeCloseTo(150, 9)
    // Population stddev: sqrt((50^2 + 100^2 + 150^2) / 3)
    expect(metrics.ttftMs.stddev).toBeCloseTo(Math.sqrt(35000 / 3), 9)
    expectSig3(metrics.ttftMs.p50, 100)
    expect(metrics.ttftMs.p99).toBe(300)
  })

  test('E2E = endAt - sentAt: 200, 70, 300 ms; the failed request (995999 ms) is left out', () => {
    expect(metrics.e2eMs.count).toBe(3)
    expect(metrics.e2eMs.min).toBe(70)
    expect(metrics.e2eMs.max).toBe(300)
    expect(metrics.e2eMs.mean).toBeCloseTo(190, 9)
    expectSig3(metrics.e2eMs.p50, 200)
  })

  test('TPOT = (E2E - TTFT) / (tokens - 1): 33.33 and 10 ms; the single-token request has none', () => {
    expect(metrics.tpotMs.count).toBe(2)
    expect(metrics.tpotMs.min).toBeCloseTo(10, 9)
    expect(metrics.tpotMs.max).toBeCloseTo(100 / 3, 9)
    expect(metrics.tpotMs.mean).toBeCloseTo((100 / 3 + 10) / 2, 9)
    expectSig3(metrics.tpotMs.p50, 10)
  })

  test('ITL = gaps between chunks: 20, 30, 50, 10, 10 ms', () => {
    expect(metrics.itlMs.count).toBe(5)
    expect(metrics.itlMs.min).toBeCloseTo(10, 9)
    expect(metrics.itlMs.max).toBeCloseTo(50, 9)
    expect(metrics.itlMs.mean).toBeCloseTo(24, 9)
    expectSig3(metrics.itlMs.p50, 20)
    expectSig3(metrics.itlMs.p90, 50)
  })

  test('token distributions count tokens of completed requests', () => {
    expect(metrics.outputTokens).toMatchObject({ count: 3, min: 1, max: 4 })
    expect(metrics.outputTokens.mean).toBeCloseTo(8 / 3, 9)
    expect(metrics.inputTokens).toMatchObject({ count: 3, min: 10, max: 30, mean: 20, p50: 20 })
  })

  test('throughputs divide completed totals by the duration', () => {
    expectSig3(outcome.throughput.requestsPerSec, 0.75)
    expectSig3(outcome.throughput.outputTokensPerSec, 2)
    expectSig3(outcome.throughput.totalTokensPerSec, 17)
  })

  test('streaming info and histograms for a well-behaved stream', () => {
    expect(outcome.streaming).toEqual({
      streamed: true,
      evidence: 'none',
      nonSseRequests: 0,
      burstRequests: 0,
      tokenCountEstimated: false,
      multiTokenChunks: 0, // 4 tokens in 4 chunks, 3 in 3, 1 in 1
      meanTokensPerChunk: 1,
    })
    expect(outcome.warnings).toEqual([])
    expect(Object.keys(outcome.histograms).sort()).toEqual(['e2eUs', 'itlUs', 'tpotUs', 'ttftUs'])
    const itl = decodeHistogram(outcome.histograms.itlUs as string)
    expect(itl.totalCount).toBe(5)
    expectSig3(summarizeHistogram(itl, 1000).max, 50)
  })

  test('no requests are returned without recordRequests', () => {
    expect(outcome.requests).toBeUndefined()
  })
})

describe('MetricsAccumulator: failed requests', () => {
  test('a failed request reaches no distribution, token total or throughput', () => {
    const withFailures = finishAll([
      ...threeRecords(),
      failedRecord(3, 'timeout', 't'),
      failedRecord(4, 'network', 'n'),
    ])
    const without = finishAll(threeRecords())
    expect(withFailures.metrics).toEqual(without.metrics)
    expect(withFailures.throughput).toEqual(without.throughput)
    expect(withFailures.histograms).toEqual(without.histograms)
    expect(withFailures.counts).toEqual({ total: 5, completed: 3, failed: 2 })
  })

  test('errors are grouped by kind and message, sorted by count', () => {
    const records = [
      failedRecord(0, 'http', 'HTTP 503'),
      failedRecord(1, 'timeout', 'no response in 600000 ms'),
      failedRecord(2, 'http', 'HTTP 503'),
      failedRecord(3, 'stream-error', 'HTTP 503'),
      failedRecord(4, 'http', 'HTTP 503'),
      { ...failedRecord(5, 'http', ''), error: undefined },
    ]
    expect(finishAll(records).errors).toEqual([
      { kind: 'http', message: 'HTTP 503', count: 3 },
      { kind: 'incomplete', message: 'request failed without an error description', count: 1 },
      { kind: 'stream-error', message: 'HTTP 503', count: 1 },
      { kind: 'timeout', message: 'no response in 600000 ms', count: 1 },
    ])
  })

  test('distinct messages are capped at 50; the rest go to a per-kind "other" row', () => {
    const records = Array.from({ length: 60 }, (_, i) => failedRecord(i, 'http', `HTTP 500: request ${i}`))
    records.push(failedRecord(60, 'http', 'HTTP 500: request 0'))
    const outcome = finishAll(records)
    expect(outcome.errors).toHaveLength(51)
    expect(outcome.errors[0]).toEqual({ kind: 'http', message: '(other messages)', count: 10 })
    expect(outcome.errors[1]).toEqual({ kind: 'http', message: 'HTTP 500: request 0', count: 2 })
    expect(outcome.errors.reduce((sum, row) => sum + row.count, 0)).toBe(61)
    expect(outcome.warnings.some((w) => w.includes('distinct error messages'))).toBe(true)
  })

  test('all failed: zero counts everywhere, no NaN, a warning', () => {
    const outcome = finishAll([failedRecord(0, 'network', 'ECONNREFUSED')])
    expect(outcome.metrics.ttftMs).toEqual({
      count: 0,
      min: 0,
      max: 0,
      mean: 0,
      stddev: 0,
      p50: 0,
      p90: 0,
      p95: 0,
      p99: 0,
      p999: 0,
    })
    expect(outcome.throughput).toEqual({ requestsPerSec: 0, outputTokensPerSec: 0, totalTokensPerSec: 0 })
    expect(outcome.histograms).toEqual({})
    expect(JSON.stringify(outcome)).not.toContain('null')
    expect(outcome.warnings).toContain('All 1 measured requests failed; see errors.')
  })
})

describe('MetricsAccumulator: streaming quality', () => {
  test('multi-token chunks: surplus tokens over chunks are counted and averaged', () => {
    const outcome = finishAll([
      // 10 tokens in 4 chunks: surplus 6 -> 4 chunks carried more than one token
      okRecord({ sentAt: 0, firstTokenAt: 10, chunkTimes: [10, 20, 30, 40], endAt: 40, outputTokens: 10 }),
      // 5 tokens in 4 chunks: surplus 1 -> 1 chunk
      okRecord({ sentAt: 0, firstTokenAt: 10, chunkTimes: [10, 20, 30, 40], endAt: 40, outputTokens: 5 }),
      // no usage: token count is the chunk count, says nothing about tokens per chunk
      okRecord({ sentAt: 0, firstTokenAt: 10, chunkTimes: [10, 20], endAt: 20, outputTokens: 2, usageReported: false }),
    ])
    expect(outcome.streaming.multiTokenChunks).toBe(5)
    expect(outcome.streaming.meanTokensPerChunk).toBeCloseTo(15 / 8, 12)
    expect(outcome.streaming.note).toContain('ITL is per chunk, TPOT per token')
    // ITL stays per chunk: 3 + 3 + 1 gaps; TPOT per token: 30/9, 30/4, 10/1
    expect(outcome.metrics.itlMs.count).toBe(7)
    expect(outcome.metrics.tpotMs.min).toBeCloseTo(30 / 9, 9)
    expect(outcome.metrics.tpotMs.max).toBeCloseTo(10, 9)
  })

  test('missing usage flags estimated token counts with a warning', () => {
    const records = threeRecords()
    records[1] = { ...(records[1] as RequestRecord), usageReported: false }
    const outcome = finishAll(records)
    expect(outcome.streaming.tokenCountEstimated).toBe(true)
    expect(outcome.warnings.some((w) => w.startsWith('1 of 3 completed requests reported no usage'))).toBe(true)
  })

  test('a non-streamed minority is left out of TTFT/TPOT/ITL but counts in E2E and throughput', () => {
    const nonSse = okRecord({
      index: 3,
      sentAt: 5000,
      firstTokenAt: 5400,
      endAt: 5400,
      outputTokens: 4,
      inputTokens: 40,
      streamed: false,
    })
    const outcome = finishAll([...threeRecords(), nonSse])
    expect(outcome.streaming).toMatchObject({ streamed: true, nonSseRequests: 1, burstRequests: 0 })
    expect(outcome.streaming.note).toContain(
      '1 of 4 responses were not text/event-stream and are left out of TTFT, TPOT and ITL',
    )
    expect(outcome.metrics.ttftMs.count).toBe(3)
    expect(outcome.metrics.ttftMs.max).toBe(300)
    expect(outcome.metrics.tpotMs.count).toBe(2)
    expect(outcome.metrics.itlMs.count).toBe(5)
    expect(outcome.metrics.e2eMs.count).toBe(4)
    expect(outcome.metrics.e2eMs.max).toBe(400)
    expectSig3(outcome.throughput.outputTokensPerSec, 12 / 4)
    expect(outcome.histograms.ttftUs).toBeDefined()
  })

  test('when most responses were not streamed, TTFT, TPOT and ITL are empty and say why', () => {
    const [streamedRecord] = threeRecords()
    const nonSse = okRecord({ index: 1, sentAt: 0, firstTokenAt: 90, endAt: 90, outputTokens: 3, streamed: false })
    const nonSse2 = okRecord({ index: 2, sentAt: 0, firstTokenAt: 80, endAt: 80, outputTokens: 3, streamed: false })
    const outcome = finishAll([streamedRecord as RequestRecord, nonSse, nonSse2])
    expect(outcome.streaming).toMatchObject({
      streamed: false,
      evidence: 'content-type',
      nonSseRequests: 2,
      burstRequests: 0,
    })
    expect(outcome.streaming.note).toContain('server did not stream (2 of 3 responses were not text/event-stream)')
    expect(outcome.metrics.ttftMs.count).toBe(0)
    expect(outcome.metrics.tpotMs.count).toBe(0)
    expect(outcome.metrics.itlMs.count).toBe(0)
    expect(outcome.metrics.e2eMs.count).toBe(3)
    expect(Object.keys(outcome.histograms)).toEqual(['e2eUs'])
    expect(outcome.warnings.some((w) => w.includes('TTFT, TPOT and ITL are not reported'))).toBe(true)
  })

  test('a stream read in one burst (a late client) counts in TTFT, TPOT and ITL, and is counted apart', () => {
    const [a, b] = threeRecords()
    const late = okRecord({
      index: 2,
      sentAt: 0,
      firstTokenAt: 80,
      chunkTimes: [80, 80, 80],
      endAt: 80,
      outputTokens: 3,
      readInOneBurst: true,
    })
    const outcome = finishAll([a as RequestRecord, b as RequestRecord, late])
    expect(outcome.streaming).toMatchObject({ streamed: true, nonSseRequests: 0, burstRequests: 1 })
    expect(outcome.metrics.ttftMs.count).toBe(3)
    expect(outcome.metrics.ttftMs.p50).toBeCloseTo(80, 0) // TTFTs 100, 50 and the late one's 80
    expect(outcome.metrics.tpotMs.count).toBe(3)
    expect(outcome.streaming.note).toContain('1 of 3 streamed responses reached the client in one read')
  })

  test('a server the idle probe saw buffering reports no TTFT, TPOT or ITL, with the probe as evidence', () => {
    const accumulator = new MetricsAccumulator()
    for (const record of threeRecords()) accumulator.add(record)
    const buffered = accumulator.finish({ durationMs: 4000, serverBuffers: true })
    expect(buffered.streaming).toMatchObject({ streamed: false, evidence: 'probe' })
    expect(buffered.metrics.ttftMs.count).toBe(0)
    expect(buffered.metrics.e2eMs.count).toBe(3)
    expect(buffered.streaming.note).toContain('idle streaming probe')
    const streams = accumulator.finish({ durationMs: 4000, serverBuffers: false })
    expect(streams.streaming).toMatchObject({ streamed: true, evidence: 'probe' })
    expect(streams.metrics.ttftMs.count).toBe(3)
  })

  test('client lateness: requests above the threshold are counted, with p99 and max', () => {
    const records = threeRecords().map((r, i) => ({ ...r, clientLateMs: [0.5, 2, 40][i] as number }))
    const outcome = finishAll(records)
    expect(outcome.lateness).toMatchObject({ watchedRequests: 3, lateRequests: 1, thresholdMs: 5 })
    expect(outcome.lateness?.share).toBeCloseTo(1 / 3, 6)
    expect(outcome.lateness?.maxMs).toBeCloseTo(40, 1)
    expect(finishAll(threeRecords()).lateness).toBeUndefined()
  })

  test('exactly half not streamed still reports streamed metrics', () => {
    const [a, b] = threeRecords()
    const nonSse = okRecord({ sentAt: 0, endAt: 90, outputTokens: 3, streamed: false })
    const outcome = finishAll([a as RequestRecord, b as RequestRecord, nonSse, { ...nonSse }])
    expect(outcome.streaming.streamed).toBe(true)
    expect(outcome.metrics.ttftMs.count).toBe(2)
  })

  test('negative intervals are clamped to 0 and non-finite ones left out, with warnings', () => {
    const outcome = finishAll([
      okRecord({ sentAt: 100, firstTokenAt: 90, chunkTimes: [90], endAt: 90, outputTokens: 1 }),
      okRecord({ sentAt: 100, firstTokenAt: Number.NaN, chunkTimes: [], endAt: 150, outputTokens: 0 }),
    ])
    expect(outcome.metrics.ttftMs).toMatchObject({ count: 1, min: 0, max: 0 })
    expect(outcome.metrics.e2eMs).toMatchObject({ count: 2, min: 0, max: 50 })
    expect(outcome.warnings).toContain(
      '2 latency or token values were negative (a clock or client bug) and were counted as 0.',
    )
    expect(outcome.warnings).toContain(
      '1 latency or token values were not finite (a clock or client bug) and were left out.',
    )
  })
})

describe('MetricsAccumulator: goodput (vLLM --goodput rules)', () => {
  // r0: TTFT 100, TPOT 33.3, E2E 200; r1: TTFT 50, TPOT 10, E2E 70; r2: TTFT 300, 1 token, E2E 300
  function goodput(limits: ConstructorParameters<typeof MetricsAccumulator>[0]) {
    return finishAll(threeRecords(), 4000, limits).goodput
  }

  test('a request is good when it meets every limit; limits are inclusive', () => {
    expect(goodput({ goodput: { ttftMs: 100, tpotMs: 20 } })).toEqual({
      limits: { ttftMs: 100, tpotMs: 20 },
      goodRequests: 1,
      share: 1 / 3,
      requestsPerSec: 0.25,
    })
    expect(goodput({ goodput: { e2eMs: 200 } })?.goodRequests).toBe(2)
  })

  test('a single-token request meets a TPOT limit (TPOT 0, as vLLM)', () => {
    expect(goodput({ goodput: { tpotMs: 20 } })?.goodRequests).toBe(2)
  })

  test('a non-streamed request is judged with TTFT = E2E', () => {
    const nonSse = okRecord({ sentAt: 0, endAt: 90, outputTokens: 3, streamed: false })
    expect(finishAll([nonSse], 1000, { goodput: { ttftMs: 89 } }).goodput?.goodRequests).toBe(0)
    expect(finishAll([nonSse], 1000, { goodput: { ttftMs: 90 } }).goodput?.goodRequests).toBe(1)
  })

  test('failed requests are never good and not part of the share', () => {
    const outcome = finishAll([...threeRecords(), failedRecord(3, 'http', 'x')], 4000, { goodput: { e2eMs: 1e9 } })
    expect(outcome.goodput).toMatchObject({ goodRequests: 3, share: 1 })
  })

  test('no goodput without limits; invalid limits are rejected when the options are planned', () => {
    expect(goodput(undefined)).toBeUndefined()
    const base = {
      target: { baseUrl: 'http://127.0.0.1:1' },
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
      load: { concurrency: 1, requests: 1 },
    } as const
    expect(() => validateOptions({ ...base, goodput: { ttftMs: -1 } })).toThrow(OptionsError)
    expect(() => validateOptions({ ...base, goodput: {} })).toThrow(OptionsError)
  })
})

describe('cost', () => {
  test('$2 per GPU-hour, 2 GPUs, 1000 tokens/s: $1.111 per million output tokens', () => {
    const cost = costPerMillionOutputTokens(1000, { pricePerGpuHour: 2, gpus: 2 })
    expect(cost.gpus).toBe(2)
    expect(cost.pricePerGpuHour).toBe(2)
    expectSig3(cost.perMillionOutputTokens, 1.111)
    expect(cost.perMillionOutputTokens).toBeCloseTo(10 / 9, 12)
  })

  test('gpus defaults to 1; bad prices are rejected', () => {
    expect(costPerMillionOutputTokens(500, { pricePerGpuHour: 3.6 }).perMillionOutputTokens).toBeCloseTo(2, 12)
    expect(() => validateCostOptions({ pricePerGpuHour: Number.NaN })).toThrow(OptionsError)
    expect(() => validateCostOptions({ pricePerGpuHour: 1, gpus: 0 })).toThrow(OptionsError)
    // One rule, applied when the options are planned: a price of 0 is refused before a run.
    expect(() => validateCostOptions({ pricePerGpuHour: 0 })).toThrow(/cost.pricePerGpuHour.*positive/)
    expect(() =>
      validateOptions({
        target: { baseUrl: 'http://127.0.0.1:1' },
        workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
        load: { concurrency: 1, requests: 1 },
        cost: { pricePerGpuHour: 0 },
      }),
    ).toThrow(/cost.pricePerGpuHour.*positive/)
  })

  test('finish applies the cost to the measured output throughput (2 tokens/s)', () => {
    const accumulator = new MetricsAccumulator()
    for (const record of threeRecords()) accumulator.add(record)
    const outcome = accumulator.finish({ durationMs: 4000, cost: { pricePerGpuHour: 7.2 } })
    // 7.2 / (2 * 3600) * 1e6 = 1000
    expect(outcome.cost?.perMillionOutputTokens).toBeCloseTo(1000, 9)
    const none = new MetricsAccumulator().finish({ durationMs: 1000, cost: { pricePerGpuHour: 1 } })
    expect(none.cost).toBeUndefined()
    expect(none.warnings).toContain('Cost is not reported: no output tokens per second were measured.')
  })
})

describe('MetricsAccumulator: percentiles', () => {
  test('1..1000 ms uniform: every percentile within 0.1 % of numpy linear interpolation', () => {
    const accumulator = new MetricsAccumulator()
    for (let i = 1; i <= 1000; i++)
      accumulator.add(okRecord({ index: i, sentAt: 0, firstTokenAt: i, chunkTimes: [i], endAt: i, outputTokens: 1 }))
    const ttft = accumulator.finish({ durationMs: 1000 }).metrics.ttftMs
    const numpy = (q: number) => 1 + (q / 100) * 999 // np.percentile(range(1, 1001), q)
    for (const [key, q] of [
      ['p50', 50],
      ['p90', 90],
      ['p95', 95],
      ['p99', 99],
      ['p999', 99.9],
    ] as const) {
      expect(Math.abs(ttft[key] - numpy(q)) / numpy(q)).toBeLessThan(1e-3)
    }
    expect(ttft.mean).toBeCloseTo(500.5, 9)
    expect(ttft.stddev).toBeCloseTo(Math.sqrt((1000 * 1000 - 1) / 12), 6)
    expect(ttft.min).toBe(1)
    expect(ttft.max).toBe(1000)
  })

  test('percentiles never leave [min, max]', () => {
    const accumulator = new MetricsAccumulator()
    accumulator.add(
      okRecord({ sentAt: 0, firstTokenAt: 123.456, chunkTimes: [123.456], endAt: 123.456, outputTokens: 1 }),
    )
    const ttft = accumulator.finish({ durationMs: 1000 }).metrics.ttftMs
    expect([ttft.p50, ttft.p99, ttft.p999]).toEqual([123.456, 123.456, 123.456])
  })

  test('a latency above the initial one-hour range is recorded, not clamped or thrown', () => {
    const twoHours = 7_200_000
    const outcome = finishAll([okRecord({ sentAt: 0, endAt: twoHours, outputTokens: 0 })])
    expect(outcome.metrics.e2eMs.max).toBe(twoHours)
    expectSig3(outcome.metrics.e2eMs.p99, twoHours)
  })
})

describe('MetricsAccumulator: merge and snapshots', () => {
  function randomRecords(count: number): RequestRecord[] {
    const random = seededRandom(42)
    const records = Array.from({ length: count }, (_, i) => randomRecord(random, i, 2 + (i % 9)))
    records[7] = failedRecord(7, 'timeout', 'no response')
    records[11] = { ...(records[11] as RequestRecord), streamed: false }
    return records
  }

  function expectSameOutcome(actual: MetricsOutcome, expected: MetricsOutcome): void {
    expect(actual.counts).toEqual(expected.counts)
    expect(actual.errors).toEqual(expected.errors)
    expect(actual.streaming).toEqual(expected.streaming)
    expect(actual.histograms).toEqual(expected.histograms)
    expect(actual.goodput?.goodRequests).toBe(expected.goodput?.goodRequests)
    for (const [name, summary] of Object.entries(expected.metrics)) {
      const other = actual.metrics[name as keyof MetricsOutcome['metrics']]
      expect(other, name).toBeDefined()
      if (other === undefined) continue
      for (const [field, value] of Object.entries(summary)) {
        expect(other[field as keyof typeof other], `${name}.${field}`).toBeCloseTo(value as number, 6)
      }
    }
    for (const [field, value] of Object.entries(expected.throughput)) {
      expect(actual.throughput[field as keyof MetricsOutcome['throughput']]).toBeCloseTo(value, 9)
    }
  }

  test('merging two accumulators equals one accumulator fed every record', () => {
    const records = randomRecords(500)
    const options = { goodput: { ttftMs: 300, tpotMs: 30 } }
    const whole = new MetricsAccumulator(options)
    const left = new MetricsAccumulator(options)
    const right = new MetricsAccumulator(options)
    records.forEach((record, i) => {
      whole.add(record)
      ;(i % 3 === 0 ? left : right).add(record)
    })
    left.merge(right)
    const merged = left.finish({ durationMs: 5000 })
    const expected = whole.finish({ durationMs: 5000 })
    expectSameOutcome(merged, expected)
    // Percentiles come from histograms that add exactly: identical, not merely close.
    expect(merged.metrics.itlMs.p99).toBe(expected.metrics.itlMs.p99)
    expect(merged.metrics.ttftMs.p50).toBe(expected.metrics.ttftMs.p50)
  })

  test('merging keeps every recorded request, sorted by index', () => {
    const left = new MetricsAccumulator({ recordRequests: true })
    const right = new MetricsAccumulator({ recordRequests: true })
    const [a, b, c] = threeRecords() as [RequestRecord, RequestRecord, RequestRecord]
    right.add(b)
    left.add(c)
    left.add(a)
    left.merge(right)
    expect(left.finish({ durationMs: 1 }).requests?.map((r) => r.index)).toEqual([0, 1, 2])
  })

  test('merging accumulators with different options is refused', () => {
    const plain = new MetricsAccumulator()
    expect(() => plain.merge(new MetricsAccumulator({ recordRequests: true }))).toThrow(MetricsDataError)
    expect(() => plain.merge(new MetricsAccumulator({ goodput: { e2eMs: 1 } }))).toThrow(MetricsDataError)
  })

  test('toJSON / fromJSON round-trips through JSON text', () => {
    const accumulator = new MetricsAccumulator({ goodput: { e2eMs: 400 } })
    for (const record of randomRecords(300)) accumulator.add(record)
    const restored = MetricsAccumulator.fromJSON(JSON.parse(JSON.stringify(accumulator.toJSON())))
    expectSameOutcome(restored.finish({ durationMs: 3000 }), accumulator.finish({ durationMs: 3000 }))
    expect(restored.toJSON()).toEqual(accumulator.toJSON())
  })

  test('an empty accumulator round-trips and merges as a no-op', () => {
    const empty = MetricsAccumulator.fromJSON(JSON.parse(JSON.stringify(new MetricsAccumulator().toJSON())))
    const accumulator = new MetricsAccumulator()
    for (const record of threeRecords()) accumulator.add(record)
    const before = accumulator.finish({ durationMs: 4000 })
    accumulator.merge(empty)
    expect(accumulator.finish({ durationMs: 4000 })).toEqual(before)
  })

  test('recorded requests travel in the snapshot', () => {
    const accumulator = new MetricsAccumulator({ recordRequests: true })
    for (const record of threeRecords()) accumulator.add(record)
    const restored = MetricsAccumulator.fromJSON(JSON.parse(JSON.stringify(accumulator.toJSON())))
    expect(restored.finish({ durationMs: 1 }).requests).toEqual(threeRecords())
  })

  test('a snapshot of another version is refused', () => {
    const snapshot = { ...new MetricsAccumulator().toJSON(), version: 1 } as unknown as Parameters<
      typeof MetricsAccumulator.fromJSON
    >[0]
    expect(() => MetricsAccumulator.fromJSON(snapshot)).toThrow(MetricsDataError)
  })
})

describe('MetricsAccumulator: memory stays flat without recordRequests', () => {
  test('200k records (1.2M ITL values, 10k distinct errors) keep no per-request state', () => {
    const random = seededRandom(7)
    const accumulator = new MetricsAccumulator()
    let footprintAfterWarmup = 0
    for (let i = 0; i < 200_000; i++) {
      if (i % 20 === 0) accumulator.add(failedRecord(i, 'http', `HTTP 500: request ${i}`))
      else accumulator.add(randomRecord(random, i, 7))
      // By request 2000 the error table is full (50 messages + the overflow row): from then on nothing may grow.
      if (i === 1999) footprintAfterWarmup = accumulator.estimatedFootprintInBytes
    }
    expect(accumulator.estimatedFootprintInBytes).toBe(footprintAfterWarmup)
    expect(accumulator.retainedRequests).toBe(0)
    expect(accumulator.toJSON().requests).toBeUndefined()
    const outcome = accumulator.finish({ durationMs: 2_000_000 })
    expect(outcome.requests).toBeUndefined()
    expect(outcome.counts).toEqual({ total: 200_000, completed: 190_000, failed: 10_000 })
    expect(outcome.metrics.itlMs.count).toBe(190_000 * 6)
    expect(outcome.errors.length).toBeLessThanOrEqual(51)
    // The encoded state does not grow with the number of requests either.
    expect(JSON.stringify(accumulator.toJSON()).length).toBeLessThan(64 * 1024)
  })

  test('with recordRequests every record is kept', () => {
    const accumulator = new MetricsAccumulator({ recordRequests: true })
    const records = [...threeRecords(), failedRecord(3, 'http', 'x')]
    for (const record of records) accumulator.add(record)
    expect(accumulator.retainedRequests).toBe(4)
    expect(accumulator.finish({ durationMs: 1 }).requests).toEqual(records)
  })
})
