/** Every way a request can fail ends as a typed failure inside the record; send() never rejects. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { StreamingClient, resolveTarget } from '../../src/core/client/index.ts'
import type { ResolvedTarget } from '../../src/core/client/index.ts'
import { closedPort, startScriptedServer } from '../fixtures/sse/scripted-server.ts'
import type { ScriptedResponse, ScriptedServer } from '../fixtures/sse/scripted-server.ts'

const content = (text: string): string =>
  `data: {"choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}\n\n`
const okStream: ScriptedResponse = {
  writes: [
    {
      afterMs: 5,
      data: `${content('a')}data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}\n\ndata: [DONE]\n\n`,
    },
  ],
}
const request = { messages: [{ role: 'user', content: 'hi' }], maxTokens: 4 }

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer(() => okStream)
})
afterAll(async () => {
  await server.close()
})

async function withClient<T>(
  target: Partial<ResolvedTarget>,
  run: (client: StreamingClient) => Promise<T>,
): Promise<T> {
  const client = new StreamingClient(
    { ...resolveTarget({ baseUrl: server.url, requestTimeoutMs: 10_000 }, 'm'), ...target },
    { connections: 2 },
  )
  try {
    return await run(client)
  } finally {
    await client.close()
  }
}

function jsonError(status: number, body: string): ScriptedResponse {
  return { status, headers: { 'content-type': 'application/json' }, writes: [{ afterMs: 0, data: body }] }
}

describe('HTTP errors', () => {
  test.each([
    {
      status: 400,
      body: '{"object":"error","message":"max_tokens must be at least 1, got 0.","type":"BadRequestError","param":null,"code":400}',
      quote: 'max_tokens must be at least 1, got 0.',
    },
    {
      status: 429,
      body: '{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}',
      quote: 'Rate limit reached for requests',
    },
    {
      status: 500,
      body: '{"detail":"Internal Server Error: engine dead"}',
      quote: 'Internal Server Error: engine dead',
    },
    { status: 502, body: '<html><body>Bad Gateway</body></html>', quote: '<html><body>Bad Gateway</body></html>' },
  ])('HTTP $status: status and the server message are in the failure', async ({ status, body, quote }) => {
    server.respond = () => jsonError(status, body)
    const record = await withClient({}, (client) => client.send(request, { index: 0 }))
    expect(record.ok).toBe(false)
    expect(record.error?.kind).toBe('http')
    expect(record.error?.status).toBe(status)
    expect(record.error?.message).toContain(`HTTP ${status}: ${quote}`)
    expect(record.headersAt).toBeGreaterThanOrEqual(record.sentAt)
    expect(record.endAt).toBeGreaterThanOrEqual(record.headersAt as number)
    expect(record.chunkTimes).toEqual([])
    expect(record.firstTokenAt).toBeUndefined()
  })

  test('a long plain-text body is cut to its first 200 characters', async () => {
    server.respond = () => ({
      status: 503,
      headers: { 'content-type': 'text/plain' },
      writes: [{ afterMs: 0, data: 'x'.repeat(1000) }],
    })
    const record = await withClient({}, (client) => client.send(request, { index: 0 }))
    expect(record.error?.message).toContain(`HTTP 503: ${'x'.repeat(200)}...`)
    expect(record.error?.message).not.toContain('x'.repeat(201))
  })
})

test('connection refused: a network failure naming the URL and ECONNREFUSED', async () => {
  const port = await closedPort()
  const client = new StreamingClient(resolveTarget({ baseUrl: `http://127.0.0.1:${port}/v1/` }, 'm'), {
    connections: 1,
  })
  try {
    const record = await client.send(request, { index: 3 })
    expect(record.ok).toBe(false)
    expect(record.error?.kind).toBe('network')
    expect(record.error?.message).toContain(`http://127.0.0.1:${port}/v1/chat/completions`)
    expect(record.error?.message).toContain('ECONNREFUSED')
    expect(record.headersAt).toBeUndefined()
    expect(record.endAt).toBeGreaterThanOrEqual(record.sentAt)
  } finally {
    await client.close()
  }
})

describe('timeout', () => {
  test('mid-stream: fails at requestTimeoutMs after send, keeping what arrived', async () => {
    server.respond = () => ({ writes: [{ afterMs: 20, data: content('a') }], ending: 'hang' })
    const record = await withClient({ requestTimeoutMs: 300 }, (client) => client.send(request, { index: 0 }))
    expect(record.ok).toBe(false)
    expect(record.error?.kind).toBe('timeout')
    expect(record.error?.message).toContain('300 ms')
    expect(record.chunkTimes).toHaveLength(1)
    expect(record.endAt - record.sentAt).toBeGreaterThanOrEqual(299)
    expect(record.endAt - record.sentAt).toBeLessThan(300 + 250)
  })

  test('before headers: the server never answers', async () => {
    server.respond = () => ({ writes: [], silent: true })
    const record = await withClient({ requestTimeoutMs: 200 }, (client) => client.send(request, { index: 0 }))
    expect(record.error?.kind).toBe('timeout')
    expect(record.headersAt).toBeUndefined()
    expect(record.endAt - record.sentAt).toBeGreaterThanOrEqual(199)
  })
})

describe('cancel via signal', () => {
  test('mid-stream: cancelled at the abort, the server sees the connection drop', async () => {
    server.respond = () => ({
      writes: [
        { afterMs: 10, data: content('a') },
        { afterMs: 400, data: content('b') },
      ],
    })
    const controller = new AbortController()
    const before = server.requests.length
    const record = await withClient({}, async (client) => {
      const pending = client.send(request, { index: 0, signal: controller.signal })
      await new Promise((resolve) => setTimeout(resolve, 100))
      const abortedAt = performance.now()
      controller.abort(new Error('drain grace over'))
      const r = await pending
      expect(r.endAt).toBeGreaterThanOrEqual(abortedAt)
      return r
    })
    expect(record.ok).toBe(false)
    expect(record.error).toEqual({ kind: 'cancelled', message: 'request cancelled: drain grace over' })
    expect(record.chunkTimes).toHaveLength(1)
    expect(record.endAt - record.sentAt).toBeLessThan(400)
    // The second write never happened: the client dropped the connection.
    await new Promise((resolve) => setTimeout(resolve, 450))
    expect(server.requests[before]?.writeTimes).toHaveLength(1)
  })

  test('already aborted: nothing is sent', async () => {
    const before = server.requests.length
    const record = await withClient({}, (client) => client.send(request, { index: 0, signal: AbortSignal.abort() }))
    expect(record.error?.kind).toBe('cancelled')
    expect(record.endAt).toBe(record.sentAt)
    expect(server.requests.length).toBe(before)
  })

  test('the client keeps working after timeouts and cancels', async () => {
    server.respond = () => ({ writes: [], silent: true })
    await withClient({ requestTimeoutMs: 100 }, async (client) => {
      const failed = await Promise.all([
        client.send(request, { index: 0 }),
        client.send(request, { index: 1, signal: AbortSignal.timeout(50) }),
      ])
      expect(failed.map((r) => r.error?.kind).sort()).toEqual(['cancelled', 'timeout'])
      server.respond = () => okStream
      const ok = await client.send(request, { index: 2 })
      expect(ok.ok).toBe(true)
      expect(ok.outputTokens).toBe(1)
    })
  })
})

test('a request sent after close() is a network failure, not a rejection', async () => {
  const client = new StreamingClient(resolveTarget({ baseUrl: server.url }, 'm'), { connections: 1 })
  await client.close()
  const record = await client.send(request, { index: 0 })
  expect(record.ok).toBe(false)
  expect(record.error?.kind).toBe('network')
  expect(record.error?.message).toMatch(/StreamingClient was closed.*UND_ERR_(CLOSED|DESTROYED)/)
})

test('connection dropped mid-stream: incomplete, with the socket error code', async () => {
  server.respond = () => ({ writes: [{ afterMs: 10, data: content('a') }], ending: 'destroy' })
  const record = await withClient({}, (client) => client.send(request, { index: 0 }))
  expect(record.ok).toBe(false)
  expect(record.error?.kind).toBe('incomplete')
  expect(record.error?.message).toMatch(/\[DONE\].*\((UND_ERR_SOCKET|ECONNRESET)\)/)
  expect(record.chunkTimes).toHaveLength(1)
})

test('a 200 JSON body with an error object is a failure, not a completion', async () => {
  server.respond = () => jsonError(200, '{"error":{"message":"prompt too long"}}')
  const record = await withClient({}, (client) => client.send(request, { index: 0 }))
  expect(record.error?.kind).toBe('stream-error')
  expect(record.error?.message).toContain('prompt too long')
})

describe('the API key', () => {
  const key = 'sk-test-secret-4242'

  test('is sent as a Bearer token', async () => {
    server.respond = () => okStream
    const before = server.requests.length
    const record = await withClient({ apiKey: key }, (client) => client.send(request, { index: 0 }))
    expect(record.ok).toBe(true)
    expect(server.requests[before]?.headers.authorization).toBe(`Bearer ${key}`)
    expect(server.requests[before]?.headers['content-type']).toBe('application/json')
    expect(JSON.stringify(record)).not.toContain(key)
  })

  test('never appears in a record, even when the server echoes it', async () => {
    server.respond = () =>
      jsonError(401, `{"error":{"message":"Incorrect API key provided: ${key}. You can find your API key at ..."}}`)
    const record = await withClient({ apiKey: key }, (client) => client.send(request, { index: 0 }))
    expect(record.error?.kind).toBe('http')
    expect(record.error?.message).toContain('Incorrect API key provided: ***')
    expect(record.error?.message).toContain('OPENAI_API_KEY')
    expect(JSON.stringify(record)).not.toContain(key)
  })

  test("the Messages API gets it as Anthropic's x-api-key too, unless a header gives one", async () => {
    server.respond = () => jsonError(401, '{"type":"error","error":{"type":"authentication_error","message":"no"}}')
    const before = server.requests.length
    await withClient({ apiKey: key, api: 'messages' }, (client) => client.send(request, { index: 0 }))
    expect(server.requests[before]?.headers['x-api-key']).toBe(key)
    expect(server.requests[before]?.headers.authorization).toBe(`Bearer ${key}`)
    await withClient({ apiKey: key, api: 'messages', headers: { 'X-Api-Key': 'other' } }, (client) =>
      client.send(request, { index: 0 }),
    )
    expect(server.requests[before + 1]?.headers['x-api-key']).toBe('other')
    // Not for the OpenAI APIs.
    await withClient({ apiKey: key, api: 'responses' }, (client) => client.send(request, { index: 0 }))
    expect(server.requests[before + 2]?.headers['x-api-key']).toBeUndefined()
  })

  test('without a key no Authorization header is sent', async () => {
    server.respond = () => okStream
    const before = server.requests.length
    await withClient({ apiKey: undefined }, (client) => client.send(request, { index: 0 }))
    expect(server.requests[before]?.headers.authorization).toBeUndefined()
  })
})
