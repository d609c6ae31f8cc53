// The scrape end to end against the simulator, which serves vLLM's /metrics consistent with what
// it models: the prefix-cache hit rate is what its block rule gives, a warm cache is detected,
// token counters equal the client's counts, and client TTFT is compared with the server's.
import { afterEach, describe, expect, test } from 'vitest'
import { runBenchmark } from '../../src/core/run.ts'
import type { BenchmarkOptions } from '../../src/core/contract/options.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'
import { buildSimulatorText } from '../../src/sim/tokens.ts'

const BLOCK = 16
let sim: RunningSimulator | undefined
afterEach(async () => {
  await sim?.close()
  sim = undefined
})

function run(baseUrl: string, options: Partial<BenchmarkOptions>): Promise<BenchmarkResult> {
  return runBenchmark(
    {
      target: { baseUrl },
      workload: { kind: 'synthetic', inputTokens: { mean: 160 }, outputTokens: { mean: 16 }, sharedPrefixTokens: 64 },
      load: { concurrency: 4, requests: 40 },
      warmup: { requests: 4 },
      recordRequests: true,
      serverMetrics: { intervalMs: 100 },
      seed: 3,
      ...options,
    },
    { skipGpu: true },
  )
}

const sum = (result: BenchmarkResult, pick: (r: NonNullable<BenchmarkResult['requests']>[number]) => number) =>
  (result.requests ?? []).reduce((total, r) => total + pick(r), 0)

describe('server metrics against the simulator', () => {
  test('shared prefix: every measured request hits the full blocks of salt + prefix, as the block rule gives; counters equal the client counts', async () => {
    // Full speed: the load lasts ~1.5 s, many 100 ms scrape intervals, so a scrape lands while requests run even on a
    // busy machine (at speed 0.2 the load took ~0.3 s and, beside two CPU-bound processes, once no scrape saw one).
    sim = await startSimulator({ prefixCaching: true, blockTokens: BLOCK, speedFactor: 1 })
    const result = await run(sim.url, {})
    const m = result.server?.metrics
    expect(m?.dialect).toBe('vllm')
    const saltTokens = result.workload.saltTokens as number
    // The warm-up and the probe cached the run's salt and shared prefix; each measured request finds their full blocks.
    const hitPerRequest = Math.floor((saltTokens + 64) / BLOCK) * BLOCK
    const prompt = sum(result, (r) => r.inputTokens)
    expect(m?.prefixCache).toEqual({
      queriedTokens: prompt,
      hitTokens: 40 * hitPerRequest,
      hitRate: (40 * hitPerRequest) / prompt,
    })
    expect(m?.promptTokens).toBe(prompt)
    expect(m?.generatedTokens).toBe(sum(result, (r) => r.outputTokens))
    expect(m?.finishedRequests).toBe(40)
    expect(m?.preemptions).toBe(0)
    expect(m?.firstRequestCache).toMatchObject({ hitTokens: 0, warm: false })
    expect(m?.requestsRunning?.peak).toBeGreaterThan(0)
    expect(m?.kvCacheUsage?.peak).toBeGreaterThan(0)
    expect(m?.ttftMs?.count).toBe(40)
    const o = m?.clientOverheadTtftMs
    console.log(
      `[server metrics, simulator] hit rate ${(m!.prefixCache!.hitRate * 100).toFixed(1)} % (${m!.prefixCache!.hitTokens} of ${prompt}); ` +
        `TTFT p50 client ${result.metrics.ttftMs.p50.toFixed(2)} ms, server ${m?.ttftMs?.p50.toFixed(2)} ms (bucket ±${o?.p50PrecisionMs.toFixed(0)} ms); ` +
        `client - server p50 ${o?.p50.toFixed(2)} / p90 ${o?.p90.toFixed(2)} / p99 ${o?.p99.toFixed(2)} ms; ${m?.scrapes} scrapes, mean ${m?.scrapeMeanMs.toFixed(2)} ms`,
    )
    // In one process the client sees the first token within a loopback hop of the server, so the
    // difference is inside the server histogram's bucket.
    expect(Math.abs(o!.p50)).toBeLessThanOrEqual(o!.p50PrecisionMs)
  })

  test('without prefix caching there are no hits and no hit rate', async () => {
    sim = await startSimulator({ speedFactor: 0.2 })
    const m = (await run(sim.url, {})).server?.metrics
    expect(m?.prefixCache).toBeUndefined()
    expect(m?.firstRequestCache).toBeUndefined()
    expect(m?.generatedTokens).toBe(40 * 16)
  })

  test('a cache warm from an earlier run is detected: fixed prompts sent twice; salted prompts are not', async () => {
    sim = await startSimulator({ prefixCaching: true, blockTokens: BLOCK, speedFactor: 0.2 })
    const prompts = [0, 1, 2, 3].map((seed) => buildSimulatorText(120, seed))
    const fixed = {
      workload: { kind: 'prompts' as const, prompts, maxTokens: 8 },
      load: { concurrency: 2, requests: 8 },
      warmup: { requests: 0 },
    }
    const first = await run(sim.url, fixed)
    expect(first.server?.metrics?.firstRequestCache).toEqual({ promptTokens: 120, hitTokens: 0, warm: false })
    expect(first.warnings.join('\n')).not.toContain('Prefix cache was warm')
    const second = await run(sim.url, fixed)
    // Its first request is a prompt the first run sent: every full block but the last token's is cached.
    expect(second.server?.metrics?.firstRequestCache).toEqual({ promptTokens: 120, hitTokens: 112, warm: true })
    expect(second.warnings.join('\n')).toContain(
      'Server metrics: Prefix cache was warm before the run: its first request found 112 of its 120 prompt tokens cached',
    )
    // Synthetic prompts open with a fresh salt per run: the same seed twice does not warm the cache.
    const salted = await run(sim.url, {})
    const again = await run(sim.url, {})
    expect(salted.server?.metrics?.firstRequestCache?.warm).toBe(false)
    expect(again.server?.metrics?.firstRequestCache?.warm).toBe(false)
  })

  test('a server without /metrics gives one line and the run goes on; serverMetrics: false leaves the section out', async () => {
    const { createServer } = await import('node:http')
    sim = await startSimulator({ speedFactor: 0.2 })
    const simUrl = sim.url
    // A proxy that forwards everything but /metrics (404), as a server without metrics answers.
    const proxy = createServer((req, res) => {
      if (req.url?.startsWith('/metrics') || req.url?.startsWith('/prometheus')) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found')
        return
      }
      void fetch(`${simUrl}${req.url}`, {
        method: req.method,
        headers: { 'content-type': 'application/json' },
        body: req.method === 'POST' ? req : undefined,
        duplex: 'half',
      } as RequestInit).then(async (upstream) => {
        res.writeHead(upstream.status, Object.fromEntries(upstream.headers))
        for await (const chunk of upstream.body ?? []) res.write(chunk)
        res.end()
      })
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const port = (proxy.address() as { port: number }).port
      const result = await run(`http://127.0.0.1:${port}`, {
        load: { concurrency: 2, requests: 6 },
        warmup: { requests: 0 },
      })
      expect(result.counts.completed).toBe(6)
      expect(result.server).toEqual({
        note: `No server metrics: http://127.0.0.1:${port}/metrics (HTTP 404: Not Found); http://127.0.0.1:${port}/prometheus/metrics (HTTP 404: Not Found). Start llama-server with \`--metrics\` (SGLang: \`--enable-metrics\`), or give the endpoint as \`serverMetrics: { url }\` (\`serverMetrics: false\` turns this off).`,
      })
      const off = await run(sim.url, {
        load: { concurrency: 2, requests: 6 },
        warmup: { requests: 0 },
        serverMetrics: false,
      })
      expect(off.server).toBeUndefined()
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()))
    }
  })
})
