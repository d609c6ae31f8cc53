// End to end against a real OpenAI-compatible server: llama.cpp's llama-server with a tiny
// random-weight model, both built by `scripts/llama/build.ts` into the cache (.ci/run builds them
// before `npm test`). Locally, when they are missing, this file builds them once (git, cmake and a
// C++ compiler needed; 8 to 15 minutes on 2 cores, then cached); it skips, saying why, only when
// those programs are missing or LLM_BENCH_SKIP_LLAMA=1. Under CI missing artifacts fail.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { findLlamaArtifacts } from '../../scripts/llama/llama-cache.ts'
import { runBenchmark } from '../../src/core/run.ts'
import { compareLlamaTimings } from '../../src/core/server/llama-timings.ts'
import { llamaCpp, startServer, type RunningServer } from '../../src/core/server/index.ts'
import type { ApiKind } from '../../src/core/contract/api-kinds.ts'
import type { BenchmarkOptions } from '../../src/core/contract/options.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { isCI } from '../../src/bench/ci.ts'
import type { LlmBenchSweepTaskMeta } from '../../src/bench/sweep-meta.ts'
import { LLAMA_E2E_SERVER_ARGS } from '../helpers/llama-server-args.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
let artifacts = findLlamaArtifacts()
const ci = isCI()
/** Build programs not on PATH; the build can only run without any missing. */
const missingTools = artifacts.found
  ? []
  : ['git', 'cmake', 'c++'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
const optedOut = process.env.LLM_BENCH_SKIP_LLAMA === '1'
const buildHere = !artifacts.found && !ci && !optedOut && missingTools.length === 0
const runnable = artifacts.found || buildHere

if (!runnable && !ci) {
  const why = optedOut
    ? 'LLM_BENCH_SKIP_LLAMA=1'
    : `${missingTools.join(', ')} not found on PATH, so llama-server cannot be built here (${artifacts.found ? '' : artifacts.reason})`
  console.warn(`[llama.cpp e2e] skipped: ${why}`)
}

/**
 * Time limit of a test of a few dozen streams: 60 s held on a quiet machine, not beside two CPU-bound
 * processes (the server-metrics test's load alone took 52.7 s there).
 */
const LOADED_MACHINE_MS = 180_000

describe('llama-server build', () => {
  // Under CI the build step of .ci/run must have produced them: their absence is a failure there.
  test.runIf(ci)('llama-server and the tiny model are in the cache', () => {
    if (!artifacts.found) throw new Error(`CI=true but ${artifacts.reason}`)
    expect(existsSync(artifacts.manifest.serverPath)).toBe(true)
  })
})

describe.skipIf(!runnable)('llama.cpp llama-server end to end', () => {
  let manifest = artifacts.found ? artifacts.manifest : undefined
  let server: RunningServer
  let logDir: string

  beforeAll(
    async () => {
      if (buildHere) {
        console.warn(
          '[llama.cpp e2e] building llama-server and the tiny model once (8 to 15 minutes on 2 cores; cached afterwards, LLM_BENCH_SKIP_LLAMA=1 skips)',
        )
        // Asynchronous: a worker blocked for minutes could not answer the test runner.
        const build = spawn(process.execPath, [join(ROOT, 'scripts/llama/build.ts')], { cwd: ROOT, stdio: 'inherit' })
        const code = await new Promise<number | null>((resolve) => build.on('close', resolve))
        artifacts = findLlamaArtifacts()
        if (!artifacts.found)
          throw new Error(`building llama-server failed (exit ${String(code)}): ${artifacts.reason}`)
        manifest = artifacts.manifest
      }
      logDir = mkdtempSync(join(tmpdir(), 'llama-e2e-logs-'))
      server = await startServer(
        llamaCpp({
          bin: manifest!.serverPath,
          modelPath: manifest!.modelPath,
          args: LLAMA_E2E_SERVER_ARGS,
          logDir,
          startTimeoutMs: 60_000,
        }),
        {
          print: () => {},
        },
      )
    },
    buildHere ? 45 * 60_000 : 90_000,
  )

  afterAll(async () => {
    await server?.stop()
    rmSync(logDir, { recursive: true, force: true })
  })

  function run(
    overrides: Partial<BenchmarkOptions> & Pick<BenchmarkOptions, 'load'>,
    api: ApiKind = 'chat',
    outputTokens = 128,
  ): Promise<BenchmarkResult> {
    return runBenchmark(
      {
        target: { baseUrl: server.baseUrl, api },
        workload: { kind: 'synthetic', inputTokens: { mean: 48 }, outputTokens: { mean: outputTokens } },
        warmup: { requests: 2 },
        seed: 5,
        recordRequests: true,
        ...overrides,
      },
      { skipGpu: true },
    )
  }

  function expectClean(result: BenchmarkResult, requests: number, outputTokens: number): void {
    // Errors first: their messages say more than a count. llama-server closes the connection after
    // each stream although it offers keep-alive; the client must not count that as an error.
    expect(result.errors).toEqual([])
    expect(result.counts).toEqual({ total: requests, completed: requests, failed: 0 })
    expect(result.streaming.tokenCountEstimated).toBe(false)
    expect(result.streaming.nonSseRequests).toBe(0)
    // The model never emits end-of-text, and ignore_eos holds the length: exactly what was asked.
    for (const r of result.requests ?? []) {
      expect(r.outputTokens).toBe(outputTokens)
      expect(r.usageReported).toBe(true)
      expect(r.chunkTimes.length).toBeGreaterThan(outputTokens / 2)
    }
    // The tiny model decodes a token in well under a millisecond, so a stream lasts only tens of
    // milliseconds (hence 128 tokens and more): a client starved of CPU on a loaded machine can
    // still receive one whole (half of them at load average 7 on 2 cores). Such a response is left
    // out of TTFT (as the metrics define); if none streamed, the client is not reading incrementally.
    expect(result.metrics.ttftMs.count).toBe(requests - result.streaming.burstRequests)
    expect(result.streaming.burstRequests).toBeLessThan(requests)
    expect(result.metrics.itlMs.count).toBeGreaterThan(0)
    expect(result.throughput.outputTokensPerSec).toBeGreaterThan(0)
  }

  test(
    'chat: every stream completes with the requested length, and the facts name llama.cpp and its build',
    async () => {
      const result = await run({ load: { concurrency: 2, requests: 12 } })
      expectClean(result, 12, 128)
      expect(result.environment.server.name).toBe('llama.cpp')
      // llama.cpp's build_info, `b<build number>-<commit>`; the bundle's commit is pinned in llama-release.json.
      expect(result.environment.server.version).toMatch(/^b\d+-[0-9a-f]{7,}$/)
      expect(manifest!.commit.startsWith(result.environment.server.version!.split('-')[1]!)).toBe(true)
      expect(result.environment.server.model).toBeTruthy()
      expect(result.environment.server.maxContextTokens).toBeGreaterThan(0)
    },
    LOADED_MACHINE_MS,
  )

  test(
    'server metrics (--metrics): generated and prompt tokens equal what the client counted over the window; slot and queue gauges move under load',
    async () => {
      // Six streams on two slots: four wait (llama.cpp "deferred") at first. Scrapes every 100 ms so a run of a few seconds has many.
      // The last six take three rounds of 192 tokens after the last send: beside two CPU-bound processes that passed the
      // default 30 s drain grace once, so this run allows 120 s.
      const result = await run(
        { load: { concurrency: 6, requests: 18, drainGraceMs: 120_000 }, serverMetrics: { intervalMs: 100 } },
        'chat',
        192,
      )
      expectClean(result, 18, 192)
      const m = result.server?.metrics
      expect(result.server?.note).toBeUndefined()
      expect(m?.dialect).toBe('llamacpp')
      const requests = result.requests ?? []
      const clientOutput = requests.reduce((sum, r) => sum + r.outputTokens, 0)
      const clientPrompt = requests.reduce((sum, r) => sum + r.inputTokens, 0)
      console.log(
        `[llama.cpp e2e] server metrics over ${m?.windowMs.toFixed(0)} ms, ${m?.scrapes} scrapes (mean ${m?.scrapeMeanMs.toFixed(2)} ms): generated ${m?.generatedTokens} (client ${clientOutput}), ` +
          `prompt ${m?.promptTokens} (client ${clientPrompt}, cached ${m?.prefixCache?.hitTokens}), running peak ${m?.requestsRunning?.peak} mean ${m?.requestsRunning?.mean.toFixed(2)}, ` +
          `waiting peak ${m?.requestsWaiting?.peak} mean ${m?.requestsWaiting?.mean.toFixed(2)}`,
      )
      // The window opens after the warm-up and the probe and closes after the last completion: exact.
      expect(m?.generatedTokens).toBe(clientOutput)
      expect(m?.promptTokens).toBe(clientPrompt)
      expect(m?.failedScrapes).toBe(0)
      expect(m?.requestsRunning?.peak).toBe(2)
      expect(m?.requestsWaiting?.peak).toBeGreaterThan(0)
      // Both gauges are back at 0 in the window's last scrape, after the last completion.
      expect(m?.series.requestsRunning.at(-1)).toBe(0)
      expect(m?.series.requestsWaiting.at(-1)).toBe(0)
    },
    LOADED_MACHINE_MS,
  )

  test(
    'completions: every stream completes with the requested length',
    async () => {
      const result = await run({ load: { concurrency: 2, requests: 12 } }, 'completions', 128)
      expectClean(result, 12, 128)
      expect(result.config).toMatchObject({ target: { api: 'completions' } })
    },
    LOADED_MACHINE_MS,
  )

  test.each(['responses', 'messages'] as const)(
    '%s API: every stream completes with the requested length, usage and input tokens as over chat',
    async (api) => {
      const result = await run({ load: { concurrency: 2, requests: 12 } }, api, 128)
      expectClean(result, 12, 128)
      expect(result.config).toMatchObject({ target: { api } })
      const requests = result.requests ?? []
      // llama.cpp's Responses stream always ends "completed"; its Messages stream says max_tokens.
      expect(new Set(requests.map((r) => r.finishReason))).toEqual(new Set([api === 'responses' ? 'stop' : 'length']))
      // The same 48-token prompts through the same chat template: llama-server's input count within a few
      // tokens of chat's (each API builds the template's messages its own way).
      const chat = await run({ load: { concurrency: 2, requests: 4 } }, 'chat', 16)
      const chatInput = chat.metrics.inputTokens.mean
      for (const r of requests) expect(Math.abs(r.inputTokens - chatInput)).toBeLessThanOrEqual(6)
      // llama-server's timings ride on response.completed / are absent from message events: read where sent.
      if (api === 'responses') expect(requests.every((r) => r.serverTimings?.predicted_n === 128)).toBe(true)
    },
    LOADED_MACHINE_MS,
  )

  test(
    'structured output: every real reply is checked; this llama-server ignores json_object on chat (free text, not JSON)',
    async () => {
      // llama.cpp v0.4.0 accepts response_format json_object on /v1/chat/completions and does not constrain the
      // reply (docs/apis.md): the check must see the text and say so, not pass it.
      const result = await run(
        {
          load: { concurrency: 2, requests: 8 },
          workload: {
            kind: 'synthetic',
            inputTokens: { mean: 16 },
            outputTokens: { mean: 24 },
            ignoreEos: false,
            responseFormat: { type: 'json_object' },
          },
        },
        'chat',
      )
      expect(result.errors).toEqual([])
      expect(result.streaming.structuredOutput).toEqual({ checked: 8, valid: 0, notJson: 8, schemaMismatch: 0 })
      expect(result.warnings).toContain(
        '8 of 8 replies did not meet workload.responseFormat (8 not JSON, 0 breaking the schema).',
      )
    },
    LOADED_MACHINE_MS,
  )

  test("the client's timings contain llama-server's own, and decode speed agrees with its timings", async () => {
    // One stream at a time: nothing queues, so TTFT minus the server's prompt time is pure overhead.
    const result = await run({ load: { concurrency: 1, requests: 10 } }, 'chat', 256)
    expectClean(result, 10, 256)
    const comparison = compareLlamaTimings(result.requests ?? [])
    expect(comparison?.requests).toBe(10 - result.streaming.burstRequests)
    const c = comparison!
    console.log(
      `[llama.cpp e2e] TTFT p50 client ${c.ttft.clientP50Ms.toFixed(2)} ms, server prompt_ms p50 ${c.ttft.serverPromptP50Ms.toFixed(2)} ms, ` +
        `outside the server's prompt timer p50 ${c.ttft.outsidePromptP50Ms.toFixed(2)} ms; TPOT p50 client ${c.tpot.clientP50Ms.toFixed(3)} ms, ` +
        `server ${c.tpot.serverP50Ms.toFixed(3)} ms (ratio p50 ${c.tpot.ratioP50.toFixed(3)}, ${c.tpot.ratioMin.toFixed(3)}..${c.tpot.ratioMax.toFixed(3)})`,
    )
    expect(c.tokenCountsAgree).toBe(c.requests)
    // The server's prompt interval lies inside the client's TTFT interval: the request is sent
    // before the server starts on it, and the first token is read after the server sampled it.
    for (const pair of c.pairs) expect(pair.ttftOutsidePromptMs).toBeGreaterThanOrEqual(0)
    // Both ends time the same decode steps over the same tokens; only delivery jitter of the
    // first and last chunk separates them. A factor of 2 would mean a unit or counting error.
    expect(c.tpot.ratioP50).toBeGreaterThan(0.5)
    expect(c.tpot.ratioP50).toBeLessThan(2)
    // Two CPU hogs beside it made it take over 60 s.
  }, 180_000)

  test('requests beyond the server slots (-np 2) queue: TTFT p50 at concurrency 4 is far above concurrency 2', async () => {
    const results: Record<number, BenchmarkResult> = {}
    for (const concurrency of [1, 2, 4]) {
      // Long outputs: the wait for a slot (a running request's remaining decode) dwarfs the noise of TTFT at 2.
      const requests = 4 * concurrency
      results[concurrency] = await run(
        { load: { concurrency, requests }, warmup: { requests: concurrency } },
        'chat',
        256,
      )
      expectClean(results[concurrency]!, requests, 256)
    }
    const ttft = (c: number) => results[c]!.metrics.ttftMs.p50
    const e2e = (c: number) => results[c]!.metrics.e2eMs.p50
    const queued = compareLlamaTimings(results[4]!.requests ?? [])!
    console.log(
      `[llama.cpp e2e] TTFT p50 at concurrency 1, 2, 4: ${[1, 2, 4].map((c) => ttft(c).toFixed(2)).join(', ')} ms; E2E p50 ${[1, 2, 4].map((c) => e2e(c).toFixed(1)).join(', ')} ms; ` +
        `at 4: server prompt_ms p50 ${queued.ttft.serverPromptP50Ms.toFixed(2)} ms, TTFT outside it p50 ${queued.ttft.outsidePromptP50Ms.toFixed(2)} ms`,
    )
    // At 4, two requests wait for a slot for about the rest of a running request's decode.
    expect(ttft(4)).toBeGreaterThan(2 * ttft(2))
    // That wait happens before llama-server's own prompt timer starts: most of our TTFT lies
    // outside its prompt_ms (same requests, so background load cancels out).
    expect(queued.ttft.outsidePromptP50Ms).toBeGreaterThan(0.5 * queued.ttft.clientP50Ms)
  }, 360_000)

  test("sessions: each turn re-sends the history with the model's replies; llama-server finds it in its slot's prompt cache, and TTFT is reported by turn", async () => {
    // Two users on two slots, 4 turns each: turn k's prompt holds turns 1..k-1 and their replies (under 1024 tokens a slot).
    const result = await run({
      workload: {
        kind: 'sessions',
        source: { kind: 'synthetic', turns: { mean: 4 }, userTokens: { mean: 100 }, outputTokens: { mean: 24 } },
      },
      load: { concurrency: 2, sessions: 6 },
    })
    expect(result.errors).toEqual([])
    expect(result.counts).toEqual({ total: 24, completed: 24, failed: 0 })
    expect(result.sessions).toMatchObject({ started: 6, completed: 6, failed: 0 })
    const byTurn = result.sessions?.byTurn ?? []
    expect(byTurn.map((t) => t.requests)).toEqual([6, 6, 6, 6])
    const records = result.requests ?? []
    const cachedShares: number[] = []
    for (const record of records) {
      const ref = record.sessionTurn!
      expect(record.serverTimings?.cache_n).toBeDefined()
      if (ref.turn === 1) continue
      const before = records.find((r) => r.sessionTurn?.session === ref.session && r.sessionTurn.turn === ref.turn - 1)!
      // The prompt grew by the reply and the new 100-word message, each once (measured: 159-162 tokens, as llama's
      // tokenizer cuts some words in two and the noise reply re-tokenizes longer; the template adds a few).
      expect(record.inputTokens - before.inputTokens).toBeGreaterThan(before.outputTokens + 100)
      expect(record.inputTokens - before.inputTokens).toBeLessThan(2 * (before.outputTokens + 100))
      // llama-server evaluated only what its slot did not hold: at least the previous prompt was cached.
      expect(record.serverTimings!.cache_n).toBeGreaterThanOrEqual(before.inputTokens - 4)
      cachedShares.push(record.serverTimings!.cache_n! / record.inputTokens)
    }
    console.log(
      `[llama.cpp e2e] sessions: TTFT p50 by turn ${byTurn.map((t) => `${t.turn}: ${t.ttftMs.p50.toFixed(2)} ms`).join(', ')}; prompt tokens p50 by turn ${byTurn.map((t) => t.inputTokens.p50).join(', ')}; ` +
        `cached share of turns >= 2 min ${Math.min(...cachedShares).toFixed(3)}, session duration p50 ${result.sessions?.durationMs.p50.toFixed(1)} ms`,
    )
    for (const turn of byTurn) expect(turn.ttftMs.count).toBeGreaterThan(0)
  }, 360_000)

  test('bench.llm against llama-server writes its baseline, then meets it under CI', async () => {
    const baselineDir = mkdtempSync(join(tmpdir(), 'llama-e2e-baselines-'))
    try {
      const first = await childBench(baselineDir, { CI: '' })
      expect(first.code, first.output).toBe(0)
      const baselinePath = join(baselineDir, 'llama-server.e2e-bench.ts.json')
      expect(existsSync(baselinePath)).toBe(true)
      const stored = JSON.parse(readFileSync(baselinePath, 'utf8')) as {
        entries: Record<
          string,
          {
            fingerprint?: Record<string, unknown>
            launch?: { args: string[] }
            sweep?: { serverArg?: string; points: Array<{ value: number }> }
            provisional?: string[]
          }
        >
      }
      // The baseline belongs to this server build: a llama.cpp upgrade shows as a fingerprint change.
      expect(stored.entries['llama.cpp > tiny model, 2 streams']?.fingerprint).toMatchObject({
        serverName: 'llama.cpp',
        serverVersion: expect.stringMatching(/^b\d+-[0-9a-f]{7,}$/),
      })
      // Written; on a busy machine as a provisional entry, which the entry names (by design).
      const entry = stored.entries['llama.cpp > tiny model, 2 streams']
      if (first.meta?.baselineState === 'provisional') expect(entry?.provisional?.length).toBeGreaterThan(0)
      else expect(first.meta?.baselineState).toBe('written')
      // The session bench beside it: recorded too, with TTFT by turn in its result.
      expect(stored.entries['llama.cpp > chat sessions, 2 users']).toBeDefined()
      // The sweep over -np: a server per value, each point measured on its own, the curve stored.
      const curve = stored.entries['llama.cpp > slots curve, -np 1 2 4']
      expect(curve?.sweep?.serverArg).toBe('-np')
      expect(curve?.sweep?.points.map((point) => point.value)).toEqual([1, 2, 4])
      expect(curve?.launch?.args.join(' ')).toContain('-np {swept}')
      const points = first.sweep?.result.points ?? []
      expect(points.map((point) => point.result.environment.server.launch?.args.join(' '))).toEqual([
        expect.stringContaining('-np 1 '),
        expect.stringContaining('-np 2 '),
        expect.stringContaining('-np 4 '),
      ])
      expect(new Set(points.map((point) => JSON.stringify(point.result.config.target))).size).toBe(3)

      // Under CI a missing or mismatched baseline fails, so passing here means it compared and held.
      const second = await childBench(baselineDir, { CI: 'true' })
      expect(second.code, second.output).toBe(0)
      expect(second.meta?.baselineState).toBe('compare')
      expect(second.meta?.verdict?.status).not.toBe('fail')
      expect(second.sweep?.baselineState).toBe('compare')
    } finally {
      rmSync(baselineDir, { recursive: true, force: true })
    }
  }, 600_000)

  interface ChildBench {
    code: number | null
    output: string
    meta: { baselineState?: string; verdict?: { status?: string } } | undefined
    sweep: LlmBenchSweepTaskMeta | undefined
  }

  async function childBench(baselineDir: string, env: Record<string, string>): Promise<ChildBench> {
    const jsonPath = join(baselineDir, `report-${env.CI || 'local'}.json`)
    const childEnv: Record<string, string> = {}
    for (const [key, value] of Object.entries(process.env)) {
      // The parent is itself a Vitest worker: its markers would confuse the child's CLI.
      if (value !== undefined && !key.startsWith('VITEST') && key !== 'TEST' && key !== 'NODE_OPTIONS')
        childEnv[key] = value
    }
    Object.assign(childEnv, env, {
      LLAMA_E2E_SERVER: manifest!.serverPath,
      LLAMA_E2E_MODEL: manifest!.modelPath,
      LLAMA_E2E_BASELINE_DIR: baselineDir,
      LLAMA_E2E_LOG_DIR: logDir,
    })
    const vitestCli = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
    const args = [
      vitestCli,
      'bench',
      '--run',
      '--config',
      'test/e2e/llama.vitest.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${jsonPath}`,
    ]
    const child = spawn(process.execPath, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    let meta: ChildBench['meta']
    let sweep: ChildBench['sweep']
    try {
      const report = JSON.parse(readFileSync(jsonPath, 'utf8')) as {
        testResults: Array<{
          assertionResults: Array<{ meta?: { llmBench?: ChildBench['meta']; llmBenchSweep?: ChildBench['sweep'] } }>
        }>
      }
      const assertions = report.testResults.flatMap((file) => file.assertionResults)
      meta = assertions.find((a) => a.meta?.llmBench)?.meta?.llmBench
      sweep = assertions.find((a) => a.meta?.llmBenchSweep)?.meta?.llmBenchSweep
    } catch {
      meta = undefined
    }
    return { code, output: output.slice(-4000), meta, sweep }
  }
})

describe.skipIf(!runnable)('llama-server tool calls (--jinja, the generated tool-call model)', () => {
  test('chat, Responses and Messages stream counted tool calls with JSON arguments; agentic tool turns answer by id', async () => {
    // The first describe built the artifacts when they were missing. The checks run in the child's own
    // tests (test/e2e/llama-tools.e2e-bench.ts), beside a recording proxy on the client's clock.
    const found = findLlamaArtifacts()
    if (!found.found) throw new Error(`llama-server is not built: ${found.reason}`)
    const dir = mkdtempSync(join(tmpdir(), 'llama-e2e-tools-'))
    try {
      const jsonPath = join(dir, 'report.json')
      const env: Record<string, string> = {}
      for (const [key, value] of Object.entries(process.env)) {
        if (value !== undefined && !key.startsWith('VITEST') && key !== 'TEST' && key !== 'NODE_OPTIONS')
          env[key] = value
      }
      Object.assign(env, { LLAMA_TOOLS_REQUESTS: '6', LLAMA_TOOLS_SESSIONS: '2', LLAMA_E2E_LOG_DIR: dir })
      const args = [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'bench', '--run']
      args.push('--config', 'test/e2e/llama-tools.vitest.config.ts', '--reporter=default', '--reporter=json')
      args.push(`--outputFile.json=${jsonPath}`)
      const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
      let output = ''
      child.stdout.on('data', (d: Buffer) => (output += d.toString()))
      child.stderr.on('data', (d: Buffer) => (output += d.toString()))
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      for (const line of output.split('\n')) if (line.startsWith('[llama tools]')) console.log(line.slice(0, 600))
      expect(code, output.slice(-4000)).toBe(0)
      const report = JSON.parse(readFileSync(jsonPath, 'utf8')) as {
        testResults: Array<{ assertionResults: Array<{ title: string; status: string }> }>
      }
      const results = report.testResults.flatMap((file) => file.assertionResults)
      // Seven benches, each followed by the test that checks it: all ran and passed (not skipped).
      expect(results.map((r) => r.status)).toEqual(Array(14).fill('passed'))
      expect(results.filter((r) => r.title.includes('TTFT at the first call delta'))).toHaveLength(3)
      expect(results.filter((r) => r.title.includes('answers the call before it by id'))).toHaveLength(3)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 600_000)
})

describe.skipIf(!runnable)('llama-server embeddings and rerank (--embeddings, --reranking)', () => {
  let embeddings: RunningServer
  let rerank: RunningServer
  let logDir: string

  beforeAll(async () => {
    // The first describe built the artifacts when they were missing.
    const found = findLlamaArtifacts()
    if (!found.found) throw new Error(`llama-server is not built: ${found.reason}`)
    logDir = mkdtempSync(join(tmpdir(), 'llama-e2e-inputs-logs-'))
    const start = (args: string[]) =>
      startServer(
        llamaCpp({
          bin: found.manifest.serverPath,
          modelPath: found.manifest.modelPath,
          args: [...LLAMA_E2E_SERVER_ARGS, ...args],
          logDir,
          startTimeoutMs: 60_000,
        }),
        { print: () => {} },
      )
    embeddings = await start(['--embeddings', '--pooling', 'mean'])
    rerank = await start(['--reranking'])
  }, 150_000)

  afterAll(async () => {
    await embeddings?.stop()
    await rerank?.stop()
    if (logDir) rmSync(logDir, { recursive: true, force: true })
  })

  test.each(['embeddings', 'rerank'] as const)(
    '%s: every request answers its 4 texts, with usage; texts and tokens per second reported',
    async (api) => {
      const server = api === 'embeddings' ? embeddings : rerank
      const result = await runBenchmark(
        {
          target: { baseUrl: server.baseUrl, api },
          workload: { kind: 'synthetic', inputTokens: { mean: 48 }, batch: 4 },
          load: { concurrency: 2, requests: 16 },
          warmup: { requests: 2 },
          seed: 5,
          recordRequests: true,
        },
        { skipGpu: true },
      )
      expect(result.errors).toEqual([])
      expect(result.counts).toEqual({ total: 16, completed: 16, failed: 0 })
      expect(result.streaming).toMatchObject({ streamed: false, evidence: 'api', tokenCountEstimated: false })
      for (const r of result.requests ?? []) {
        expect(r.inputs).toBe(4)
        expect(r.usageReported).toBe(true)
        expect(r.outputTokens).toBe(0)
        // Four texts of ~48 tokens; rerank reads the query beside each document.
        expect(r.inputTokens).toBeGreaterThan(api === 'embeddings' ? 4 * 30 : 8 * 30)
      }
      const t = result.throughput
      console.log(
        `[llama.cpp e2e] ${api}: E2E p50 ${result.metrics.e2eMs.p50.toFixed(1)} ms p99 ${result.metrics.e2eMs.p99.toFixed(1)} ms, ` +
          `${t.requestsPerSec.toFixed(1)} req/s, ${t.inputsPerSec?.toFixed(1)} texts/s, ${t.inputTokensPerSec?.toFixed(0)} tokens/s ` +
          `(mean ${result.workload.actualInputTokensMean.toFixed(1)} tokens per request)`,
      )
      expect(t.inputsPerSec).toBeCloseTo(4 * t.requestsPerSec, 9)
      expect(t.inputTokensPerSec).toBeGreaterThan(0)
      expect(result.metrics.ttftMs.count).toBe(0)
    },
    LOADED_MACHINE_MS,
  )

  test('rerank against a server started without --reranking: its 501 stops the run before the load, saying how', async () => {
    const error = await runBenchmark(
      {
        target: { baseUrl: embeddings.baseUrl, api: 'rerank' },
        workload: { kind: 'synthetic', inputTokens: { mean: 16 } },
        load: { concurrency: 2, requests: 8 },
      },
      { skipGpu: true },
    ).catch((e: unknown) => e)
    expect((error as Error).message).toContain('This server does not support reranking. Start it with `--reranking`')
    expect((error as Error).message).toContain('llama-server serves it when started with `--reranking`')
  })
})
