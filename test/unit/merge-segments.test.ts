import { describe, expect, it } from 'vitest'
import { mergeSegments, SEGMENT_START_LAG_LIMIT_MS } from '../../src/core/trials/merge-segments.ts'
import { MetricsAccumulator } from '../../src/core/metrics/index.ts'
import type { BenchmarkResult, SegmentInfo } from '../../src/core/contract/result.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { createRandom } from '../../src/core/platform/random.ts'
import { okRecord } from '../helpers/metrics-fixtures.ts'

const random = createRandom(3)
const record = (index: number): RequestRecord => {
  const sentAt = index * 10
  const ttft = 20 + random.next() * 80
  return okRecord({
    index,
    sentAt,
    firstTokenAt: sentAt + ttft,
    endAt: sentAt + ttft + 50,
    chunkTimes: [sentAt + ttft, sentAt + ttft + 25, sentAt + ttft + 50],
    outputTokens: 3,
    inputTokens: 10,
  })
}

/** Segment `index` of `count` as runBenchmark would return it, from its requests. */
function segmentResult(
  index: number,
  count: number,
  records: RequestRecord[],
  info: Partial<SegmentInfo> = {},
  keptUp = true,
): BenchmarkResult {
  const acc = new MetricsAccumulator()
  for (const r of records) acc.add(r)
  const outcome = acc.finish({ durationMs: 1000 })
  return {
    schemaVersion: 2,
    startedAt: new Date(1_764_000_000_000).toISOString(),
    durationMs: 1000,
    counts: outcome.counts,
    metrics: outcome.metrics,
    throughput: outcome.throughput,
    errors: outcome.errors,
    streaming: outcome.streaming,
    client: {
      keptUp,
      warnings: [],
      selfCheck: { cores: 2, loadAverage1m: 1, disturbed: index === 2 ? ['other processes used 1.0 of 2 cores'] : [] },
    },
    workload: {
      kind: 'synthetic',
      seed: 5,
      salt: null,
      requestedInputTokensMean: 10,
      requestedOutputTokensMean: 3,
      actualInputTokensMean: 10,
      actualOutputTokensMean: 3,
    },
    environment: {
      runtime: { name: 'node', version: '24' },
      toolVersion: '0',
      host: { platform: 'linux', arch: 'x64' },
      gpus: [],
      server: {},
    },
    config: {
      workload: { kind: 'synthetic' },
      load: { rate: 10, requests: 40 },
      target: { api: 'chat', model: 'm' },
      segment: { index, count },
    },
    histograms: outcome.histograms,
    warnings: [],
    segment: {
      index,
      count,
      seed: 5,
      startAtMs: 1_764_000_000_000,
      originEpochMs: 1_764_000_000_010 + index,
      startLagMs: 10 + index,
      clock: null,
      clockNote: 'not measured',
      ...info,
    },
  }
}

function fourSegments(): { results: BenchmarkResult[]; records: RequestRecord[] } {
  const records = Array.from({ length: 40 }, (_, i) => record(i))
  const results = [1, 2, 3, 4].map((index) =>
    segmentResult(
      index,
      4,
      records.filter((r) => r.index % 4 === index - 1),
    ),
  )
  return { results, records }
}

describe('mergeSegments', () => {
  it('adds the segments: counts exact, percentiles those of all requests together, disturbances named by segment', () => {
    const { results, records } = fourSegments()
    const { result, refusals } = mergeSegments(results.reverse())
    expect(refusals).toEqual([])
    const all = new MetricsAccumulator()
    for (const r of records) all.add(r)
    const together = all.finish({ durationMs: 1000 }).metrics
    expect(result.counts).toEqual({ total: 40, completed: 40, failed: 0 })
    for (const statistic of ['count', 'p50', 'p90', 'p99', 'min', 'max'] as const)
      expect(result.metrics.ttftMs[statistic]).toBe(together.ttftMs[statistic])
    // From the earliest origin (segment 1) to the latest end (segment 4: 3 ms later, 1000 ms long).
    expect(result.durationMs).toBe(1003)
    expect(result.segment).toBeUndefined()
    expect(result.client.selfCheck?.disturbed).toEqual(['segment 2: other processes used 1.0 of 2 cores'])
    expect(result.warnings.slice(0, 2)).toEqual([
      'merged from 4 segments of 4',
      "segments placed on the hosts' own clocks (not measured): the merged duration and windows are as good as their NTP sync",
    ])
  })

  it("with every host's offset to the server's clock, origins are placed on the server's clock, and the accuracy is stated", () => {
    const { results } = fourSegments()
    // Host 4's clock runs 500 ms behind the server's, the others on time: its origin moves 500 ms later.
    const clocked = results.map((r) => ({
      ...r,
      segment: {
        ...(r.segment as SegmentInfo),
        clock: { offsetMs: r.segment?.index === 4 ? 500 : 0, accuracyMs: r.segment?.index === 2 ? 12 : 3 },
      },
    }))
    const { result, refusals } = mergeSegments(clocked)
    expect(refusals).toEqual([])
    expect(result.durationMs).toBe(1503)
    expect(result.warnings[1]).toBe(
      "segments placed on the server's clock (its Date headers): their origins agree within ±24 ms",
    )
  })

  it('refuses a verdict, saying why: a missing segment, a duplicate, another seed, start or configuration, a late start, a client that fell behind', () => {
    const { results } = fourSegments()
    const [one, two, three, four] = results as [BenchmarkResult, BenchmarkResult, BenchmarkResult, BenchmarkResult]
    expect(mergeSegments([one, two, three]).refusals).toEqual([
      expect.stringMatching(/^segment 4 of 4 is missing: no result came from that host/),
    ])
    expect(mergeSegments([one, two, two, three]).refusals.join('\n')).toMatch(
      /segment 4 of 4 is missing[\s\S]*segment 2 of 4 appears 2 times/,
    )
    const otherSeed = { ...four, segment: { ...(four.segment as SegmentInfo), seed: 6 } }
    expect(mergeSegments([one, two, three, otherSeed]).refusals).toEqual([
      expect.stringMatching(/disagree on the seed \(5 vs 6\)/),
    ])
    const otherStart = { ...four, segment: { ...(four.segment as SegmentInfo), startAtMs: 1 } }
    expect(mergeSegments([one, two, three, otherStart]).refusals).toEqual([
      expect.stringMatching(/disagree on the start time LLM_BENCH_START_AT/),
    ])
    const otherLoad = { ...four, config: { ...four.config, load: { rate: 20, requests: 40 } } }
    expect(mergeSegments([one, two, three, otherLoad]).refusals).toEqual([
      expect.stringMatching(/^segment 4 disagrees on the configuration/),
    ])
    const late = { ...four, segment: { ...(four.segment as SegmentInfo), startLagMs: SEGMENT_START_LAG_LIMIT_MS + 1 } }
    expect(mergeSegments([one, two, three, late]).refusals).toEqual([
      expect.stringMatching(/^segment 4 fell behind its schedule: it started 251 ms after LLM_BENCH_START_AT/),
    ])
    const behind = {
      ...four,
      client: { ...four.client, keptUp: false, generatorLagMs: { p50: 3, p99: 12.5, max: 20 } },
    }
    expect(mergeSegments([one, two, three, behind]).refusals).toEqual([
      expect.stringMatching(
        /^segment 4 fell behind its schedule: its load generator did not keep up \(send lag p99 12\.5 ms\)/,
      ),
    ])
    // On a busy host its self-check names the lag: the merge is judged as a disturbed run (no refusal), and says why.
    const named = {
      ...behind,
      client: {
        ...behind.client,
        selfCheck: { cores: 2, disturbed: ['the client fell behind its schedule (lag p99 13 ms)'] },
      },
    }
    const mergedBusy = mergeSegments([one, two, three, named] as BenchmarkResult[])
    expect(mergedBusy.refusals).toEqual([])
    expect(mergedBusy.result.client.selfCheck?.disturbed).toContain(
      'segment 4: the client fell behind its schedule (lag p99 13 ms)',
    )
  })
})
