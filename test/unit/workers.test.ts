import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { decodeHistogram, MetricsAccumulator } from '../../src/core/metrics/index.ts'
import { runBenchmark } from '../../src/core/run.ts'
import type { LoadOptions } from '../../src/core/contract/options.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import type { Timeline } from '../../src/core/contract/result.ts'
import {
  globalIndexOf,
  mergeDelaySummaries,
  mergePhases,
  mergeTimelines,
  mergeWarnings,
  shareOfCount,
  segmentShare,
  shareOfTimestamps,
  resolveWorkers,
} from '../../src/core/workers/index.ts'
import { planArrivals, plannedArrivalCount } from '../../src/core/load/index.ts'
import { resolveLoad } from '../../src/core/plan/index.ts'
import type { WorkerPhase } from '../../src/core/workers/index.ts'
import { createWorkload } from '../../src/core/workload/index.ts'
import { startSimulator } from '../../src/sim/index.ts'
import type { RunningSimulator } from '../../src/sim/index.ts'
import { okRecord, failedRecord, seededRandom } from '../helpers/metrics-fixtures.ts'

function randomRecords(count: number, seed: number, indexOffset: number): RequestRecord[] {
  const random = seededRandom(seed)
  const records: RequestRecord[] = []
  for (let i = 0; i < count; i++) {
    const index = indexOffset + i
    if (i % 17 === 5) {
      records.push(failedRecord(index, 'timeout', 'no complete response within 10 ms'))
      continue
    }
    const sentAt = 1000 + i * 3
    const chunks = 1 + Math.floor(random() * 12)
    const chunkTimes: number[] = []
    let t = sentAt + 5 + random() * 400
    for (let k = 0; k < chunks; k++) {
      chunkTimes.push(t)
      t += 0.05 + random() * 40
    }
    const last = chunkTimes[chunkTimes.length - 1] as number
    records.push(
      okRecord({
        index,
        sentAt,
        firstTokenAt: chunkTimes[0],
        chunkTimes,
        endAt: last,
        outputTokens: chunks,
        inputTokens: 10 + (i % 7),
      }),
    )
  }
  return records
}

/** A server that streams two tokens to every chat request and keeps each request's first message. */
async function startCapturingServer(prompts: string[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'capture' }] }))
      return
    }
    if (req.method !== 'POST') {
      res.writeHead(200).end()
      return
    }
    let body = ''
    req.on('data', (part: Buffer) => (body += String(part)))
    req.on('end', () => {
      prompts.push((JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0]?.content ?? '')
      const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(chunk('a'))
      setTimeout(() => res.end(chunk('b') + 'data: [DONE]\n\n'), 2)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function phaseOf(records: RequestRecord[], overrides: Partial<WorkerPhase> = {}): WorkerPhase {
  const accumulator = new MetricsAccumulator()
  for (const record of records) accumulator.add(record)
  return {
    // Through JSON text, as a structured clone between threads would carry it.
    snapshot: JSON.parse(JSON.stringify(accumulator.toJSON())),
    timeline: undefined,
    startedAt: 0,
    endedAt: 1000,
    dispatched: records.length,
    cancelled: 0,
    stoppedBy: 'requests',
    scheduleLagMs: undefined,
    generatorLagMs: undefined,
    eventLoopDelayMs: undefined,
    warnings: [],
    stall: undefined,
    ...overrides,
  }
}

describe('threads and segments: slices of one global schedule', () => {
  /** The send offsets, by global index, that `count` slices of `load` plan together. */
  const plannedBySlices = (load: LoadOptions, count: number): number[] => {
    const offsets: number[] = []
    for (let index = 1; index <= count; index++) {
      const share = segmentShare(resolveLoad(load), undefined, 42, undefined, { index, count })
      share.timestampsMs?.forEach((offset, local) => (offsets[share.indexOf(local)] = offset))
    }
    return offsets
  }

  test('workers: 4 (or 4 segments) plan exactly the send offsets of workers: 1, each index once', () => {
    for (const arrival of ['poisson', 'constant', 'gamma'] as const) {
      const load: LoadOptions = {
        rate: 90,
        arrival,
        requests: 1001,
        ...(arrival === 'gamma' ? { burstiness: 0.5 } : {}),
      }
      const whole = planArrivals(resolveLoad(load), 42, plannedArrivalCount(resolveLoad(load)))
      expect(whole).toHaveLength(1001)
      const four = plannedBySlices(load, 4)
      expect(four, arrival).toEqual(whole)
      expect(plannedBySlices(load, 1), arrival).toEqual(whole)
    }
  })

  test('a closed loop shares concurrency, requests, warm-up and a ramp start into whole parts', () => {
    const load: LoadOptions = { concurrency: 7, requests: 1001, rampUp: { from: 6, durationMs: 100 } }
    const shares = [1, 2, 3].map((index) =>
      segmentShare(resolveLoad(load), { requests: 5, durationMs: 0, concurrency: 7 }, 42, undefined, {
        index,
        count: 3,
      }),
    )
    expect(shares.map((s) => s.load.concurrency)).toEqual([3, 2, 2])
    expect(shares.map((s) => s.load.requests)).toEqual([334, 334, 333])
    expect(shares.map((s) => s.warmup?.requests)).toEqual([2, 2, 1])
    expect(shares.map((s) => s.warmup?.concurrency)).toEqual([3, 2, 2])
    expect(shares.map((s) => s.load.maxInFlight)).toEqual([3, 2, 2])
    for (const share of shares) expect(share.load.rampUp?.from).toBe(2)
    // The caller's options are not changed.
    expect(load.concurrency).toBe(7)
  })

  test('interleaved indices cover 0..n-1 once each, and trace offsets follow them', () => {
    const n = 103
    const threads = 4
    const seen: number[] = []
    for (let thread = 0; thread < threads; thread++) {
      for (let local = 0; local < shareOfCount(n, thread, threads); local++)
        seen.push(globalIndexOf(local, thread, threads))
    }
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i))
    const offsets = Array.from({ length: 10 }, (_, i) => i * 100)
    const share = shareOfTimestamps(offsets, 1, 3)
    expect(share).toEqual([100, 400, 700])
    share.forEach((offset, local) => expect(offset).toBe(offsets[globalIndexOf(local, 1, 3)]))
  })

  test('resolveWorkers refuses a thread count the load cannot feed', () => {
    expect(resolveWorkers(undefined, { concurrency: 1, requests: 1 })).toBe(1)
    expect(resolveWorkers(2, { concurrency: 2, requests: 10 })).toBe(2)
    expect(() => resolveWorkers(0, { concurrency: 4 })).toThrow(OptionsError)
    expect(() => resolveWorkers(1.5, { concurrency: 4 })).toThrow(/whole number/)
    expect(() => resolveWorkers(3, { concurrency: 2, requests: 10 })).toThrow(/load.concurrency = 2/)
    expect(() => resolveWorkers(3, { rate: 5, requests: 2 })).toThrow(/load.requests = 2/)
  })
})

describe('mergePhases', () => {
  test('merged counts and histograms equal those of one accumulator fed every record', () => {
    const parts = [randomRecords(400, 1, 0), randomRecords(250, 2, 400), randomRecords(333, 3, 650)]
    const merged = mergePhases(
      parts.map((records, i) => phaseOf(records, { startedAt: 10 + i, endedAt: 2000 - i })),
      0,
    )
    const single = new MetricsAccumulator()
    for (const records of parts) for (const record of records) single.add(record)

    const a = merged.accumulator.finish({ durationMs: 1000 })
    const b = single.finish({ durationMs: 1000 })
    expect(a.counts).toEqual(b.counts)
    expect(a.counts.total).toBe(983)
    expect(a.counts.failed).toBe(parts.reduce((sum, records) => sum + records.filter((r) => !r.ok).length, 0))
    expect(a.errors).toEqual(b.errors)
    expect(a.throughput).toEqual(b.throughput)
    for (const name of ['ttftMs', 'tpotMs', 'itlMs', 'e2eMs', 'outputTokens', 'inputTokens'] as const) {
      expect(a.metrics[name].count).toBe(b.metrics[name].count)
      for (const key of ['min', 'max', 'p50', 'p90', 'p99', 'p999'] as const)
        expect(a.metrics[name][key]).toBe(b.metrics[name][key])
      expect(a.metrics[name].mean).toBeCloseTo(b.metrics[name].mean, 9)
      expect(a.metrics[name].stddev).toBeCloseTo(b.metrics[name].stddev, 9)
    }
    // Bucket by bucket: the encoded histograms decode to the same counts.
    for (const key of ['ttftUs', 'tpotUs', 'itlUs', 'e2eUs'] as const) {
      const mergedHistogram = decodeHistogram(a.histograms[key] as string)
      const singleHistogram = decodeHistogram(b.histograms[key] as string)
      expect(mergedHistogram.totalCount).toBe(singleHistogram.totalCount)
      for (const q of [1, 25, 50, 75, 90, 99, 99.9, 100])
        expect(mergedHistogram.getValueAtPercentile(q)).toBe(singleHistogram.getValueAtPercentile(q))
    }
    // The ITL count is the sum of the parts' (chunks - 1 per completed request).
    const gaps = parts
      .flat()
      .filter((r) => r.ok)
      .reduce((sum, r) => sum + r.chunkTimes.length - 1, 0)
    expect(a.metrics.itlMs.count).toBe(gaps)
    expect(merged.outcome.startedAt).toBe(10)
    expect(merged.outcome.endedAt).toBe(2000)
    expect(merged.outcome.dispatched).toBe(983)
  })

  test('lag and event-loop delay merge to the worst thread; timelines add window by window', () => {
    const phases = [
      phaseOf([], { scheduleLagMs: { p50: 1, p99: 9, max: 20 }, eventLoopDelayMs: { p50: 10, p99: 11, max: 12 } }),
      phaseOf([], { scheduleLagMs: { p50: 2, p99: 4, max: 50 }, eventLoopDelayMs: undefined }),
    ]
    const merged = mergePhases(phases, 0)
    expect(merged.outcome.scheduleLagMs).toEqual({ p50: 2, p99: 9, max: 50 })
    expect(merged.eventLoopDelayMs).toEqual({ p50: 10, p99: 11, max: 12 })
    expect(mergeDelaySummaries([undefined, undefined])).toBeUndefined()

    const a: Timeline = {
      windowMs: 1000,
      requests: [1, 2, 3],
      outputTokens: [10, 20, 30],
      totalTokens: [11, 22, 33],
      inFlightMax: [1, 1, 1],
      lastWindowPartial: true,
    }
    const b: Timeline = {
      windowMs: 1000,
      requests: [4, 5],
      outputTokens: [40, 50.5],
      totalTokens: [44, 55.5],
      inFlightMax: [2, 2],
      lastWindowPartial: false,
    }
    const sum = mergeTimelines([a, undefined, b], 0, 2500)
    expect(sum).toEqual({
      windowMs: 1000,
      requests: [5, 7, 3],
      outputTokens: [50, 70.5, 30],
      totalTokens: [55, 77.5, 33],
      inFlightMax: [3, 3, 1],
      lastWindowPartial: true,
    })
    expect(mergeTimelines([a, b], 0, 3000)?.lastWindowPartial).toBe(false)
  })

  test('warnings every thread gave appear once; others name their thread', () => {
    expect(mergeWarnings([['same', 'only first'], ['same']])).toEqual(['same', 'Load worker 1 of 2: only first'])
  })
})

describe('runBenchmark with workers', () => {
  let sim: RunningSimulator
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 3,
      prefillBaseMs: 2,
      decodeBaseMs: 1,
      decodeMsPerSequence: 0.05,
      maxRunningSequences: 64,
    })
  })
  afterAll(async () => {
    await sim.close()
  })

  test('two threads send every request once and merge what they measured', async () => {
    const progress: number[] = []
    const before = performance.now()
    const result = await runBenchmark(
      {
        target: { baseUrl: sim.url },
        workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
        load: { concurrency: 6, requests: 60 },
        warmup: { requests: 4 },
        recordRequests: true,
        workers: 2,
        onProgress: (p) => progress.push(p.done),
      },
      { skipGpu: true },
    )
    const after = performance.now()
    expect(result.counts).toEqual({ total: 60, completed: 60, failed: 0 })
    const records = result.requests as RequestRecord[]
    expect(records.map((r) => r.index)).toEqual(Array.from({ length: 60 }, (_, i) => i))
    // Times come back on this thread's clock: inside the call, and inside the measured window.
    for (const record of records) {
      expect(record.sentAt).toBeGreaterThanOrEqual(before)
      expect(record.endAt).toBeLessThanOrEqual(after)
      expect(record.firstTokenAt as number).toBeGreaterThanOrEqual(record.sentAt)
    }
    const firstSend = Math.min(...records.map((r) => r.sentAt))
    const lastEnd = Math.max(...records.map((r) => r.endAt))
    expect(result.durationMs).toBeGreaterThanOrEqual(lastEnd - firstSend - 1)
    expect(result.metrics.outputTokens.mean).toBe(8)
    expect(result.metrics.ttftMs.count).toBe(60)
    expect(result.metrics.itlMs.count).toBe(60 * 7)
    expect(result.timeline?.requests.reduce((a, b) => a + b, 0)).toBe(60)
    expect(result.client.eventLoopDelayMs).toBeDefined()
    expect(progress.at(-1)).toBe(60)
    expect((result.config as { workers?: number }).workers).toBe(2)
  })

  test('threads send the prompts one thread would: same salt, every index once', async () => {
    const prompts: string[] = []
    const server = await startCapturingServer(prompts)
    try {
      const result = await runBenchmark(
        {
          target: { baseUrl: server.url },
          workload: { kind: 'synthetic', inputTokens: { mean: 24, stddev: 8 }, outputTokens: { mean: 4 } },
          load: { concurrency: 4, requests: 24 },
          warmup: { requests: 3 },
          seed: 11,
          workers: 3,
        },
        { skipGpu: true },
      )
      expect(result.counts.completed).toBe(24)
      const workload = await createWorkload(
        { kind: 'synthetic', inputTokens: { mean: 24, stddev: 8 }, outputTokens: { mean: 4 } },
        { seed: 11, api: 'chat', salt: result.workload.salt as string },
      )
      // The idle streaming probe sends its own prompts first (indices -1000000 and down).
      const probes = Array.from({ length: result.streaming.probeRequests ?? 0 }, (_, i) => -1_000_000 - i)
      expect(probes.length).toBeGreaterThan(0)
      const expected = [...probes, -3, -2, -1, ...Array.from({ length: 24 }, (_, i) => i)].map(
        (i) => workload.next(i).messages?.[0]?.content,
      )
      expect([...prompts].sort()).toEqual([...expected].sort())
    } finally {
      await server.close()
    }
  })

  test('an open loop is one schedule over the threads: every request sent at its planned offset, lag merged', async () => {
    const result = await runBenchmark(
      {
        target: { baseUrl: sim.url },
        workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
        load: { rate: 200, arrival: 'poisson', requests: 40 },
        seed: 5,
        recordRequests: true,
        workers: 2,
      },
      { skipGpu: true },
    )
    expect(result.counts).toEqual({ total: 40, completed: 40, failed: 0 })
    expect(result.client.scheduleLagMs).toBeDefined()
    expect(result.client.generatorLagMs).toBeDefined()
    expect(result.timeline?.requests.reduce((a, b) => a + b, 0)).toBe(40)
    // Each request was planned at the offset one thread plans for its index, on one shared clock.
    const load: LoadOptions = { rate: 200, arrival: 'poisson', requests: 40 }
    const whole = planArrivals(resolveLoad(load), 5, plannedArrivalCount(resolveLoad(load)))
    const records = [...(result.requests ?? [])].sort((a, b) => a.index - b.index)
    const origin = (records[0]?.plannedAt ?? NaN) - (whole[0] ?? NaN)
    expect(records.map((r) => (r.plannedAt ?? NaN) - origin).map((t) => Number(t.toFixed(3)))).toEqual(
      whole.map((t) => Number(t.toFixed(3))),
    )
  })

  test('an abort reaches every thread', async () => {
    const controller = new AbortController()
    const slow = await startSimulator({ decodeBaseMs: 50, prefillBaseMs: 1 })
    // Abort once both threads have requests running (starting a thread takes a while).
    const abortWhenBusy = setInterval(() => {
      if (slow.stats().running >= 4) controller.abort()
    }, 10)
    try {
      const result = await runBenchmark(
        {
          target: { baseUrl: slow.url },
          workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 400 } },
          load: { concurrency: 4, requests: 40 },
          workers: 2,
          signal: controller.signal,
        },
        { skipGpu: true },
      )
      expect(result.counts.completed).toBe(0)
      expect(result.counts.failed).toBe(4)
      expect(result.errors[0]?.kind).toBe('cancelled')
    } finally {
      clearInterval(abortWhenBusy)
      await slow.close()
    }
  })

  test('refuses more threads than concurrent requests before sending anything', async () => {
    await expect(
      runBenchmark(
        {
          target: { baseUrl: sim.url },
          workload: { kind: 'prompts', prompts: ['x'] },
          load: { concurrency: 1, requests: 5 },
          workers: 2,
        },
        { skipGpu: true },
      ),
    ).rejects.toThrow(OptionsError)
  })
})
