import { Agent, createServer, get } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipWhenDisturbed } from '../helpers/busy-machine.ts'
import { runBenchmark } from '../../src/core/run.ts'
import { startRefusingServer } from '../helpers/refusing-server.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import type { BenchmarkOptions } from '../../src/core/contract/options.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'
import { closedPort } from '../fixtures/sse/scripted-server.ts'

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}

/** Round trips (ms) of `GET /health` on one kept-alive connection: the loopback cost of a request
 * and its answer on this machine, now, with nothing of the benchmark client in between. */
const healthRoundTrips = async (url: string, count: number): Promise<number[]> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now()
      get(`${url}/health`, { agent }, (response) => {
        response.resume()
        response.on('end', () => resolve(performance.now() - started))
      }).on('error', reject)
    })
  try {
    const trips: number[] = []
    for (let i = 0; i < count + 2; i++) {
      const trip = await once()
      if (i >= 2) trips.push(trip)
    }
    return trips
  } finally {
    agent.destroy()
  }
}

describe('runBenchmark against the simulator', () => {
  let sim: RunningSimulator
  beforeAll(async () => {
    sim = await startSimulator({
      recordSchedule: true,
      seed: 7,
      prefillBaseMs: 15,
      decodeBaseMs: 4,
      decodeMsPerSequence: 0.5,
    })
  })
  afterAll(async () => {
    await sim.close()
  })

  it('measures TTFT within a loopback round trip (+1 ms) and TPOT within 1 ms of what the simulator did, at concurrency 1', async (ctx) => {
    sim.schedule.length = 0
    const result = await runBenchmark(
      {
        target: { baseUrl: sim.url },
        workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 24 } },
        load: { concurrency: 1, requests: 30 },
        // The first request of a connection also waits for TCP connect, which the simulator never sees.
        warmup: { requests: 2 },
        recordRequests: true,
        seed: 1,
        // The simulator runs in this process: rendering and parsing a scrape (about 0.6 ms) would
        // delay an event by that much once a second, on a bound of 1 ms. A server in its own
        // process costs the client only the parse.
        serverMetrics: false,
      },
      { skipGpu: true },
    )
    expect(result.counts).toEqual({ total: 30, completed: 30, failed: 0 })
    const records = result.requests as RequestRecord[]
    // Before them: the idle streaming probe's request(s), then the 2 warm-up requests.
    const entries = sim.schedule
      .filter((entry) => entry.fault === undefined)
      .slice((result.streaming.probeRequests ?? 0) + 2)
    expect(entries).toHaveLength(30)
    // At concurrency 1 the requests are sequential: the n-th record is the n-th arrival.
    const ttftDiff: number[] = []
    const tpotDiff: number[] = []
    records.forEach((record, i) => {
      const entry = entries[i]!
      const simTtft = entry.firstTokenAt! - entry.arrivedAt
      const simE2e = entry.chunkTimes.at(-1)! - entry.arrivedAt
      const simTpot = (simE2e - simTtft) / (entry.tokenTimes.length - 1)
      const ttft = record.firstTokenAt! - record.sentAt
      const tpot = (record.endAt - record.firstTokenAt!) / (record.outputTokens - 1)
      expect(record.outputTokens).toBe(entry.tokenTimes.length)
      ttftDiff.push(ttft - simTtft)
      tpotDiff.push(tpot - simTpot)
    })
    // The client can only see an event after the simulator wrote it: differences are >= 0.
    expect(Math.min(...ttftDiff)).toBeGreaterThanOrEqual(0)
    // Sub-millisecond bounds are a quiet machine's: on a disturbed one (the self-check says so) they are not asserted.
    skipWhenDisturbed(ctx, result)
    // TTFT adds the request's trip to the server and the first event's trip back (client and
    // simulator share one event loop here). The reference is a bare round trip (`GET /health`)
    // measured right after, on this machine, now: on the 2-core development machine TTFT exceeded
    // the simulator's by 0.76-0.90 ms at the median where the round trip took 0.12-0.33 ms (the
    // rest: a POST body, SSE headers, the first event in a write of its own), and a busy CI machine
    // measured 1.09 ms once, so a fixed 1 ms bound failed there. Asserted: at most 1 ms more than
    // the round trip at the median, 1.5 ms more at the 90th percentile. A client that timed TTFT
    // after parsing a whole response, or before its connection was ready, adds more.
    const trips = (await healthRoundTrips(sim.url, 30)).sort((a, b) => a - b)
    const sorted = [...ttftDiff].sort((a, b) => a - b)
    expect(median(ttftDiff)).toBeLessThan(median(trips) + 1)
    expect(sorted[26]).toBeLessThan(trips[26]! + 1.5)
    for (const d of tpotDiff) expect(Math.abs(d)).toBeLessThan(1)
    // The summary is built from the same records.
    expect(result.metrics.ttftMs.count).toBe(30)
    expect(result.metrics.tpotMs.count).toBe(30)
    expect(result.metrics.outputTokens.mean).toBe(24)
    expect(result.streaming.streamed).toBe(true)
    expect(result.environment.server.model).toBe('sim-model')
    expect(result.timeline?.requests.reduce((a, b) => a + b, 0)).toBe(30)
  })

  it('reports a buffering server as not streamed instead of inventing a TTFT', async () => {
    const buffered = await startSimulator({ bufferMode: 'json', decodeBaseMs: 1, prefillBaseMs: 1 })
    try {
      const result = await runBenchmark(
        {
          target: { baseUrl: buffered.url },
          workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
          load: { concurrency: 2, requests: 10 },
        },
        { skipGpu: true },
      )
      expect(result.counts.completed).toBe(10)
      expect(result.streaming.streamed).toBe(false)
      expect(result.streaming.nonSseRequests).toBe(10)
      expect(result.metrics.ttftMs.count).toBe(0)
      expect(result.metrics.itlMs.count).toBe(0)
      expect(result.metrics.e2eMs.count).toBe(10)
      expect(result.streaming.note).toMatch(/not reported/)
    } finally {
      await buffered.close()
    }
  })

  it('counts injected faults as typed failures, outside every latency distribution', async () => {
    const faulty = await startSimulator({
      seed: 3,
      decodeBaseMs: 1,
      prefillBaseMs: 1,
      faults: { httpErrorRate: 0.2, httpErrorStatus: 500, errorEventRate: 0.1 },
    })
    try {
      const result = await runBenchmark(
        {
          target: { baseUrl: faulty.url },
          workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
          load: { concurrency: 4, requests: 60 },
        },
        { skipGpu: true },
      )
      const kinds = new Set(result.errors.map((e) => e.kind))
      expect(result.counts.failed).toBeGreaterThan(0)
      expect(result.counts.completed + result.counts.failed).toBe(60)
      expect(kinds).toEqual(new Set(['http', 'stream-error']))
      expect(result.metrics.e2eMs.count).toBe(result.counts.completed)
      expect(result.errors.reduce((sum, e) => sum + e.count, 0)).toBe(result.counts.failed)
    } finally {
      await faulty.close()
    }
  })

  it('warns when the output is more than 5 % shorter than requested, and names ignoreEos', async () => {
    // Without ignore_eos the simulator stops each request uniformly within [max_tokens / 2, max_tokens]: about 25 % short.
    const quick = await startSimulator({ seed: 5, speedFactor: 0 })
    try {
      const run = (ignoreEos: boolean) =>
        runBenchmark(
          {
            target: { baseUrl: quick.url },
            workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 32 }, ignoreEos },
            load: { concurrency: 4, requests: 40 },
          },
          { skipGpu: true },
        )
      const stopped = await run(false)
      const warning = stopped.warnings.find((w) => w.startsWith('Output was '))
      expect(stopped.metrics.outputTokens.mean).toBeLessThan(32 * 0.95)
      expect(warning).toMatch(
        /^Output was \d+% shorter than requested \([\d.]+ vs 32\.0 tokens\): the model stopped early\. Set `workload\.ignoreEos: true`/,
      )
      const forced = await run(true)
      expect(forced.metrics.outputTokens.mean).toBe(32)
      expect(forced.warnings.some((w) => w.startsWith('Output was '))).toBe(false)
    } finally {
      await quick.close()
    }
  })

  it('keeps the API key out of the result', async () => {
    const keyed = await startSimulator({ apiKey: 'sk-test-secret-123', decodeBaseMs: 1, prefillBaseMs: 1 })
    try {
      const result = await runBenchmark(
        {
          target: { baseUrl: keyed.url, apiKey: 'sk-test-secret-123', headers: { 'x-api-key': 'sk-test-secret-123' } },
          workload: { kind: 'prompts', prompts: ['hello there'], maxTokens: 4 },
          load: { concurrency: 1, requests: 3 },
        },
        { skipGpu: true },
      )
      expect(result.counts.completed).toBe(3)
      expect(JSON.stringify(result)).not.toContain('sk-test-secret-123')
    } finally {
      await keyed.close()
    }
  })

  const tool = { type: 'function', function: { name: 'f' } }
  const base: BenchmarkOptions = {
    target: { baseUrl: 'http://127.0.0.1:1' },
    workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
    load: { concurrency: 1, requests: 1 },
  }
  it.each([
    ['target', { ...base, target: undefined }],
    ['load.rate', { ...base, load: { rate: 0, requests: 5 } }],
    ['load.rate', { ...base, load: { rate: -3, requests: 5 } }],
    ['target.api', { ...base, target: { baseUrl: 'SIM', api: 'images' } }],
    ['target.baseUrl', { ...base, target: { baseUrl: 'SIM-WITHOUT-SCHEME' } }],
    ['workload.kind', { ...base, workload: { kind: 'csv' } }],
    ['goodput', { ...base, goodput: {} }],
    ['goodput.ttftMs', { ...base, goodput: { ttftMs: -1 } }],
    [
      'workload.tools',
      { ...base, target: { baseUrl: 'SIM', api: 'completions' }, workload: { ...base.workload, tools: [tool] } },
    ],
    ['workload.tools', { ...base, workload: { ...base.workload, tools: [] } }],
    ['workload.tools[0]', { ...base, workload: { ...base.workload, tools: [{ name: 'f' }] } }],
    [
      'workload.tools[0].function.name',
      { ...base, workload: { ...base.workload, tools: [{ type: 'function', function: {} }] } },
    ],
    [
      'workload.tools[0].function.name',
      { ...base, workload: { ...base.workload, tools: [{ type: 'function', function: { name: 'get weather' } }] } },
    ],
    ['workload.batch', { ...base, workload: { ...base.workload, batch: 4 } }],
    ['workload.outputTokens', { ...base, target: { baseUrl: 'SIM', api: 'embeddings' } }],
    ['workload.toolChoice.name', { ...base, workload: { ...base.workload, tools: [tool], toolChoice: { name: 'g' } } }],
    ['workload.toolChoice', { ...base, workload: { ...base.workload, tools: [tool], toolChoice: 'any' } }],
    ['workload.toolChoice', { ...base, workload: { ...base.workload, toolChoice: 'required' } }],
  ])('rejects a bad %s with a typed error naming it, before any request', async (option, options) => {
    const before = sim.schedule.length
    // Every case points at the simulator (a bad base URL is its address without the scheme), so a request sent by mistake would show in its schedule.
    const given = (options as BenchmarkOptions).target
    const baseUrl = given?.baseUrl === 'SIM-WITHOUT-SCHEME' ? sim.url.replace(/^http:\/\//, '') : sim.url
    const error = await runBenchmark({
      ...(options as BenchmarkOptions),
      target: given ? { ...given, baseUrl } : (undefined as never),
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OptionsError)
    expect((error as OptionsError).option).toBe(option)
    const message = (error as Error).message
    expect(message).toMatch(new RegExp(`\`${option.replace(/[.[\]]/g, '\\$&')}\``))
    // What to do next: after the problem, a sentence that says what to give instead.
    expect(message).toMatch(/\. (Give|Set|Use|Say|Leave|Pass|Start|Remove|Add) /)
    expect(sim.schedule.length).toBe(before)
  })
})

describe('a target with nothing listening', () => {
  it('fails in seconds, not after the 30 s readiness wait, and says what to do', async () => {
    const port = await closedPort()
    const started = performance.now()
    const error = await runBenchmark(
      {
        target: { baseUrl: `http://127.0.0.1:${port}` },
        workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
        load: { concurrency: 1, requests: 1 },
      },
      { skipGpu: true },
    ).catch((e: unknown) => e)
    const seconds = (performance.now() - started) / 1000
    expect(seconds).toBeLessThan(10)
    expect((error as Error).message).toMatch(
      new RegExp(`^Nothing listens at http://127\\.0\\.0\\.1:${port}: the connection was refused for 2000 ms`),
    )
    expect((error as Error).message).toContain(
      'use `server: connect(baseUrl, { readyTimeoutMs })` in place of `target`.',
    )
  })
})

describe('a server that does not serve target.api', () => {
  it('stops after the first request with an error naming target.api, and sends nothing more', async () => {
    // Serves the model list (readiness) and nothing else, as a server without /v1/messages does.
    const server = await startRefusingServer(404, { detail: 'Not Found' })
    try {
      const error = await runBenchmark(
        {
          target: { baseUrl: server.baseUrl, api: 'messages' },
          workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
          load: { concurrency: 2, requests: 20 },
        },
        { skipGpu: true },
      ).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(OptionsError)
      expect((error as OptionsError).option).toBe('target.api')
      expect((error as Error).message).toContain(`POST ${server.baseUrl}/v1/messages: HTTP 404: Not Found.`)
      expect((error as Error).message).toContain('No request was measured. Use an API the server serves')
      // The probe's first request, and no warm-up or measured request after it.
      expect(server.posts).toBe(1)
    } finally {
      await server.close()
    }
  })
})

describe('workload.tools', () => {
  it.each([1, 2])(
    'every request offers the tools (workers: %i); the tool-call replies are output and counted',
    async (workers) => {
      // Answers every completion with a tool call streamed as vLLM streams one.
      const bodies: Array<Record<string, unknown>> = []
      const chunk = (delta: unknown, finish: string | null = null) =>
        `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      const server = createServer((req, res) => {
        let text = ''
        req.on('data', (part: Buffer) => (text += part.toString()))
        req.on('end', () => {
          if (req.url === '/v1/models') {
            res.writeHead(200, { 'content-type': 'application/json' })
            res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }))
            return
          }
          if (req.method !== 'POST') {
            res.writeHead(404)
            res.end()
            return
          }
          bodies.push(JSON.parse(text) as Record<string, unknown>)
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.write(chunk({ role: 'assistant', content: '' }))
          res.write(
            chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '' } }] }),
          )
          res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a": 1}' } }] }))
          res.write(chunk({}, 'tool_calls'))
          res.end(
            `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 6 } })}\n\ndata: [DONE]\n\n`,
          )
        })
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const tools = [
        { type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: {} } } },
      ]
      try {
        const { port } = server.address() as AddressInfo
        const result = await runBenchmark(
          {
            target: { baseUrl: `http://127.0.0.1:${port}` },
            workload: {
              kind: 'synthetic',
              inputTokens: { mean: 8 },
              outputTokens: { mean: 6 },
              tools,
              toolChoice: 'required',
            },
            load: { concurrency: 2, requests: 8 },
            workers,
          },
          { skipGpu: true },
        )
        expect(result.errors).toEqual([])
        expect(result.counts.completed).toBe(8)
        expect(result.streaming.toolCallRequests).toBe(8)
        // Probe, warm-up (none asked) and measured requests: every body offered the tools.
        expect(bodies.length).toBeGreaterThanOrEqual(8)
        for (const body of bodies) expect(body).toMatchObject({ tools, tool_choice: 'required' })
        // The tool call is the output: TTFT is measured at it.
        expect(result.metrics.ttftMs.count).toBe(8 - result.streaming.burstRequests)
        // The tools are part of what the bench measured: they are in its identity.
        expect(result.config).toMatchObject({ workload: { tools, toolChoice: 'required' } })
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()))
      }
    },
  )
})
