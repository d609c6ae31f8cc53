import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeEach, describe, expect, test } from 'vitest'
import { ServerStartError, ServerUnavailableError } from '../../src/core/contract/errors.ts'
import { command, connect, vllm, type PresetOptions } from '../../src/core/server/presets.ts'
import type { ServerSpec } from '../../src/core/server/server-spec.ts'
import { ServerPool } from '../../src/core/server/server-pool.ts'
import { trackedServerCount } from '../../src/core/server/shutdown-hooks.ts'
import { startServer, withServer } from '../../src/core/server/start-server.ts'
import { runBench } from '../../src/bench/run-bench.ts'
import { expectNoProcessesWith, markerPerTest, processesWith } from '../helpers/processes.ts'

const fakeVllm = fileURLToPath(new URL('../fixtures/bin/vllm', import.meta.url))
const fakeServerScript = fileURLToPath(new URL('../fixtures/bin/fake-openai-server.mjs', import.meta.url))
const logDir = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-server-logs-'))
const quiet = { print: () => {} }
const API_KEY = 'sk-test-secret-4f1c'
const HF_TOKEN = 'hf_test_secret_token_91ab'

/** The served model name doubles as a marker: it is in the command line of the server and its child. */
const markerOf = markerPerTest('fake/model')
let marker = ''
beforeEach(() => {
  marker = markerOf()
})

afterAll(() => {
  rmSync(logDir, { recursive: true, force: true })
})

/** The text of the server log in the test's log folder that mentions `text` (the test's marker). */
function logOf(text: string): string {
  const logs = readdirSync(logDir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => readFileSync(path.join(logDir, f), 'utf8'))
  return logs.find((log) => log.includes(text)) ?? ''
}

function fakeSpec(mode: string, options: Partial<PresetOptions> & { slowMs?: number } = {}) {
  const { slowMs, env, ...rest } = options
  return vllm({
    model: marker,
    bin: fakeVllm,
    env: {
      FAKE_NODE: process.execPath,
      FAKE_SERVER_MODE: mode,
      ...(slowMs !== undefined ? { FAKE_SERVER_SLOW_MS: String(slowMs) } : {}),
      ...env,
    },
    logDir,
    stopGraceMs: 500,
    startTimeoutMs: 30_000,
    ...rest,
  })
}

async function startFailure(promise: Promise<unknown>): Promise<ServerStartError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ServerStartError)
  return error as ServerStartError
}

describe('launching a server', () => {
  test('a bench against a launched server: the launch command is in the result, its secrets are not', async () => {
    const { result, judgement } = await runBench({
      name: 'launched',
      file: path.join(logDir, 'launched.bench.ts'),
      options: {
        server: fakeSpec('ok', { args: ['--api-key', API_KEY], env: { HF_TOKEN } }),
        workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
        load: { concurrency: 2, requests: 6 },
        baseline: false,
      },
      provided: { update: 'none', ci: true },
    })
    expect(judgement.failure).toBeUndefined()
    expect(result.counts.completed).toBe(6)
    const launch = result.environment.server.launch
    expect(launch?.command).toBe(fakeVllm)
    expect(launch?.args).toEqual(expect.arrayContaining(['serve', marker, '--api-key', '***']))
    expect(launch?.env).toMatchObject({ HF_TOKEN: '***' })
    const serialised = JSON.stringify(result)
    expect(serialised).not.toContain(API_KEY)
    expect(serialised).not.toContain(HF_TOKEN)
  })

  test('a vLLM launched through command([...]) or connected to is named vllm, started as such, and asked for per-chunk usage', async () => {
    const file = path.join(logDir, 'named.bench.ts')
    const bench = (server: ServerSpec, name: string) =>
      runBench({
        name,
        file,
        options: {
          server,
          workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
          load: { concurrency: 1, requests: 3 },
          baseline: false,
        },
        provided: { update: 'none', ci: true },
      })
    const env = { FAKE_SERVER_MODE: 'ok', FAKE_SERVER_VERSION: '0.10.1' }
    const launched = await bench(
      command([process.execPath, fakeServerScript, marker, '--port', '{port}'], { env, logDir, stopGraceMs: 500 }),
      'command',
    )
    expect(launched.judgement.failure).toBeUndefined()
    expect(launched.result.environment.server).toMatchObject({
      name: 'vllm',
      version: '0.10.1',
      startedAs: path.basename(process.execPath),
    })
    expect(logOf(marker)).toContain('stream_options {"include_usage":true,"continuous_usage_stats":true}')

    const running = await startServer(fakeSpec('ok', { env: { FAKE_SERVER_VERSION: '0.10.1' } }), quiet)
    try {
      const connected = await bench(connect(running.baseUrl), 'connected')
      expect(connected.judgement.failure).toBeUndefined()
      expect(connected.result.environment.server).toMatchObject({
        name: 'vllm',
        version: '0.10.1',
        startedAs: 'connected',
      })
      expect(connected.result.environment.server.launch).toBeUndefined()
    } finally {
      await running.stop()
    }
  })

  test('a launched server killed during the run fails the bench with its exit and last log lines; no baseline is written', async () => {
    const file = path.join(logDir, 'killed.bench.ts')
    const { result, judgement } = await runBench({
      name: 'killed',
      file,
      options: {
        server: fakeSpec('die-after', { env: { FAKE_SERVER_DIE_AFTER: '10' } }),
        workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
        load: { concurrency: 2, requests: 60 },
      },
      // `-u`: even asked to record, a run whose server died must not become a baseline.
      provided: { update: 'all', ci: false },
    })
    expect(result.counts.failed).toBeGreaterThan(0)
    expect(judgement.failure).toContain('was killed by SIGKILL during the run')
    expect(judgement.failure).toContain('EngineCore died unexpectedly')
    expect(judgement.failure).toContain('no baseline is written')
    expect(judgement.baselineState).toBeUndefined()
    expect(existsSync(path.join(logDir, '__llm_baselines__', 'killed.bench.ts.json'))).toBe(false)
    const log = logOf(marker)
    expect(log).toContain('had already ended on its own (was killed by SIGKILL)')
  })

  test('a launched server that buffers its stream (whole output in one write) is found by the idle probe: no TTFT reported', async () => {
    const { result } = await runBench({
      name: 'buffered',
      file: path.join(logDir, 'buffered.bench.ts'),
      options: {
        server: fakeSpec('buffered'),
        workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 5 } },
        load: { concurrency: 2, requests: 8 },
        baseline: false,
      },
      provided: { update: 'none', ci: true },
    })
    expect(result.streaming).toMatchObject({ streamed: false, evidence: 'probe', probeRequests: 3 })
    expect(result.metrics.ttftMs.count).toBe(0)
    expect(result.metrics.e2eMs.count).toBe(8)
  })

  test('starts, discovers the model, prints the log path, and redacts secrets everywhere it writes', async () => {
    const printed: string[] = []
    const server = await startServer(fakeSpec('ok', { args: ['--api-key', API_KEY], env: { HF_TOKEN } }), {
      print: (line) => printed.push(line),
    })

    expect(server.model).toBe(marker)
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.owned).toBe(true)
    expect(server.apiKey).toBe(API_KEY)
    const port = server.baseUrl.split(':').pop()
    expect(server.launch).toEqual({
      command: fakeVllm,
      args: ['serve', marker, '--host', '127.0.0.1', '--port', port, '--api-key', '***'],
      env: { FAKE_NODE: process.execPath, FAKE_SERVER_MODE: 'ok', HF_TOKEN: '***' },
    })
    const serialised = JSON.stringify(server)
    expect(serialised).not.toContain(API_KEY)
    expect(serialised).not.toContain(HF_TOKEN)
    expect(printed[0]).toContain(`log: ${server.logPath}`)

    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: server.model, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    })
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('data: [DONE]')

    const members = processesWith(marker)
    expect(members.map((p) => p.pgid)).toEqual([server.pid])
    await server.stop()
    expect(server.exited).toBe(true)
    await expectNoProcessesWith(marker)

    // The server echoed its arguments (vLLM logs `non-default args`): the file keeps no key.
    const log = readFileSync(server.logPath!, 'utf8')
    expect(log).toContain("'api_key': '***'")
    expect(log).toContain('Shutting down')
    expect(log).not.toContain(API_KEY)
    expect(log).not.toContain(HF_TOKEN)
    expect(printed.at(-1)).toMatch(/stopped$/)
  })

  test('a slow start: /health answers 503 while the model loads, and readiness waits for 200', async () => {
    const printed: string[] = []
    const server = await startServer(fakeSpec('slow', { slowMs: 1500 }), {
      print: (line) => printed.push(line),
      progressIntervalMs: 400,
    })
    await server.stop()
    // While it loads, a line every interval says it is still starting, with its last log line.
    const progress = printed.filter((line) => line.includes('still starting'))
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect(progress[0]).toMatch(/^vitest-llm-bench: vllm still starting after \d+ ms; its last log line: .+/)
    expect(printed.findIndex((line) => line.includes(' ready at '))).toBeGreaterThan(printed.indexOf(progress.at(-1)!))
    const log = readFileSync(server.logPath!, 'utf8').split('\n')
    const firstOk = log.findIndex((line) => line.includes('"GET /health HTTP/1.1" 200'))
    const ready = log.findIndex((line) => line.startsWith('# ready after'))
    expect(log.findIndex((line) => line.includes('"GET /health HTTP/1.1" 503'))).toBeGreaterThanOrEqual(0)
    expect(firstOk).toBeGreaterThan(log.findIndex((line) => line.includes('"GET /health HTTP/1.1" 503')))
    expect(log.findIndex((line) => line.includes('"GET /v1/models HTTP/1.1" 200'))).toBeGreaterThan(firstOk)
    expect(ready).toBeGreaterThan(firstOk)
  })

  test('a server that dies during start-up: ServerStartError with the last 50 log lines, secrets redacted', async () => {
    const error = await startFailure(
      startServer(fakeSpec('die', { args: ['--api-key', API_KEY], env: { HF_TOKEN } }), quiet),
    )
    expect(error.type).toBe('server-start')
    expect(error.message).toContain('vllm exited with code 1 during start-up')
    expect(error.message).toContain(`Full log: ${error.logPath}`)
    expect(error.logTail).toHaveLength(50)
    expect(error.message).toContain('--- last 50 lines of server output ---')
    expect(error.message).toContain('start-up failure line 60 of 60')
    expect(error.message).toContain('CUDA out of memory')
    expect(error.message).not.toContain('start-up failure line 10 of 60')
    expect(error.message).toContain('token seen in env: ***')
    expect(error.message).not.toContain(API_KEY)
    expect(error.message).not.toContain(HF_TOKEN)
    expect(readFileSync(error.logPath!, 'utf8')).not.toContain(HF_TOKEN)
    expect(trackedServerCount()).toBe(0)
  })

  test('a server that ignores SIGTERM is killed with SIGKILL after the grace period, its child too', async () => {
    const printed: string[] = []
    const server = await startServer(fakeSpec('ignore-term'), { print: (line) => printed.push(line) })
    const members = processesWith(marker)
    expect(members).toHaveLength(2)
    expect(new Set(members.map((p) => p.pgid))).toEqual(new Set([server.pid]))
    await server.stop()
    await expectNoProcessesWith(marker)
    expect(printed.at(-1)).toContain('killed (SIGKILL) after ignoring SIGTERM for 500 ms')
    expect(readFileSync(server.logPath!, 'utf8')).toContain('received SIGTERM, ignoring it')
  })

  test('the process group kill takes the child process the server started', async () => {
    const server = await startServer(fakeSpec('spawn-child'), quiet)
    const members = processesWith(marker)
    expect(members).toHaveLength(2)
    expect(members.find((p) => p.args.includes('fake-engine-core'))?.pgid).toBe(server.pid)
    await server.stop()
    await expectNoProcessesWith(marker)
  })

  test('a missing executable says so', async () => {
    const error = await startFailure(startServer(fakeSpec('ok', { bin: path.join(logDir, 'no-such-vllm') }), quiet))
    expect(error.message).toContain('was not found: install it, or pass `bin` with its path')
    expect(trackedServerCount()).toBe(0)
  })

  test('a fixed port already in use is refused before anything starts', async () => {
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as net.AddressInfo).port
    try {
      const error = await startFailure(startServer(fakeSpec('ok', { port }), quiet))
      expect(error.message).toContain(`port ${port} on 127.0.0.1 is already in use`)
      expect(processesWith(marker)).toEqual([])
    } finally {
      blocker.close()
    }
  })

  test('not ready within the start timeout: stopped, and the error says which limit to raise', async () => {
    const error = await startFailure(startServer(fakeSpec('slow', { slowMs: 600_000, startTimeoutMs: 1000 }), quiet))
    expect(error.message).toContain('vllm was not ready within 1 s')
    expect(error.message).toContain('HTTP 503')
    expect(error.message).toContain('startTimeoutMs')
    await expectNoProcessesWith(marker)
  })

  test('a server that refuses the API key fails fast, without showing the key', async () => {
    const error = await startFailure(
      startServer(fakeSpec('ok', { args: ['--api-key', API_KEY], apiKey: 'sk-wrong-key-1234' }), quiet),
    )
    expect(error.message).toContain('refused the API key')
    expect(error.message).not.toContain('sk-wrong-key-1234')
    expect(error.message).not.toContain(API_KEY)
  })

  test('a cancelled start stops the server', async () => {
    const controller = new AbortController()
    const starting = startServer(fakeSpec('slow', { slowMs: 600_000 }), { ...quiet, signal: controller.signal })
    setTimeout(() => controller.abort(new Error('test cancelled')), 500)
    const error = await startFailure(starting)
    expect(error.message).toContain('was cancelled')
    await expectNoProcessesWith(marker)
  })

  test('withServer stops the server when the body throws', async () => {
    let pid: number | undefined
    await expect(
      withServer(
        fakeSpec('spawn-child'),
        (server) => {
          pid = server.pid
          expect(processesWith(marker)).toHaveLength(2)
          throw new Error('the benchmark failed')
        },
        quiet,
      ),
    ).rejects.toThrow('the benchmark failed')
    expect(pid).toBeGreaterThan(0)
    await expectNoProcessesWith(marker)
  })

  test('command([...], { readyUrl }) runs any server; {port} is filled in args and URL', async () => {
    const server = await startServer(
      command([process.execPath, fakeServerScript, 'custom-model', '--port', '{port}', marker], {
        readyUrl: 'http://127.0.0.1:{port}/health',
        env: { FAKE_SERVER_MODE: 'ok' },
        logDir,
        stopGraceMs: 500,
      }),
      quiet,
    )
    expect(server.name).toBe('node')
    expect(server.model).toBe('custom-model')
    expect(server.launch?.args.slice(1, 4)).toEqual(['custom-model', '--port', server.baseUrl.split(':').pop()])
    await server.stop()
  })
})

describe('connecting to a running server', () => {
  test('a baseUrl is used as is (a trailing /v1 is stripped) and never stopped', async () => {
    const owner = await startServer(fakeSpec('ok'), quiet)
    const connected = await startServer(connect(`${owner.baseUrl}/v1`), quiet)
    expect(connected).toMatchObject({
      owned: false,
      baseUrl: owner.baseUrl,
      model: marker,
      pid: undefined,
      launch: undefined,
    })
    await connected.stop()
    expect((await fetch(`${owner.baseUrl}/health`)).status).toBe(200)
    await owner.stop()
  })

  test('nothing listening: ServerUnavailableError that says to start the server', async () => {
    const probe = net.createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as net.AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    const error = await startServer(connect(`http://127.0.0.1:${port}`, { readyTimeoutMs: 300 }), quiet).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ServerUnavailableError)
    expect((error as Error).message).toContain('start the server first')
  })

  test('nothing listening, no readyTimeoutMs: fails at the refusal in about 2 s, not the 30 s wait', async () => {
    const port = await closedPort()
    const started = performance.now()
    const error = await startServer(connect(`http://127.0.0.1:${port}`), quiet).catch((e: unknown) => e)
    const tookMs = performance.now() - started
    expect(error).toBeInstanceOf(ServerUnavailableError)
    expect((error as Error).message).toMatch(/nothing listens there, the connection was refused for 2 s/)
    expect((error as Error).message).toContain('connect(baseUrl, { readyTimeoutMs: 600_000 })')
    expect(tookMs).toBeGreaterThanOrEqual(1900)
    expect(tookMs).toBeLessThan(10_000)
  })

  test('readyTimeoutMs given: refusals are waited out, as from a server still loading its model', async () => {
    const port = await closedPort()
    // The port starts listening 3 s in, past the 2 s a connect without readyTimeoutMs would allow.
    let server: http.Server | undefined
    const opening = setTimeout(() => {
      server = http
        .createServer((req, res) => {
          res.setHeader('content-type', 'application/json')
          res.end(req.url === '/v1/models' ? JSON.stringify({ data: [{ id: 'late-model' }] }) : '{}')
        })
        .listen(port, '127.0.0.1')
    }, 3000)
    try {
      const connected = await startServer(connect(`http://127.0.0.1:${port}`, { readyTimeoutMs: 20_000 }), quiet)
      expect(connected.model).toBe('late-model')
      await connected.stop()
    } finally {
      clearTimeout(opening)
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
    }
  })
})

/** A port nothing listens on (bound once by the OS, then closed). */
async function closedPort(): Promise<number> {
  const probe = net.createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const port = (probe.address() as net.AddressInfo).port
  await new Promise((resolve) => probe.close(resolve))
  return port
}

describe('ServerPool', () => {
  test('one server per distinct launch config, shared by concurrent acquires; stopped at the last release', async () => {
    const pool = new ServerPool(quiet)
    const [a, b] = await Promise.all([pool.acquire(fakeSpec('ok')), pool.acquire(fakeSpec('ok'))])
    expect(a.pid).toBe(b.pid)
    const other = await pool.acquire(fakeSpec('ok', { env: { EXTRA: '1' } }))
    expect(other.pid).not.toBe(a.pid)
    expect(pool.size).toBe(2)
    expect(processesWith(marker)).toHaveLength(2)

    await pool.release(a)
    expect(a.exited).toBe(false)
    await pool.release(b)
    expect(a.exited).toBe(true)
    expect(pool.has(fakeSpec('ok'))).toBe(false)
    await pool.release(other)
    expect(pool.size).toBe(0)
    await expectNoProcessesWith(marker)
  })

  test('idleTimeoutMs: Infinity keeps a released server for the next acquire until stopAll', async () => {
    const pool = new ServerPool({ ...quiet, idleTimeoutMs: Number.POSITIVE_INFINITY })
    const first = await pool.acquire(fakeSpec('ok'))
    await pool.release(first)
    const again = await pool.acquire(fakeSpec('ok'))
    expect(again.pid).toBe(first.pid)
    expect(again.exited).toBe(false)
    await pool.stopAll()
    expect(first.exited).toBe(true)
    expect(pool.size).toBe(0)
  })

  test('a failed start is not cached: the next acquire tries again', async () => {
    const pool = new ServerPool(quiet)
    const first = await pool.acquire(fakeSpec('die')).catch((error: unknown) => error)
    expect(first).toBeInstanceOf(ServerStartError)
    expect(pool.size).toBe(0)
    // A cached failure would hand back the same rejected start, so the same error object.
    const second = await pool.acquire(fakeSpec('die')).catch((error: unknown) => error)
    expect(second).toBeInstanceOf(ServerStartError)
    expect(second).not.toBe(first)
    expect(pool.size).toBe(0)
  })
})

describe('a test body that throws', () => {
  let thrownMarker = ''
  // Set just before the throw: test.fails passes on any failure, this says it was the intended one.
  let reachedThrow = false
  const pool = new ServerPool(quiet)

  test.fails('throws while holding a pooled server (this test is expected to fail)', async ({ onTestFinished }) => {
    thrownMarker = marker
    onTestFinished(() => pool.stopAll())
    const server = await pool.acquire(fakeSpec('spawn-child'))
    expect(existsSync(server.logPath!)).toBe(true)
    expect(processesWith(marker)).toHaveLength(2)
    reachedThrow = true
    throw new Error('the benchmark body failed')
  })

  test('left no process behind', async () => {
    expect(thrownMarker).not.toBe('')
    expect(reachedThrow).toBe(true)
    await expectNoProcessesWith(thrownMarker)
    expect(pool.size).toBe(0)
  })
})

describe('command() options', () => {
  test('without options it waits on http://127.0.0.1:{port}/health; without {port} in its arguments it says what to give', () => {
    expect(command(['my-server', '--port', '{port}']).readyUrl).toBe('http://127.0.0.1:{port}/health')
    expect(() => command(['my-server'])).toThrow(
      /`command`: command\(\["my-server"\]\) has no `\{port\}` in its arguments and no `readyUrl`\. Pass the port as '\{port\}'/,
    )
    expect(command(['my-server'], { readyUrl: 'http://127.0.0.1:9000/ready' }).baseUrl).toBe('http://127.0.0.1:9000')
  })
})
