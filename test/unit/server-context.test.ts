import { describe, expect, test } from 'vitest'
import {
  baselineEntryFrom,
  describeServerChange,
  formatBaselineFile,
  parseBaselineFile,
  serverContextOf,
} from '../../src/core/baseline/index.ts'
import { formatVerdict } from '../../src/core/verdict/index.ts'
import { compare } from '../helpers/compare-given.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { ServerMetrics } from '../../src/core/contract/server-metrics.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'
import { serverMetricsOf } from '../helpers/server-metrics-builder.ts'

const histogram = (p50: number, p99: number) => ({ count: 400, mean: p50, p50, p90: p99, p99, buckets: [] })

function withServer(result: BenchmarkResult, overrides: Partial<ServerMetrics>): BenchmarkResult {
  const metrics: ServerMetrics = serverMetricsOf({
    prefixCache: { queriedTokens: 10_000, hitTokens: 6200, hitRate: 0.62 },
    queueTimeMs: histogram(5, 12),
    ttftMs: histogram(40, 90),
    requestsWaiting: { mean: 1.5, peak: 4, stddev: 0, samples: 10 },
    preemptions: 0,
    ...overrides,
  })
  return { ...result, server: { metrics } }
}

describe('server context beside a verdict', () => {
  const random = seededRandom(11)
  const base = withServer(makeResult({ ttftMs: lognormalSamples(random, 400, 100, 0.2) }), {})

  test('a baseline keeps the server figures, per request where a count depends on the run length, and reads them back', () => {
    const entry = baselineEntryFrom(withServer(base, { preemptions: 8 }))
    expect(entry.server).toMatchObject({
      dialect: 'vllm',
      prefixCacheHitRate: 0.62,
      queueTimeP99Ms: 12,
      ttftP50Ms: 40,
      requestsWaitingMean: 1.5,
    })
    expect(entry.server?.preemptionsPerRequest).toBeCloseTo(8 / base.counts.completed, 3)
    const read = parseBaselineFile(formatBaselineFile({ schemaVersion: 1, entries: { chat: entry } }), 'b.json')
    expect(read.entries.chat?.server).toEqual(entry.server)
    expect(() =>
      parseBaselineFile(
        formatBaselineFile({
          schemaVersion: 1,
          entries: { chat: { ...entry, server: { dialect: 'vllm', ttftP50Ms: 'fast' } as never } },
        }),
        'b.json',
      ),
    ).toThrow(/server\.ttftP50Ms/)
  })

  test('names what moved: queue time p99 up 41 %, the hit rate collapsed; unchanged figures are left out', () => {
    const before = serverContextOf(base)
    const after = serverContextOf(
      withServer(base, {
        queueTimeMs: histogram(5.2, 16.92),
        prefixCache: { queriedTokens: 10_000, hitTokens: 300, hitRate: 0.03 },
      }),
    )
    expect(describeServerChange(before, after)).toBe(
      'queue time p99 12 -> 16.9 ms (+41 %), prefix-cache hit rate 62 % -> 3 %',
    )
    expect(describeServerChange(before, before)).toBe(
      "the server's own figures did not move (7 compared, each within 10 % or 5 points, gauge means within their sampling noise)",
    )
    expect(describeServerChange(before, undefined)).toBeUndefined()
  })

  test('compare carries it and formatVerdict prints it under the checks', () => {
    const entry = baselineEntryFrom(base)
    const current = withServer(makeResult({ ttftMs: lognormalSamples(seededRandom(12), 400, 140, 0.2) }), {
      queueTimeMs: histogram(9, 30),
    })
    const verdict = compare(entry, current, { ttftMs: { p50: '+10%' } })
    expect(verdict.checks[0]?.status).toBe('fail')
    expect(verdict.server).toBe('queue time p50 5 -> 9 ms (+80 %), queue time p99 12 -> 30 ms (+150 %)')
    expect(formatVerdict(verdict)).toContain('  Server side, baseline -> this run: queue time p50 5 -> 9 ms (+80 %)')
    // A baseline recorded before server metrics existed: no line.
    const { server: _, ...old } = entry
    expect(compare(old, current, { ttftMs: { p50: '+10%' } }).server).toBeUndefined()
  })

  test("client overhead larger than the TTFT gate's tolerance is named in the verdict's notes", () => {
    const entry = baselineEntryFrom(base)
    const overhead = (share: number) => ({ p50: share * 100, p90: 0, p99: 0, shareOfP50: share, p50PrecisionMs: 10 })
    // Client TTFT p50 is about 100 ms (the lognormal samples' median).
    const large = withServer(base, { clientOverheadTtftMs: overhead(0.35) })
    const clientP50 = large.metrics.ttftMs.p50
    const atLeast = Math.round(((35 - 10) / clientP50) * 100)
    expect(compare(entry, large, { ttftMs: { p50: '+10%' } }).notes).toContain(
      `The client and the network make up at least ${atLeast} % of TTFT p50 (client minus server 35.0 ms, the server's p50 known to ±10 ms), more than the TTFT p50 gate's tolerance (+10 %): a change in the client or the network alone can move that gate.`,
    )
    // Only the p50 gate's tolerance counts; a p99 gate alone says nothing about the median.
    expect(compare(entry, large, { ttftMs: { p99: '+10%' } }).notes.join(' ')).not.toContain('client and the network')
    const small = withServer(base, { clientOverheadTtftMs: overhead(0.05) })
    expect(compare(entry, small, { ttftMs: { p50: '+10%' } }).notes.join(' ')).not.toContain('client and the network')
  })

  test("a gauge mean is named only beyond its sampling noise: llama-server's open loop, running 0.2 -> 0.0667 over 15 scrapes is not, 0.2 -> 0.383 over 60 is", () => {
    const gauge = (mean: number, samples: number) => ({ mean, peak: 2, stddev: Math.sqrt(mean * (1 - mean)), samples })
    const recorded = serverContextOf(withServer(base, { requestsRunning: gauge(0.2, 100) }))
    const quiet = serverContextOf(withServer(base, { requestsRunning: gauge(0.0667, 15) }))
    const slower = serverContextOf(withServer(base, { requestsRunning: gauge(0.383, 60) }))
    expect(describeServerChange(recorded, quiet)).toContain('did not move')
    expect(describeServerChange(recorded, slower)).toBe('requests running (mean) 0.2 -> 0.383 (+92 %)')
  })
})
