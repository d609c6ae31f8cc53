import { describe, expect, test } from 'vitest'
import { mergeServerSides } from '../../src/core/server/metrics/index.ts'
import { mergeTrials } from '../../src/core/trials/merge-trials.ts'
import type { ServerMetrics } from '../../src/core/contract/server-metrics.ts'
import { makeResult } from '../helpers/baseline-fixtures.ts'
import { serverMetricsOf } from '../helpers/server-metrics-builder.ts'

function trial(overrides: Partial<ServerMetrics>): ServerMetrics {
  return serverMetricsOf({
    url: 'http://h/metrics',
    scrapes: 4,
    windowMs: 3000,
    generatedTokens: 1000,
    promptTokens: 4000,
    prefixCache: { queriedTokens: 4000, hitTokens: 1000, hitRate: 0.25 },
    requestsWaiting: { mean: 1, peak: 3, stddev: 0, samples: 4 },
    // 10 observations: 6 in (0, 20] ms, 4 in (20, 40] ms.
    ttftMs: {
      count: 10,
      mean: 18,
      p50: 16.67,
      p90: 35,
      p99: 39.5,
      buckets: [
        { leMs: 20, count: 6 },
        { leMs: 40, count: 10 },
      ],
    },
    firstRequestCache: { promptTokens: 100, hitTokens: 0, warm: false },
    series: { t: [0, 1000], requestsRunning: [1, 2], requestsWaiting: [0, 1], kvCacheUsage: [0.1, 0.2] },
    ...overrides,
  })
}

describe('mergeServerSides (trials of one bench as one window)', () => {
  test('counters and buckets add, quantiles are recomputed, gauges pool over scrapes, a warm later trial is named', () => {
    const second = trial({
      generatedTokens: 500,
      prefixCache: { queriedTokens: 2000, hitTokens: 1500, hitRate: 0.75 },
      requestsWaiting: { mean: 4, peak: 7, stddev: 0, samples: 2 },
      scrapes: 2,
      ttftMs: {
        count: 10,
        mean: 38,
        p50: 35,
        p90: 39,
        p99: 40,
        buckets: [
          { leMs: 20, count: 0 },
          { leMs: 40, count: 10 },
        ],
      },
      firstRequestCache: { promptTokens: 100, hitTokens: 96, warm: true },
      series: { t: [0], requestsRunning: [3], requestsWaiting: [4], kvCacheUsage: [0.3] },
    })
    // A restarted server listens on another port: its trial still adds up.
    const merged = mergeServerSides(
      [{ metrics: trial({}) }, { metrics: { ...second, url: 'http://h:2/metrics' } }],
      undefined,
    )?.metrics
    expect(merged).toMatchObject({ generatedTokens: 1500, promptTokens: 8000, scrapes: 6, windowMs: 6000 })
    expect(merged?.prefixCache).toEqual({ queriedTokens: 6000, hitTokens: 2500, hitRate: 2500 / 6000 })
    expect(merged?.requestsWaiting).toMatchObject({ mean: (1 * 4 + 4 * 2) / 6, peak: 7, samples: 6 })
    // Pooled: no spread inside either trial, but their means (1 and 4) differ: sqrt((4 × 1² + 2 × 2²) / 5).
    expect(merged?.requestsWaiting?.stddev).toBeCloseTo(Math.sqrt(12 / 5), 10)
    // 20 observations: 6 in (0, 20], 14 in (20, 40]: the 10th is 4 of 14 into the second bucket.
    expect(merged?.ttftMs?.count).toBe(20)
    expect(merged?.ttftMs?.mean).toBeCloseTo(28, 10)
    expect(merged?.ttftMs?.p50).toBeCloseTo(20 + (20 * 4) / 14, 10)
    expect(merged?.ttftMs?.buckets).toEqual([
      { leMs: 20, count: 6 },
      { leMs: 40, count: 20 },
    ])
    expect(merged?.series).toEqual(second.series)
    expect(merged?.firstRequestCache?.warm).toBe(false)
    expect(merged?.notes).toEqual([
      "Trial 2's first request found its prompt cached: the trial before it sent the same prompts, so later trials ran on a warm prefix cache.",
    ])
  })

  test('a counter missing in one trial is left out rather than summed over some; a trial without metrics keeps the last side', () => {
    const merged = mergeServerSides(
      [{ metrics: trial({}) }, { metrics: trial({ generatedTokens: undefined }) }],
      undefined,
    )?.metrics
    expect(merged?.generatedTokens).toBeUndefined()
    expect(merged?.promptTokens).toBe(8000)
    const note = { note: 'No server metrics: …' }
    expect(mergeServerSides([note, note], undefined)).toBe(note)
    // One trial's figures beside every trial's client counts would read as a mismatch.
    expect(mergeServerSides([{ metrics: trial({}) }, note], undefined)).toEqual({
      note: 'Server metrics came from 1 of 2 trials only (No server metrics: …): not merged.',
    })
  })

  test('mergeTrials carries it, with the client-minus-server TTFT of all trials', () => {
    const a = { ...makeResult({ ttftMs: [30, 30, 30, 30] }), server: { metrics: trial({}) } }
    const b = { ...makeResult({ ttftMs: [30, 30, 30, 30] }), server: { metrics: trial({ generatedTokens: 200 }) } }
    const merged = mergeTrials([a, b])
    expect(merged.server?.metrics?.generatedTokens).toBe(1200)
    expect(merged.server?.metrics?.clientOverheadTtftMs?.p50).toBeCloseTo(30 - 16.67, 1)
  })

  test("a later trial's own 'warm before the run' warning is replaced by the merged one that names the trial before it", () => {
    const warmNote =
      'Prefix cache was warm before the run: its first request found 96 of its 100 prompt tokens cached, …'
    const a = { ...makeResult(), server: { metrics: trial({}) } }
    const b = {
      ...makeResult(),
      warnings: [`Server metrics: ${warmNote}`],
      server: {
        metrics: trial({ firstRequestCache: { promptTokens: 100, hitTokens: 96, warm: true }, notes: [warmNote] }),
      },
    }
    const merged = mergeTrials([a, b])
    expect(merged.warnings.filter((w) => w.startsWith('Server metrics: '))).toEqual([
      "Server metrics: Trial 2's first request found its prompt cached: the trial before it sent the same prompts, so later trials ran on a warm prefix cache.",
    ])
  })
})
