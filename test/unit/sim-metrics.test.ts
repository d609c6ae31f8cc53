import { describe, expect, onTestFinished, test } from 'vitest'
import { parsePrometheusText } from '../../src/core/server/metrics/index.ts'
import { detectDialect } from '../../src/core/server/metrics/index.ts'
import { startSimulator } from '../../src/sim/index.ts'
import type { RunningSimulator, SimulatorOptions } from '../../src/sim/index.ts'
import { formatPrometheusNumber } from '../../src/sim/prometheus-text.ts'
import { chatBody, eventJson, post } from '../helpers/sim-test-client.ts'

async function started(options: SimulatorOptions): Promise<RunningSimulator> {
  const sim = await startSimulator(options)
  onTestFinished(() => sim.close())
  return sim
}

/** One sample line, as read by the line check below. */
interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** A scrape, checked line by line against the text format 0.0.4 as prometheus_client writes it. */
interface Scrape {
  samples: Sample[]
  /** Family name to its declared type. */
  types: Map<string, string>
  /** Family name to its help text. */
  help: Map<string, string>
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*'
const HELP_LINE = new RegExp(`^# HELP (${NAME}) (.+)$`)
const TYPE_LINE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram)$`)
const SAMPLE_LINE = new RegExp(`^(${NAME})\\{((?:[a-zA-Z_][a-zA-Z0-9_]*="[^"\\\\\\n]*",?)*)\\} (\\S+)$`)
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g
const VALUE = /^([-+]?\d+\.\d+(e[-+]\d+)?|[-+]?\d(\.\d+)?e[-+]\d+|\+Inf|-Inf|NaN)$/

/**
 * Not a parser: asserts every line is a HELP, a TYPE (right after its HELP) or a sample of the
 * family declared last, with a Python-style float value, and collects the samples.
 */
function checkLines(text: string): Scrape {
  expect(text.endsWith('\n')).toBe(true)
  const scrape: Scrape = { samples: [], types: new Map(), help: new Map() }
  let family: string | undefined
  let pendingHelp: string | undefined
  for (const line of text.slice(0, -1).split('\n')) {
    const help = HELP_LINE.exec(line)
    const type = TYPE_LINE.exec(line)
    const sample = SAMPLE_LINE.exec(line)
    if (help) {
      expect(pendingHelp, `HELP without TYPE before: ${line}`).toBeUndefined()
      pendingHelp = help[1]
      scrape.help.set(help[1] ?? '', help[2] ?? '')
    } else if (type) {
      expect(type[1], `TYPE right after its HELP: ${line}`).toBe(pendingHelp)
      expect(scrape.types.has(type[1] ?? ''), `family declared twice: ${line}`).toBe(false)
      pendingHelp = undefined
      family = type[1]
      scrape.types.set(family ?? '', type[2] ?? '')
    } else if (sample) {
      expect(pendingHelp).toBeUndefined()
      const [, name = '', labelText = '', valueText = ''] = sample
      expect(valueText, line).toMatch(VALUE)
      const familyType = scrape.types.get(family ?? '')
      const allowed = familyType === 'histogram' ? ['_bucket', '_count', '_sum'].map((s) => `${family}${s}`) : [family]
      expect(allowed, `sample of the family declared last: ${line}`).toContain(name)
      const labels = Object.fromEntries([...labelText.matchAll(LABEL)].map((m) => [m[1] ?? '', m[2] ?? '']))
      expect(Object.keys(labels), `labels sorted: ${line}`).toEqual(Object.keys(labels).sort())
      scrape.samples.push({ name, labels, value: valueText === '+Inf' ? Infinity : Number(valueText) })
    } else {
      expect.fail(`not a HELP, TYPE or sample line: ${JSON.stringify(line)}`)
    }
  }
  return scrape
}

async function scrape(sim: RunningSimulator): Promise<Scrape> {
  const res = await fetch(`${sim.url}/metrics`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
  return checkLines(await res.text())
}

/** The one value of a family without extra labels. */
function value(s: Scrape, name: string): number {
  const found = s.samples.filter((x) => x.name === name)
  expect(found, name).toHaveLength(1)
  return found[0]?.value ?? NaN
}

function histogram(
  s: Scrape,
  name: string,
): { buckets: Array<{ le: string; count: number }>; count: number; sum: number } {
  return {
    buckets: s.samples
      .filter((x) => x.name === `${name}_bucket`)
      .map((x) => ({ le: x.labels.le ?? '', count: x.value })),
    count: value(s, `${name}_count`),
    sum: value(s, `${name}_sum`),
  }
}

const COUNTERS = [
  'vllm:prompt_tokens_total',
  'vllm:generation_tokens_total',
  'vllm:request_success_total',
  'vllm:num_preemptions_total',
  'vllm:prefix_cache_queries_total',
  'vllm:prefix_cache_hits_total',
]
const GAUGES = ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc']
const HISTOGRAMS = [
  'vllm:time_to_first_token_seconds',
  'vllm:inter_token_latency_seconds',
  'vllm:e2e_request_latency_seconds',
  'vllm:request_queue_time_seconds',
  'vllm:request_inference_time_seconds',
  'vllm:request_prefill_time_seconds',
  'vllm:request_decode_time_seconds',
]
const SPEC_DECODE = [
  'vllm:spec_decode_num_drafts_total',
  'vllm:spec_decode_num_draft_tokens_total',
  'vllm:spec_decode_num_accepted_tokens_total',
  'vllm:spec_decode_num_accepted_tokens_per_pos_total',
]

/** usage of a streamed response with include_usage, or of a JSON body. */
function usageOf(res: { events: Array<{ data: string }>; text: string; headers: Headers }): {
  prompt_tokens: number
  completion_tokens: number
} {
  if (res.headers.get('content-type')?.startsWith('application/json'))
    return (JSON.parse(res.text) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage
  const chunk = eventJson(res as never).at(-1) as { usage?: { prompt_tokens: number; completion_tokens: number } }
  if (!chunk.usage) throw new Error('no usage chunk')
  return chunk.usage
}

/** finish_reason of a streamed or JSON response. */
function finishReasonOf(res: { events: Array<{ data: string }>; text: string; headers: Headers }): string {
  if (res.headers.get('content-type')?.startsWith('application/json'))
    return (JSON.parse(res.text) as { choices: Array<{ finish_reason: string }> }).choices[0]?.finish_reason ?? ''
  const chunks = eventJson(res as never) as Array<{ choices: Array<{ finish_reason: string | null }> }>
  return chunks.map((c) => c.choices[0]?.finish_reason).find((r) => typeof r === 'string') ?? ''
}

describe('GET /metrics', () => {
  test('Prometheus text 0.0.4: every vLLM family with HELP and TYPE, labels model_name and engine, counters in _total, _created beside them', async () => {
    const sim = await started({ speedFactor: 0, model: 'org/sim-model' })
    const s = await scrape(sim)
    for (const name of COUNTERS) expect(s.types.get(name), name).toBe('counter')
    for (const name of GAUGES) expect(s.types.get(name), name).toBe('gauge')
    for (const name of HISTOGRAMS) expect(s.types.get(name), name).toBe('histogram')
    for (const name of SPEC_DECODE) expect(s.types.has(name), `${name} only with tokensPerChunk > 1`).toBe(false)
    for (const [name, type] of s.types) {
      if (type === 'counter') expect(name).toMatch(/_total$/)
      // prometheus_client writes a gauge of series creation times after each counter and histogram.
      if (type === 'counter' || type === 'histogram')
        expect(s.types.get(`${name.replace(/_total$/, '')}_created`), name).toBe('gauge')
    }
    expect(s.help.get('vllm:num_requests_running')).toBe('Number of requests in model execution batches.')
    expect(s.help.get('vllm:prompt_tokens_total')).toBe('Number of prefill tokens processed.')
    for (const sample of s.samples) {
      expect(sample.labels.engine, sample.name).toBe('0')
      expect(sample.labels.model_name, sample.name).toBe('org/sim-model')
    }
    expect(
      s.samples.filter((x) => x.name === 'vllm:request_success_total').map((x) => x.labels.finished_reason),
    ).toEqual(['stop', 'length', 'abort'])
    // Nothing has happened yet: every counter and histogram is at zero.
    for (const name of COUNTERS) for (const x of s.samples.filter((y) => y.name === name)) expect(x.value, name).toBe(0)
    for (const name of HISTOGRAMS) expect(histogram(s, name).count).toBe(0)
  })

  test('label values are escaped: a quote or backslash in the model name', async () => {
    const sim = await started({ speedFactor: 0, model: 'org/sim "quoted" \\ model' })
    const raw = await (await fetch(`${sim.url}/metrics`)).text()
    expect(raw).toContain('vllm:num_requests_running{engine="0",model_name="org/sim \\"quoted\\" \\\\ model"} 0.0\n')
  })

  test("the project's own reader takes it whole and recognises vLLM", async () => {
    const sim = await started({ speedFactor: 0, tokensPerChunk: 3 })
    await post(`${sim.url}/v1/chat/completions`, chatBody('a b c', { max_tokens: 5, ignore_eos: true }))
    const exposition = parsePrometheusText(await (await fetch(`${sim.url}/metrics`)).text())
    expect(exposition.invalidLines).toBe(0)
    expect(detectDialect(exposition)?.marker.source).toBe('^vllm:')
    expect(exposition.samples('vllm:generation_tokens_total')[0]?.value).toBe(5)
  })

  test('served without the API key (as vLLM), GET only', async () => {
    const sim = await started({ speedFactor: 0, apiKey: 'secret' })
    expect((await fetch(`${sim.url}/v1/models`)).status).toBe(401)
    expect((await fetch(`${sim.url}/metrics`)).status).toBe(200)
    const post = await fetch(`${sim.url}/metrics`, { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET')
  })

  test('token counters equal the usage the clients got; counters only grow; metrics() agrees with the text', async () => {
    const sim = await started({ speedFactor: 0, recordSchedule: true })
    const before = await scrape(sim)
    const first = await Promise.all([
      post(`${sim.url}/v1/chat/completions`, chatBody('one two three', { max_tokens: 9 })),
      post(
        `${sim.url}/v1/chat/completions`,
        chatBody('a much longer prompt with averyveryverylongword', { max_tokens: 17 }),
      ),
      post(`${sim.url}/v1/completions`, {
        prompt: [1, 2, 3, 4, 5],
        max_tokens: 4,
        ignore_eos: true,
        stream: true,
        stream_options: { include_usage: true },
      }),
    ])
    const middle = await scrape(sim)
    const second = await Promise.all([
      post(`${sim.url}/v1/completions`, { prompt: 'json body please', max_tokens: 12 }),
      post(`${sim.url}/v1/chat/completions`, chatBody('x', { max_tokens: 3, ignore_eos: true })),
    ])
    const after = await scrape(sim)

    const usages = [...first, ...second].map(usageOf)
    const sum = (f: (u: { prompt_tokens: number; completion_tokens: number }) => number) =>
      usages.reduce((t, u) => t + f(u), 0)
    expect(value(after, 'vllm:generation_tokens_total')).toBe(sum((u) => u.completion_tokens))
    expect(value(after, 'vllm:prompt_tokens_total')).toBe(sum((u) => u.prompt_tokens))
    expect(value(middle, 'vllm:generation_tokens_total')).toBe(
      first.map(usageOf).reduce((t, u) => t + u.completion_tokens, 0),
    )

    const reasons = [...first, ...second].map(finishReasonOf)
    expect(new Set(reasons)).toEqual(new Set(['stop', 'length']))
    const success = (s: typeof after, reason: string) =>
      s.samples.find((x) => x.name === 'vllm:request_success_total' && x.labels.finished_reason === reason)?.value
    expect(success(after, 'length')).toBe(reasons.filter((r) => r === 'length').length)
    expect(success(after, 'stop')).toBe(reasons.filter((r) => r === 'stop').length)
    expect(value(after, 'vllm:num_preemptions_total')).toBe(0)
    // Prefix caching is off: no queries are counted.
    expect(value(after, 'vllm:prefix_cache_queries_total')).toBe(0)

    const key = (x: Sample) => `${x.name}${JSON.stringify(x.labels)}`
    for (const [earlier, later] of [
      [before, middle],
      [middle, after],
    ] as const) {
      const previous = new Map(earlier.samples.map((x) => [key(x), x.value]))
      for (const x of later.samples) {
        const kind = later.types.get(x.name) ?? later.types.get(x.name.replace(/_(bucket|count|sum)$/, ''))
        if (kind === 'counter' || kind === 'histogram')
          expect(x.value, key(x)).toBeGreaterThanOrEqual(previous.get(key(x)) ?? NaN)
      }
    }

    const m = sim.metrics()
    expect(m.generationTokens).toBe(value(after, 'vllm:generation_tokens_total'))
    expect(m.promptTokens).toBe(value(after, 'vllm:prompt_tokens_total'))
    expect(m.requestSuccess.stop + m.requestSuccess.length).toBe(5)
    expect(m.timeToFirstToken.count).toBe(5)
    expect(m.specDecode).toBeUndefined()
  })

  test('histograms: cumulative buckets on vLLM bounds, +Inf equals _count, sums match the schedule', async () => {
    const sim = await started({
      prefillBaseMs: 1,
      prefillMsPerToken: 0,
      decodeBaseMs: 2,
      decodeMsPerSequence: 0,
      maxRunningSequences: 2,
      recordSchedule: true,
    })
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        post(`${sim.url}/v1/chat/completions`, chatBody(`h ${i}`, { max_tokens: 6, ignore_eos: true })),
      ),
    )
    const s = await scrape(sim)
    for (const name of HISTOGRAMS) {
      const h = histogram(s, name)
      expect(h.buckets.at(-1)?.le, name).toBe('+Inf')
      expect(h.buckets.at(-1)?.count, name).toBe(h.count)
      const bounds = h.buckets.slice(0, -1).map((b) => Number(b.le))
      expect(bounds, name).toEqual([...bounds].sort((a, b) => a - b))
      for (let i = 1; i < h.buckets.length; i++)
        expect(h.buckets[i]?.count, name).toBeGreaterThanOrEqual(h.buckets[i - 1]?.count ?? NaN)
      expect(h.sum, name).toBeGreaterThan(0)
    }
    const les = (name: string) => histogram(s, name).buckets.map((b) => b.le)
    expect(les('vllm:time_to_first_token_seconds').slice(0, 4)).toEqual(['0.001', '0.005', '0.01', '0.02'])
    expect(les('vllm:time_to_first_token_seconds').slice(-3)).toEqual(['640.0', '2560.0', '+Inf'])
    expect(les('vllm:inter_token_latency_seconds').slice(0, 2)).toEqual(['0.01', '0.025'])
    expect(les('vllm:e2e_request_latency_seconds').slice(0, 3)).toEqual(['0.1', '0.2', '0.3'])
    expect(les('vllm:e2e_request_latency_seconds').slice(-2)).toEqual(['7680.0', '+Inf'])

    const schedule = sim.schedule
    const total = (f: (e: (typeof schedule)[number]) => number) => schedule.reduce((t, e) => t + f(e), 0) / 1000
    const first = (e: (typeof schedule)[number]) => e.firstTokenAt ?? NaN
    const last = (e: (typeof schedule)[number]) => e.finishedAt ?? NaN
    const admitted = (e: (typeof schedule)[number]) => e.prefillStartedAt ?? NaN
    expect(histogram(s, 'vllm:time_to_first_token_seconds').count).toBe(5)
    expect(histogram(s, 'vllm:time_to_first_token_seconds').sum).toBeCloseTo(
      total((e) => first(e) - e.arrivedAt),
      9,
    )
    expect(histogram(s, 'vllm:e2e_request_latency_seconds').sum).toBeCloseTo(
      total((e) => last(e) - e.arrivedAt),
      9,
    )
    expect(histogram(s, 'vllm:request_queue_time_seconds').sum).toBeCloseTo(
      total((e) => admitted(e) - e.arrivedAt),
      9,
    )
    expect(histogram(s, 'vllm:request_prefill_time_seconds').sum).toBeCloseTo(
      total((e) => first(e) - admitted(e)),
      9,
    )
    expect(histogram(s, 'vllm:request_decode_time_seconds').sum).toBeCloseTo(
      total((e) => last(e) - first(e)),
      9,
    )
    expect(histogram(s, 'vllm:request_inference_time_seconds').sum).toBeCloseTo(
      total((e) => last(e) - admitted(e)),
      9,
    )
    // One inter-token gap per chunk after the first: 5 requests × 5 gaps.
    const itl = histogram(s, 'vllm:inter_token_latency_seconds')
    expect(itl.count).toBe(25)
    expect(itl.sum).toBeCloseTo(
      total((e) => last(e) - first(e)),
      9,
    )
    // With 2 slots, the last three were admitted only once an earlier request had finished: their queue time is real waiting.
    const firstFinish = Math.min(...schedule.map(last))
    expect(schedule.filter((e) => admitted(e) >= firstFinish)).toHaveLength(3)
  })

  test('a request that fails mid-stream counts its tokens but no success and no per-request histogram', async () => {
    const sim = await started({ speedFactor: 0, faults: { errorEventRate: 1 } })
    const res = await post(`${sim.url}/v1/chat/completions`, chatBody('fail me', { max_tokens: 10, ignore_eos: true }))
    expect(res.text).toContain('"error"')
    const m = sim.metrics()
    // The fault strikes after half the chunks.
    expect(m.generationTokens).toBe(5)
    expect(m.promptTokens).toBe(2)
    expect(m.timeToFirstToken.count).toBe(1)
    expect(m.requestSuccess).toEqual({ stop: 0, length: 0 })
    expect(m.e2eRequestLatency.count).toBe(0)
    expect(m.requestQueueTime.count).toBe(0)
  })

  test('gauges: 6 slow requests on 2 slots show running 2, waiting 4 and the KV blocks they hold; all 0 afterwards', async () => {
    // 10 blocks of 16 tokens: each running request (2 prompt tokens + at most 8 output) holds one block.
    const sim = await started({
      maxRunningSequences: 2,
      prefillBaseMs: 0,
      prefillMsPerToken: 0,
      decodeBaseMs: 15,
      decodeMsPerSequence: 0,
      kvCacheTokens: 160,
    })
    const done = Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(`${sim.url}/v1/chat/completions`, chatBody(`slow ${i}`, { max_tokens: 8, ignore_eos: true })),
      ),
    )
    // The first arrival starts a step alone; the second joins at the next step, 15 ms on.
    const full = () => sim.stats().running === 2 && sim.stats().queued === 4
    for (let i = 0; i < 500 && !full(); i++) await new Promise((r) => setTimeout(r, 1))
    const during = await scrape(sim)
    expect(value(during, 'vllm:num_requests_running')).toBe(2)
    expect(value(during, 'vllm:num_requests_waiting')).toBe(4)
    expect(value(during, 'vllm:kv_cache_usage_perc')).toBeCloseTo(0.2, 12)
    await done
    const after = await scrape(sim)
    expect(value(after, 'vllm:num_requests_running')).toBe(0)
    expect(value(after, 'vllm:num_requests_waiting')).toBe(0)
    expect(value(after, 'vllm:kv_cache_usage_perc')).toBe(0)
    expect(value(after, 'vllm:generation_tokens_total')).toBe(48)
  })

  test('KV usage counts ceil((prompt + emitted) / blockTokens) blocks per running sequence', async () => {
    // One request of 40 prompt tokens on 8-token blocks, 80 tokens of capacity: 5 blocks at the first token, 6 after 8 more.
    const sim = await started({
      prefillBaseMs: 0,
      prefillMsPerToken: 0,
      decodeBaseMs: 20,
      decodeMsPerSequence: 0,
      blockTokens: 8,
      kvCacheTokens: 80,
    })
    const usage: number[] = []
    await post(
      `${sim.url}/v1/completions`,
      { prompt: Array.from({ length: 40 }, (_, i) => i), max_tokens: 12, ignore_eos: true, stream: true },
      { onEvent: () => usage.push(sim.metrics().kvCacheUsage) },
    )
    // Read as each chunk arrives (20 ms apart): 41..48 tokens are 6 blocks, 49..51 are 7, after the last the sequence holds none.
    expect(usage).toEqual([...Array<number>(8).fill(0.6), 0.7, 0.7, 0.7, 0, 0])
    expect(sim.metrics().kvCacheUsage).toBe(0)
  })

  test('spec-decode counters with tokensPerChunk 4: a draft per chunk after the first, k − 1 draft tokens, chunk − 1 accepted', async () => {
    const sim = await started({ speedFactor: 0, tokensPerChunk: 4 })
    // 10 tokens in chunks of 4, 4, 2: two drafts per request, accepting 3 and 1.
    await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        post(`${sim.url}/v1/chat/completions`, chatBody(`spec ${i}`, { max_tokens: 10, ignore_eos: true })),
      ),
    )
    const s = await scrape(sim)
    expect(value(s, 'vllm:spec_decode_num_drafts_total')).toBe(6)
    expect(value(s, 'vllm:spec_decode_num_draft_tokens_total')).toBe(18)
    expect(value(s, 'vllm:spec_decode_num_accepted_tokens_total')).toBe(12)
    const perPosition = s.samples.filter((x) => x.name === 'vllm:spec_decode_num_accepted_tokens_per_pos_total')
    expect(perPosition.map((x) => [x.labels.position, x.value])).toEqual([
      ['0', 6],
      ['1', 3],
      ['2', 3],
    ])
    expect(value(s, 'vllm:generation_tokens_total')).toBe(30)
    expect(histogram(s, 'vllm:inter_token_latency_seconds').count).toBe(6)
    expect(sim.metrics().specDecode).toEqual({
      drafts: 6,
      draftTokens: 18,
      acceptedTokens: 12,
      acceptedTokensPerPosition: [6, 3, 3],
    })
  })
})

describe('numbers as prometheus_client writes them', () => {
  test.each([
    [0, '0.0'],
    [1, '1.0'],
    [48, '48.0'],
    [2.5, '2.5'],
    [0.001, '0.001'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [6.103515625e-5, '6.103515625e-05'],
    [0.1 + 0.2, '0.30000000000000004'],
    [123456, '123456.0'],
    [1234567, '1.234567e+06'],
    [10_000_000, '1e+07'],
    [1767225600, '1.7672256e+09'],
    [1e16, '1e+16'],
    [-1.5, '-1.5'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [NaN, 'NaN'],
  ])('%s → %s', (n, text) => {
    expect(formatPrometheusNumber(n)).toBe(text)
  })
})
