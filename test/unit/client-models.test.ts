/** listModels and waitForReady against a local server whose routes each test scripts. */
import { createServer } from 'node:http'
import type { IncomingMessage, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { listModels, waitForReady } from '../../src/core/client/index.ts'
import { ServerUnavailableError } from '../../src/core/contract/errors.ts'
import { closedPort } from '../fixtures/sse/scripted-server.ts'

type Route = (req: IncomingMessage, hits: number) => { status: number; body: string }

let server: Server
let base = ''
let routes: Record<string, Route> = {}
const hits: Record<string, number> = {}
const seenAuth: Array<string | undefined> = []

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? ''
    hits[path] = (hits[path] ?? 0) + 1
    seenAuth.push(req.headers.authorization)
    const route = routes[path]
    const answer = route ? route(req, hits[path]) : { status: 404, body: '{"detail":"Not Found"}' }
    res.writeHead(answer.status, { 'content-type': 'application/json' })
    res.end(answer.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

function reset(next: Record<string, Route>): void {
  routes = next
  for (const key of Object.keys(hits)) delete hits[key]
  seenAuth.length = 0
}

describe('listModels', () => {
  test('ids in order, max_model_len when given, bearer token sent', async () => {
    reset({
      '/v1/models': () => ({
        status: 200,
        body: JSON.stringify({
          object: 'list',
          data: [{ id: 'llama', object: 'model', max_model_len: 8192 }, { id: 'lora-a' }, { object: 'model' }],
        }),
      }),
    })
    expect(await listModels(`${base}/v1/`, { apiKey: 'sk-x' })).toEqual([
      { id: 'llama', maxModelLen: 8192 },
      { id: 'lora-a' },
    ])
    expect(seenAuth).toEqual(['Bearer sk-x'])
  })

  test('401: ServerUnavailableError that says to check the key, without the key', async () => {
    reset({ '/v1/models': () => ({ status: 401, body: '{"error":{"message":"Invalid key sk-secret-77"}}' }) })
    const error = await listModels(base, { apiKey: 'sk-secret-77' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServerUnavailableError)
    expect((error as Error).message).toContain(`GET ${base}/v1/models answered HTTP 401`)
    expect((error as Error).message).toContain('OPENAI_API_KEY')
    expect((error as Error).message).not.toContain('sk-secret-77')
  })

  test('not a model list: says so', async () => {
    reset({ '/v1/models': () => ({ status: 200, body: '{"models":[]}' }) })
    await expect(listModels(base)).rejects.toThrow(/did not answer an OpenAI model list/)
  })

  test('connection refused: names the URL and ECONNREFUSED', async () => {
    const port = await closedPort()
    const error = await listModels(`http://127.0.0.1:${port}`).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServerUnavailableError)
    expect((error as Error).message).toContain(`GET http://127.0.0.1:${port}/v1/models failed`)
    expect((error as Error).message).toContain('ECONNREFUSED')
  })
})

describe('waitForReady', () => {
  const models: Route = () => ({ status: 200, body: '{"data":[{"id":"m"}]}' })

  test('polls /health through 503s, then checks /v1/models', async () => {
    reset({
      '/health': (_req, n) =>
        n <= 3 ? { status: 503, body: '{"error":"Loading model"}' } : { status: 200, body: '{"status":"ok"}' },
      '/v1/models': models,
    })
    await waitForReady(base, { intervalMs: 10, timeoutMs: 10_000 })
    expect(hits['/health']).toBe(4)
    expect(hits['/v1/models']).toBe(1)
  })

  test('a server without /health is judged by /v1/models', async () => {
    reset({ '/v1/models': (_req, n) => (n <= 2 ? { status: 503, body: '' } : { status: 200, body: '{"data":[]}' }) })
    await waitForReady(`${base}/v1`, { intervalMs: 10, timeoutMs: 10_000 })
    expect(hits['/v1/models']).toBe(3)
  })

  test('times out with the URL and the last error', async () => {
    reset({ '/health': () => ({ status: 503, body: '{"error":"Loading model"}' }) })
    const started = performance.now()
    const error = await waitForReady(base, { intervalMs: 20, timeoutMs: 200 }).catch((e: unknown) => e)
    expect(performance.now() - started).toBeGreaterThanOrEqual(195)
    expect(error).toBeInstanceOf(ServerUnavailableError)
    expect((error as Error).message).toContain(`${base} was not ready within 200 ms`)
    expect((error as Error).message).toContain('GET /health answered HTTP 503')
  })

  test('connection refused until the timeout: the last error says ECONNREFUSED', async () => {
    const port = await closedPort()
    await expect(waitForReady(`http://127.0.0.1:${port}`, { intervalMs: 20, timeoutMs: 150 })).rejects.toThrow(
      /not ready within 150 ms; last answer: GET \/health: .*ECONNREFUSED/,
    )
  })

  test('refused for refusedFailMs: fails long before the timeout, says nothing listens and names the option that waits', async () => {
    const port = await closedPort()
    const started = performance.now()
    const error = await waitForReady(`http://127.0.0.1:${port}`, {
      intervalMs: 20,
      timeoutMs: 30_000,
      refusedFailMs: 300,
      timeoutOption: '`connect(url, { readyTimeoutMs })`',
    }).catch((e: unknown) => e)
    expect(performance.now() - started).toBeLessThan(3_000)
    expect(error).toBeInstanceOf(ServerUnavailableError)
    const message = (error as Error).message
    expect(message).toMatch(
      new RegExp(
        `^Nothing listens at http://127\\.0\\.0\\.1:${port}: the connection was refused for 300 ms \\(GET /health: .*ECONNREFUSED.*\\)\\. Start the server first`,
      ),
    )
    expect(message).toContain('To wait for a server that is still starting, use `connect(url, { readyTimeoutMs })`.')
  })

  test('a server that answers 503 is waited for to the timeout even with refusedFailMs', async () => {
    reset({ '/health': () => ({ status: 503, body: '' }) })
    const error = await waitForReady(base, { intervalMs: 20, timeoutMs: 600, refusedFailMs: 100 }).catch(
      (e: unknown) => e,
    )
    expect((error as Error).message).toContain(
      `${base} was not ready within 600 ms; last answer: GET /health answered HTTP 503`,
    )
  })

  test('a refused API key ends the wait at once and says which key to set', async () => {
    reset({
      '/health': () => ({ status: 200, body: '' }),
      '/v1/models': () => ({ status: 401, body: '{"error":"Unauthorized"}' }),
    })
    const started = performance.now()
    const error = await waitForReady(base, { intervalMs: 10, timeoutMs: 10_000, apiKey: 'wrong' }).catch(
      (e: unknown) => e,
    )
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(error).toBeInstanceOf(ServerUnavailableError)
    expect((error as Error).message).toMatch(
      /refused the API key \(GET \/v1\/models answered HTTP 401\): set target.apiKey or OPENAI_API_KEY/,
    )
    expect(hits['/v1/models']).toBe(1)
  })

  test('an aborted signal stops the wait with its reason', async () => {
    reset({ '/health': () => ({ status: 503, body: '' }) })
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('run cancelled')), 50)
    await expect(waitForReady(base, { intervalMs: 10, timeoutMs: 10_000, signal: controller.signal })).rejects.toThrow(
      'run cancelled',
    )
  })
})
