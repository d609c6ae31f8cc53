import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runBenchmark } from '../../src/core/run.ts'
import {
  BENCHMARK_RESULT_SCHEMA,
  BENCHMARK_RESULT_SCHEMA_ID,
  JsonSchemaValidator,
} from '../../src/core/contract/json-schema/index.ts'
import type { BenchmarkOptions, LoadOptions, Progress } from '../../src/core/contract/options.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { startSimulator } from '../../src/sim/index.ts'
import { skipWhenDisturbed } from '../helpers/busy-machine.ts'
import { runBench } from '../../src/bench/run-bench.ts'
import type { BenchLlmOptions } from '../../src/bench/bench-options.ts'

/**
 * A chat server that streams a short reply (5 chunks 10 ms apart, with usage) until `failFrom` chat
 * requests have arrived, and answers HTTP 500 after 100 ms from then on (a struggling server). It
 * records, on this process's `performance.now()` clock, when it sent its first 500 and when the
 * last chat request arrived, and how many requests are open now.
 */
interface HalfwayFailingServer {
  url: string
  /** Chat requests from which on (1-based) the answer is 500; Infinity: never. */
  failFrom: number
  chatRequests: number
  first500At: number | undefined
  lastArrivalAt: number | undefined
  open: number
  server: Server
}

const chunk = (content: string) =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`

async function startHalfwayFailingServer(): Promise<HalfwayFailingServer> {
  const state = {
    failFrom: Infinity,
    chatRequests: 0,
    first500At: undefined,
    lastArrivalAt: undefined,
    open: 0,
  } as Omit<HalfwayFailingServer, 'url' | 'server'>
  const server = createServer((req, res) => {
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }))
      return
    }
    if (req.method !== 'POST') {
      res.writeHead(req.url === '/health' ? 200 : 404)
      res.end()
      return
    }
    state.chatRequests++
    state.lastArrivalAt = performance.now()
    state.open++
    res.on('close', () => state.open--)
    res.on('error', () => {})
    req.resume()
    const timers: Array<ReturnType<typeof setTimeout>> = []
    res.on('close', () => timers.forEach(clearTimeout))
    if (state.chatRequests >= state.failFrom) {
      timers.push(
        setTimeout(() => {
          state.first500At ??= performance.now()
          res.writeHead(500, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }))
        }, 100),
      )
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (let i = 0; i < 5; i++) timers.push(setTimeout(() => res.write(chunk(`t${i} `)), 10 * (i + 1)))
    timers.push(
      setTimeout(() => {
        res.end(
          `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 8, completion_tokens: 5 } })}\n\ndata: [DONE]\n\n`,
        )
      }, 60),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(state, { url: `http://127.0.0.1:${port}`, server })
}

const validator = new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA])
const schemaErrors = (result: BenchmarkResult) =>
  validator.validate(BENCHMARK_RESULT_SCHEMA_ID, JSON.parse(JSON.stringify(result)))

function optionsFor(url: string, load: LoadOptions, extra: Partial<BenchmarkOptions> = {}): BenchmarkOptions {
  return {
    target: { baseUrl: url, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 5 } },
    load,
    serverMetrics: false,
    recordRequests: true,
    ...extra,
  }
}

/** Polls until the server has no request open (the client's cancellations reach it over the socket), at most 2 s. */
async function openAfterSettling(server: HalfwayFailingServer): Promise<number> {
  for (let i = 0; i < 40 && server.open > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  return server.open
}

describe('stopWhen against a server that starts answering HTTP 500 half-way', () => {
  let server: HalfwayFailingServer
  beforeAll(async () => {
    server = await startHalfwayFailingServer()
  })
  afterAll(async () => {
    server.server.closeAllConnections()
    await new Promise((resolve) => server.server.close(resolve))
  })

  const loads: Array<[string, LoadOptions]> = [
    ['closed loop', { concurrency: 4, requests: 600 }],
    ['open loop with rampUp', { rate: 60, requests: 900, rampUp: { from: 20, durationMs: 1_500 } }],
  ]
  for (const [name, load] of loads) {
    test(`${name}: errorRate 0.5 for 2 s ends the load within forMs + 1 s of the first 500, and says so`, async (ctx) => {
      server.chatRequests = 0
      server.first500At = undefined
      // The probe is request 1 (or the first few): the measured load fails from about its 150th request on,
      // half-way in time.
      server.failFrom = 151
      const progress: Progress[] = []
      const result = await runBenchmark(
        optionsFor(server.url, load, {
          stopWhen: { errorRate: 0.5, forMs: 2_000 },
          onProgress: (p) => progress.push(p),
        }),
      )
      const { stopped } = result
      expect(stopped).toBeDefined()
      if (!stopped || server.first500At === undefined || server.lastArrivalAt === undefined) return
      expect(stopped.reason).toMatch(/^error rate \d+(\.\d)? % > 50 % \(\d+ of \d+ requests in the last 1 s\)$/)
      expect(stopped.expected).toBe(false)
      // It held for forMs before the stop.
      expect(stopped.atMs - stopped.conditionSinceMs).toBeGreaterThanOrEqual(2_000)
      // On the one monotonic clock: the first measured dispatch is the earliest sentAt.
      const firstDispatch = Math.min(...(result.requests ?? []).map((r) => r.sentAt))
      const stopAt = firstDispatch + stopped.atMs
      const afterFirst500 = stopAt - server.first500At
      console.log(
        `${name}: stopped ${afterFirst500.toFixed(0)} ms after the first 500 (condition from ` +
          `${(firstDispatch + stopped.conditionSinceMs - server.first500At).toFixed(0)} ms), ` +
          `last request arrived ${(server.lastArrivalAt - server.first500At).toFixed(0)} ms after it; ` +
          `${result.counts.total} sent of ${load.requests}; ${stopped.inFlightCancelled} cancelled; ${stopped.reason}`,
      )
      // The condition cannot hold before the first failure.
      expect(afterFirst500).toBeGreaterThanOrEqual(2_000)
      // Fewer requests than planned; every one accounted for; the ones in flight cancelled; none left open.
      expect(result.counts.total).toBeLessThan(load.requests as number)
      expect(result.counts.total).toBe(result.counts.completed + result.counts.failed)
      expect(result.requests).toHaveLength(result.counts.total)
      // Every request before the 151st (the idle probe's included) was answered, and completed.
      expect(result.counts.completed).toBe(150 - (result.streaming.probeRequests ?? 1))
      const cancelled = result.errors.find((e) => e.kind === 'cancelled')?.count ?? 0
      expect(stopped.inFlightCancelled).toBeGreaterThan(0)
      expect(cancelled).toBe(stopped.inFlightCancelled)
      const http = result.errors.filter((e) => e.kind === 'http').reduce((sum, e) => sum + e.count, 0)
      expect(http + cancelled).toBe(result.counts.failed)
      // The server saw the probe and every measured request, nothing after the stop.
      expect(server.chatRequests).toBe(result.counts.total + (result.streaming.probeRequests ?? 1))
      expect(await openAfterSettling(server)).toBe(0)
      // Said in the warnings (every report shows them) and on the progress line, once.
      expect(result.warnings.filter((w) => w.includes('stopped early by stopWhen'))).toEqual([
        expect.stringMatching(
          /^The load was stopped early by stopWhen at \d+\.\d s: error rate .* held since \d+\.\d s; \d+ requests? in flight were cancelled\.$/,
        ),
      ])
      expect(progress.filter((p) => p.stopping !== undefined).map((p) => p.stopping)).toEqual([stopped.reason])
      // One line about the cancelled requests (the stop's, counted from their records), not the aborted run's too.
      expect(result.warnings.join('\n')).not.toContain('because the run was aborted')
      expect(schemaErrors(result)).toEqual([])
      // Wall-clock bounds, on a quiet machine: read every 100 ms at most, and stopped within forMs + 1 s of the
      // first 500 (the 1 s window is more than half failures about 0.6 s after it, then the condition holds 2 s).
      skipWhenDisturbed(ctx, result)
      expect(stopped.atMs - stopped.conditionSinceMs).toBeLessThan(2_000 + 150)
      expect(afterFirst500).toBeLessThanOrEqual(3_000)
      expect(server.lastArrivalAt - server.first500At).toBeLessThanOrEqual(3_000)
    }, 30_000)
  }

  test('a session workload stops too: the sessions in flight are cancelled with their turn', async () => {
    server.chatRequests = 0
    server.failFrom = 101
    const result = await runBenchmark({
      ...optionsFor(server.url, { concurrency: 3, sessions: 400 }),
      workload: {
        kind: 'sessions',
        source: { kind: 'synthetic', turns: { mean: 3 }, userTokens: { mean: 8 }, outputTokens: { mean: 4 } },
      },
      stopWhen: { errorRate: 0.5, forMs: 1_000 },
    })
    expect(result.stopped?.reason).toMatch(/^error rate .* > 50 %/)
    expect(result.sessions?.started).toBeLessThan(400)
    expect(result.counts.total).toBe(result.counts.completed + result.counts.failed)
    expect(result.errors.find((e) => e.kind === 'cancelled')?.count ?? 0).toBe(result.stopped?.inFlightCancelled)
    expect(server.chatRequests).toBe(result.counts.total + (result.streaming.probeRequests ?? 1))
    expect(await openAfterSettling(server)).toBe(0)
    expect(schemaErrors(result)).toEqual([])
  }, 30_000)

  test('a run that never meets the condition has no stopped field and is unchanged', async () => {
    server.chatRequests = 0
    server.failFrom = Infinity
    const load = { concurrency: 4, requests: 120 }
    const plain = await runBenchmark(optionsFor(server.url, load))
    const watched = await runBenchmark(
      optionsFor(server.url, load, { stopWhen: { errorRate: 0.01, ttftMs: { p99: 5_000 }, forMs: 500 } }),
    )
    for (const result of [plain, watched]) {
      expect(result.stopped).toBeUndefined()
      expect('stopped' in result).toBe(false)
      expect(result.counts).toEqual({ total: 120, completed: 120, failed: 0 })
      expect(result.warnings.join('\n')).not.toContain('stopWhen')
      expect(schemaErrors(result)).toEqual([])
    }
    expect(Object.keys(watched).sort()).toEqual(Object.keys(plain).sort())
    expect(await openAfterSettling(server)).toBe(0)
  }, 30_000)
})

describe('a bench that stopWhen stopped', () => {
  let server: HalfwayFailingServer
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-stop-when-'))
  const file = join(dir, 'safety.bench.ts')
  const baselineFile = join(dir, '__llm_baselines__', 'safety.bench.ts.json')
  beforeAll(async () => {
    server = await startHalfwayFailingServer()
  })
  afterAll(async () => {
    server.server.closeAllConnections()
    await new Promise((resolve) => server.server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  const bench = (failFrom: number, stopWhen?: BenchLlmOptions['stopWhen']): BenchLlmOptions => {
    server.chatRequests = 0
    server.failFrom = failFrom
    return {
      target: { baseUrl: server.url, model: 'm' },
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 5 } },
      load: { concurrency: 4, requests: 300 },
      serverMetrics: false,
      trials: { record: 1 },
      ...(stopWhen ? { stopWhen } : {}),
    }
  }

  test('fails with the reason and writes no baseline under -u; expected: true passes and records nothing', async () => {
    // A healthy run recorded with -u: the entry a stopped run must leave alone.
    const recorded = await runBench({
      name: 'safety',
      file,
      options: bench(Infinity, { errorRate: 0.5, forMs: 1_000 }),
      provided: { update: 'all', ci: false },
    })
    expect(recorded.result.stopped).toBeUndefined()
    expect(recorded.judgement.baselineState).toMatch(/^(written|provisional)$/)
    const before = readFileSync(baselineFile, 'utf8')

    // The server fails from its 100th request on; the bench runs under -u.
    const stopped = await runBench({
      name: 'safety',
      file,
      options: bench(100, { errorRate: 0.5, forMs: 1_000 }),
      provided: { update: 'all', ci: false },
    })
    expect(stopped.result.stopped?.reason).toMatch(/^error rate .* > 50 %/)
    expect(stopped.result.counts.total).toBeLessThan(300)
    expect(stopped.judgement.baselineState).toBe('stopped early')
    expect(stopped.judgement.verdict).toBeUndefined()
    const failure = stopped.judgement.failure ?? ''
    expect(failure).toContain(`The load was stopped early by stopWhen at `)
    expect(failure).toContain(stopped.result.stopped?.reason)
    expect(failure).toContain('not judged against the baseline, and no baseline is written (not with -u either)')
    expect(failure).toContain('`stopWhen.expected: true`')
    // One trial only (a recording would take more): a server in trouble gets no more load.
    expect(stopped.result.trials ?? []).toHaveLength(1)
    expect(readFileSync(baselineFile, 'utf8')).toBe(before)

    // The same stop, expected: a pass with a note, and still nothing recorded, with -u or without.
    for (const update of ['all', 'none'] as const) {
      const probe = await runBench({
        name: 'safety',
        file,
        options: bench(100, { errorRate: 0.5, forMs: 1_000, expected: true }),
        provided: { update, ci: false },
      })
      expect(probe.result.stopped?.expected).toBe(true)
      expect(probe.judgement.failure).toBeUndefined()
      expect(probe.judgement.baselineState).toBe('stopped early')
      expect(probe.judgement.notes).toEqual([
        expect.stringMatching(
          /^not judged: the load was stopped early by stopWhen at .* \(stopWhen\.expected\): passes; not judged against the baseline, and no baseline is written \(not with -u either\)/,
        ),
      ])
      expect(readFileSync(baselineFile, 'utf8')).toBe(before)
    }
  }, 60_000)

  test('a stopped bench with no stored entry writes none', async () => {
    const fresh = join(dir, 'fresh.bench.ts')
    const outcome = await runBench({
      name: 'fresh',
      file: fresh,
      options: bench(60, { errorRate: 0.5, forMs: 500 }),
      provided: { update: 'all', ci: false },
    })
    expect(outcome.judgement.failure).toContain('stopped early by stopWhen')
    expect(existsSync(join(dir, '__llm_baselines__', 'fresh.bench.ts.json'))).toBe(false)
  }, 30_000)
})

describe('stopWhen on TTFT against the simulator made slow half-way', () => {
  test('TTFT p99 over the limit for forMs stops the load with "TTFT p99 … > … ms"', async () => {
    const sim = await startSimulator({ seed: 3, prefillBaseMs: 2, decodeBaseMs: 2 })
    try {
      let slowedAt: number | undefined
      const result = await runBenchmark({
        target: { baseUrl: sim.url },
        workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
        load: { concurrency: 4, requests: 5_000 },
        // Warmed up, so that no cold first request (connections, JIT) tops the limit before the slowdown.
        warmup: { requests: 20 },
        serverMetrics: false,
        stopWhen: { ttftMs: { p99: 250 }, forMs: 1_000 },
        onProgress: (p) => {
          // One second into the load the server becomes 200 times slower (TTFT from a few ms to about half a second).
          if (slowedAt === undefined && p.elapsedMs >= 1_000) {
            slowedAt = p.elapsedMs
            sim.setSpeedFactor(200)
          }
        },
      })
      expect(slowedAt).toBeDefined()
      expect(result.stopped?.reason).toMatch(/^TTFT p99 \d+ ms > 250 ms \(\d+ requests? in the last 1 s\)$/)
      expect(result.stopped?.conditionSinceMs).toBeGreaterThan(slowedAt as number)
      expect(result.counts.total).toBeLessThan(5_000)
      expect(result.counts.total).toBe(result.counts.completed + result.counts.failed)
      expect(result.errors.find((e) => e.kind === 'cancelled')?.count ?? 0).toBe(result.stopped?.inFlightCancelled)
      expect(result.config.stopWhen).toEqual({ ttftMs: { p99: 250 }, forMs: 1_000 })
      expect(schemaErrors(result)).toEqual([])
    } finally {
      await sim.close()
    }
  }, 60_000)
})
