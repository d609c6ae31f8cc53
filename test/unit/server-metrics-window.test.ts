import { describe, expect, test } from 'vitest'
import {
  bucketQuantile,
  parsePrometheusText,
  summarizeServerMetrics,
  DIALECTS,
} from '../../src/core/server/metrics/index.ts'
import type { ServerMetricsScrape } from '../../src/core/server/metrics/index.ts'
import type { MetricSummary } from '../../src/core/contract/result.ts'

const VLLM = DIALECTS.find((d) => d.dialect === 'vllm')!

/** A vLLM-named exposition with two engines (data parallel), so sums over series are exercised. */
function vllmText(v: {
  prompt: number
  gen: number
  queries: number
  hits: number
  running: [number, number]
  waiting: number
  kv: [number, number]
  ttft: [number, number, number, number]
  ttftSum: number
  drafts?: number
  draftTokens?: number
  accepted?: number
}): string {
  const labels = (engine: string) => `engine="${engine}",model_name="m"`
  const [le10, le20, le40, inf] = v.ttft
  return [
    '# HELP vllm:prompt_tokens_total Number of prefill tokens processed.',
    '# TYPE vllm:prompt_tokens_total counter',
    `vllm:prompt_tokens_total{${labels('0')}} ${v.prompt / 2}`,
    `vllm:prompt_tokens_total{${labels('1')}} ${v.prompt / 2}`,
    '# TYPE vllm:generation_tokens_total counter',
    `vllm:generation_tokens_total{${labels('0')}} ${v.gen}`,
    `vllm:generation_tokens_created{${labels('0')}} 1.7e9`,
    '# TYPE vllm:prefix_cache_queries_total counter',
    `vllm:prefix_cache_queries_total{${labels('0')}} ${v.queries}`,
    '# TYPE vllm:prefix_cache_hits_total counter',
    `vllm:prefix_cache_hits_total{${labels('0')}} ${v.hits}`,
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running{${labels('0')}} ${v.running[0]}`,
    `vllm:num_requests_running{${labels('1')}} ${v.running[1]}`,
    '# TYPE vllm:num_requests_waiting gauge',
    `vllm:num_requests_waiting{${labels('0')}} ${v.waiting}`,
    '# TYPE vllm:kv_cache_usage_perc gauge',
    `vllm:kv_cache_usage_perc{${labels('0')}} ${v.kv[0]}`,
    `vllm:kv_cache_usage_perc{${labels('1')}} ${v.kv[1]}`,
    '# TYPE vllm:time_to_first_token_seconds histogram',
    `vllm:time_to_first_token_seconds_bucket{${labels('0')},le="0.01"} ${le10}`,
    `vllm:time_to_first_token_seconds_bucket{${labels('0')},le="0.02"} ${le20}`,
    `vllm:time_to_first_token_seconds_bucket{${labels('0')},le="0.04"} ${le40}`,
    `vllm:time_to_first_token_seconds_bucket{${labels('0')},le="+Inf"} ${inf}`,
    `vllm:time_to_first_token_seconds_count{${labels('0')}} ${inf}`,
    `vllm:time_to_first_token_seconds_sum{${labels('0')}} ${v.ttftSum}`,
    ...(v.drafts === undefined
      ? []
      : [
          `vllm:spec_decode_num_drafts_total{${labels('0')}} ${v.drafts}`,
          `vllm:spec_decode_num_draft_tokens_total{${labels('0')}} ${v.draftTokens}`,
          `vllm:spec_decode_num_accepted_tokens_total{${labels('0')}} ${v.accepted}`,
        ]),
  ].join('\n')
}

const scrape = (t: number, text: string): ServerMetricsScrape => ({
  t,
  durationMs: 2,
  exposition: parsePrometheusText(text),
})
const failed = (t: number): ServerMetricsScrape => ({ t, durationMs: 5000, error: 'no answer within 5000 ms' })

const base = {
  prompt: 1000,
  gen: 500,
  queries: 1000,
  hits: 100,
  running: [0, 0] as [number, number],
  waiting: 0,
  kv: [0, 0] as [number, number],
  ttft: [1, 2, 3, 3] as [number, number, number, number],
  ttftSum: 0.05,
}

describe('parsePrometheusText', () => {
  test('reads labels with escapes, special values, timestamps and exemplars, and counts bad lines', () => {
    const exposition = parsePrometheusText(
      [
        '# HELP a_total A counter.',
        '# TYPE a_total counter',
        'a_total{path="/v1",quote="say \\"hi\\"",nl="x\\ny",back="a\\\\b"} 3 1700000000000',
        'b{le="+Inf"} +Inf',
        'c NaN',
        'd_total 7 # {trace_id="abc"} 1.0 1700000000.1',
        'not a sample line',
        'e{unterminated="x} 1',
        '# EOF',
      ].join('\n'),
    )
    expect(exposition.samples('a_total')).toEqual([
      { labels: { path: '/v1', quote: 'say "hi"', nl: 'x\ny', back: 'a\\b' }, value: 3 },
    ])
    expect(exposition.samples('b')[0]?.value).toBe(Number.POSITIVE_INFINITY)
    expect(exposition.samples('c')[0]?.value).toBeNaN()
    expect(exposition.samples('d_total')[0]?.value).toBe(7)
    expect(exposition.types.get('a_total')).toBe('counter')
    expect(exposition.invalidLines).toBe(2)
    expect(exposition.samples('missing')).toEqual([])
  })

  test('keeps every labelled histogram series with its own _count and _sum', () => {
    const exposition = parsePrometheusText(vllmText(base))
    expect(exposition.samples('vllm:time_to_first_token_seconds_bucket')).toHaveLength(4)
    expect(exposition.samples('vllm:time_to_first_token_seconds_count')).toEqual([
      { labels: { engine: '0', model_name: 'm' }, value: 3 },
    ])
    expect(exposition.samples('vllm:prompt_tokens_total').map((s) => s.labels.engine)).toEqual(['0', '1'])
  })
})

describe('bucketQuantile (histogram_quantile)', () => {
  // 10 observations: 4 in (0, 10], 4 in (10, 20], 2 in (20, +Inf).
  const buckets = [
    { le: 10, count: 4 },
    { le: 20, count: 8 },
    { le: Number.POSITIVE_INFINITY, count: 10 },
  ]
  test('interpolates linearly inside the bucket that holds the rank', () => {
    expect(bucketQuantile(buckets, 0.2).value).toBeCloseTo(5, 10) // rank 2 of 4 in (0, 10]
    expect(bucketQuantile(buckets, 0.5).value).toBeCloseTo(12.5, 10) // rank 5: 1 of 4 into (10, 20]
    expect(bucketQuantile(buckets, 0.5)).toMatchObject({ lower: 10, upper: 20 })
  })
  test('answers the highest finite bound when the rank falls in +Inf', () => {
    expect(bucketQuantile(buckets, 0.99).value).toBe(20)
  })
  test('is NaN without observations', () => {
    expect(bucketQuantile([{ le: 1, count: 0 }], 0.5).value).toBeNaN()
  })
})

describe('summarizeServerMetrics', () => {
  const clientTtft: MetricSummary = {
    count: 6,
    min: 12,
    max: 45,
    mean: 25,
    stddev: 5,
    p50: 30,
    p90: 40,
    p99: 45,
    p95: 42,
    p999: 45,
  }

  test('counter deltas, gauges over every scrape, histogram deltas in ms, spec decoding, overhead', () => {
    const start = scrape(1000, vllmText({ ...base, drafts: 10, draftTokens: 30, accepted: 12 }))
    const middle = scrape(
      2000,
      vllmText({
        ...base,
        prompt: 3000,
        running: [3, 1],
        waiting: 5,
        kv: [0.4, 0.2],
        ttft: [1, 4, 8, 8],
        ttftSum: 0.15,
        drafts: 40,
        draftTokens: 120,
        accepted: 72,
      }),
    )
    const end = scrape(
      3000,
      vllmText({
        ...base,
        prompt: 5000,
        gen: 1700,
        queries: 5000,
        hits: 1300,
        running: [1, 1],
        waiting: 1,
        kv: [0.2, 0.0],
        ttft: [1, 5, 9, 9],
        ttftSum: 0.2,
        drafts: 110,
        draftTokens: 330,
        accepted: 192,
      }),
    )
    const middle2 = scrape(
      2500,
      vllmText({
        ...base,
        prompt: 4000,
        running: [1, 1],
        waiting: 1,
        kv: [0.1, 0.1],
        ttft: [1, 5, 9, 9],
        ttftSum: 0.2,
      }),
    )
    const m = summarizeServerMetrics({
      names: VLLM,
      url: 'http://h/metrics',
      intervalMs: 1000,
      scrapes: [start, middle, failed(2200), middle2, end],
      clientTtftMs: clientTtft,
    })

    expect(m).toMatchObject({
      dialect: 'vllm',
      scrapes: 5,
      failedScrapes: 1,
      windowMs: 2000,
      promptTokens: 4000,
      generatedTokens: 1200,
    })
    expect(m.prefixCache).toEqual({ queriedTokens: 4000, hitTokens: 1200, hitRate: 0.3 })
    // Engines added: running 0, 4, (failed), 2, 2; waiting 0, 5, -, 1, 1. Means over the scrapes
    // inside the window (the idle ends left out), peaks over all; usage averaged over engines.
    expect(m.requestsRunning).toEqual({ mean: 3, peak: 4, stddev: Math.SQRT2, samples: 2 })
    expect(m.requestsWaiting).toEqual({ mean: 3, peak: 5, stddev: Math.SQRT2 * 2, samples: 2 })
    expect(m.kvCacheUsage?.peak).toBeCloseTo(0.3, 10)
    expect(m.kvCacheUsage?.mean).toBeCloseTo(0.2, 10)
    expect(m.series.requestsRunning).toEqual([0, 4, null, 2, 2])
    expect(m.series.t).toEqual([0, 1000, 1200, 1500, 2000])
    // TTFT in the window: 6 observations: 3 in (10, 20] ms, 3 in (20, 40] ms; sum 0.15 s.
    expect(m.ttftMs?.count).toBe(6)
    expect(m.ttftMs?.mean).toBeCloseTo(25, 10)
    expect(m.ttftMs?.p50).toBeCloseTo(20, 10) // rank 3 = the top of (10, 20]
    expect(m.ttftMs?.p90).toBeCloseTo(20 + (20 * (5.4 - 3)) / 3, 10)
    expect(m.ttftMs?.buckets).toEqual([
      { leMs: 10, count: 0 },
      { leMs: 20, count: 3 },
      { leMs: 40, count: 6 },
    ])
    // 100 drafts of 300 tokens, 180 accepted: rate 0.6, 1 + 180 / 100 = 2.8 tokens per step.
    expect(m.specDecode).toEqual({
      drafts: 100,
      draftTokens: 300,
      acceptedTokens: 180,
      acceptanceRate: 0.6,
      meanAcceptedLength: 2.8,
    })
    expect(m.clientOverheadTtftMs).toMatchObject({ p50: 10, shareOfP50: 10 / 30, p50PrecisionMs: 10 })
    expect(m.notes.join(' ')).toContain('1 of 5 scrapes failed (no answer within 5000 ms)')
    // 10 ms over the server's p50, but its bucket is 10 ms wide: no more than 0 % is shown to be the client's.
    expect(m.notes.join(' ')).not.toContain('client and the network')
    const slow = summarizeServerMetrics({
      names: VLLM,
      url: 'u',
      intervalMs: 1000,
      scrapes: [start, end],
      clientTtftMs: { ...clientTtft, p50: 60 },
    })
    expect(slow.notes).toContain(
      "The client and the network make up at least 50 % of TTFT p50 (client minus server 40.0 ms, the server's p50 known to ±10 ms): the client and the network are a large part of what a TTFT gate measures.",
    )
  })

  test("a failed scrape at the window's end (after its retry) leaves counters and histograms out, with a note", () => {
    const m = summarizeServerMetrics({
      names: VLLM,
      url: 'u',
      intervalMs: 1000,
      scrapes: [scrape(0, vllmText(base)), scrape(500, vllmText({ ...base, gen: 900 })), failed(1000)],
    })
    expect(m.generatedTokens).toBeUndefined()
    expect(m.ttftMs).toBeUndefined()
    expect(m.requestsRunning).toBeDefined()
    expect(m.notes).toContain(
      "The scrape at the window's end failed twice (no answer within 5000 ms): no counter or histogram figures, only gauges.",
    )
  })

  test('a counter that went down is left out with a note (server restarted)', () => {
    const m = summarizeServerMetrics({
      names: VLLM,
      url: 'u',
      intervalMs: 1000,
      scrapes: [scrape(0, vllmText({ ...base, gen: 900 })), scrape(1000, vllmText({ ...base, gen: 20 }))],
    })
    expect(m.generatedTokens).toBeUndefined()
    expect(m.promptTokens).toBe(0)
    expect(m.notes.join(' ')).toContain('Generated tokens went down during the run (900 -> 20)')
  })

  test("a failed scrape at the window's start leaves counters out too", () => {
    const m = summarizeServerMetrics({
      names: VLLM,
      url: 'u',
      intervalMs: 1000,
      scrapes: [failed(0), scrape(1000, vllmText(base))],
    })
    expect(m.generatedTokens).toBeUndefined()
    expect(m.notes[0]).toContain("The scrape at the window's start failed twice")
  })

  test('the first request finding half of its prompt (and at least a block) cached means a warm cache', () => {
    const around = (hitsAfter: number) => ({
      before: scrape(0, vllmText({ ...base, queries: 1000, hits: 100 })),
      after: scrape(10, vllmText({ ...base, queries: 1200, hits: 100 + hitsAfter })),
    })
    const scrapes = [scrape(20, vllmText(base)), scrape(30, vllmText(base))]
    const warm = summarizeServerMetrics({ names: VLLM, url: 'u', intervalMs: 1000, scrapes, firstRequest: around(192) })
    expect(warm.firstRequestCache).toEqual({ promptTokens: 200, hitTokens: 192, warm: true })
    // Half the prompt is the line: a chat template's opening (llama-server: 22 % of an 80-token prompt) is not a warm cache.
    expect(
      summarizeServerMetrics({ names: VLLM, url: 'u', intervalMs: 1000, scrapes, firstRequest: around(90) })
        .firstRequestCache?.warm,
    ).toBe(false)
    expect(warm.notes.join(' ')).toContain(
      'Prefix cache was warm before the run: its first request found 192 of its 200 prompt tokens cached',
    )
    // A chat template's fixed opening (one block) is cached across runs and is not a warm cache.
    const cold = summarizeServerMetrics({ names: VLLM, url: 'u', intervalMs: 1000, scrapes, firstRequest: around(16) })
    expect(cold.firstRequestCache).toEqual({ promptTokens: 200, hitTokens: 16, warm: false })
    expect(cold.notes.join(' ')).not.toContain('warm')
  })
})
