/** Connection handling: servers that close after each response, pool reuse, non-SSE and burst responses. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { StreamingClient, resolveTarget } from '../../src/core/client/index.ts'
import { startScriptedServer } from '../fixtures/sse/scripted-server.ts'
import type { ScriptedResponse, ScriptedServer } from '../fixtures/sse/scripted-server.ts'

const content = (text: string): string =>
  `data: {"choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}\n\n`
const usage = 'data: {"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":3}}\n\n'
const done = 'data: [DONE]\n\n'
const threeTokens: ScriptedResponse['writes'] = [
  { afterMs: 5, data: content('a') },
  { afterMs: 5, data: content('b') },
  { afterMs: 5, data: content('c') + usage + done },
]
const request = { messages: [{ role: 'user', content: 'hi' }], maxTokens: 3 }

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer(() => ({ writes: threeTokens }))
})
afterAll(async () => {
  await server.close()
})

function client(connections: number): StreamingClient {
  return new StreamingClient(resolveTarget({ baseUrl: server.url, requestTimeoutMs: 10_000 }, 'm'), { connections })
}

describe('servers that close the connection after each response', () => {
  test.each([
    {
      how: 'Connection: close header',
      response: { headers: { 'content-type': 'text/event-stream', connection: 'close' }, writes: threeTokens },
    },
    // llama.cpp-like: keep-alive is implied, yet the socket is destroyed after the final byte.
    {
      how: 'socket destroyed after the last byte',
      response: { writes: threeTokens, ending: 'end-then-destroy' as const },
    },
  ])('$how: 10 sequential requests, 0 failures, one connection each', async ({ response }) => {
    server.respond = () => response
    const connectionsBefore = server.connections
    const requestsBefore = server.requests.length
    const c = client(1)
    try {
      const kinds: Array<string | undefined> = []
      for (let i = 0; i < 10; i++) {
        const record = await c.send(request, { index: i })
        kinds.push(record.error?.kind)
        expect(record.outputTokens).toBe(3)
        expect(record.chunkTimes).toHaveLength(3)
      }
      expect(kinds).toEqual(Array(10).fill(undefined))
    } finally {
      await c.close()
    }
    expect(server.requests.length - requestsBefore).toBe(10)
    expect(server.connections - connectionsBefore).toBe(10)
  })
})

describe('a kept-alive connection the server already dropped', () => {
  test('the request is sent once more on a new connection: no error counted', async () => {
    // Every second request on a connection finds it dropped (as after a server's keep-alive timeout).
    server.respond = (r) =>
      server.requests.filter((x) => x.connection === r.connection).length > 1
        ? { writes: [], dropConnection: true }
        : { writes: threeTokens }
    const requestsBefore = server.requests.length
    const c = client(1)
    try {
      for (let i = 0; i < 10; i++) {
        const record = await c.send(request, { index: i })
        expect(record.error).toBeUndefined()
        expect(record.outputTokens).toBe(3)
      }
    } finally {
      await c.close()
    }
    // 10 served, 9 dropped on a reused connection and sent again.
    expect(server.requests.length - requestsBefore).toBe(19)
  })

  test('only once: a server that drops every request is a network failure', async () => {
    server.respond = () => ({ writes: [], dropConnection: true })
    const requestsBefore = server.requests.length
    const c = client(1)
    try {
      const record = await c.send(request, { index: 0 })
      expect(record.error?.kind).toBe('network')
      expect(record.error?.message).toMatch(/\((UND_ERR_SOCKET|ECONNRESET|EPIPE)\)/)
    } finally {
      await c.close()
    }
    expect(server.requests.length - requestsBefore).toBe(2)
  })
})

test('keep-alive connections are reused and the pool opens at most `connections`', async () => {
  server.respond = () => ({ writes: threeTokens })
  const connectionsBefore = server.connections
  const c = client(4)
  try {
    for (let round = 0; round < 3; round++) {
      const records = await Promise.all(Array.from({ length: 4 }, (_, i) => c.send(request, { index: round * 4 + i })))
      expect(records.every((r) => r.ok)).toBe(true)
    }
  } finally {
    await c.close()
  }
  expect(server.connections - connectionsBefore).toBeLessThanOrEqual(4)
  expect(server.connections - connectionsBefore).toBeGreaterThanOrEqual(1)
})

describe('responses that are not a token stream', () => {
  test('application/json chat.completion: ok, streamed false, no chunk times, tokens from usage', async () => {
    const completion = {
      id: 'chatcmpl-9',
      object: 'chat.completion',
      model: 'm',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'The whole answer at once.' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 },
    }
    server.respond = () => ({
      headers: { 'content-type': 'application/json' },
      writes: [{ afterMs: 60, data: JSON.stringify(completion) }],
    })
    const c = client(1)
    try {
      const record = await c.send(request, { index: 0 })
      expect(record.ok).toBe(true)
      expect(record.streamed).toBe(false)
      expect(record.chunkTimes).toEqual([])
      expect(record.firstTokenAt).toBeUndefined()
      expect(record.outputTokens).toBe(6)
      expect(record.inputTokens).toBe(12)
      expect(record.usageReported).toBe(true)
      expect(record.finishReason).toBe('stop')
      expect(record.endAt - record.sentAt).toBeGreaterThanOrEqual(58)
    } finally {
      await c.close()
    }
  })

  test('a body that is neither SSE nor JSON is malformed and says what it was', async () => {
    server.respond = () => ({
      headers: { 'content-type': 'text/html' },
      writes: [{ afterMs: 0, data: '<html>login page</html>' }],
    })
    const c = client(1)
    try {
      const record = await c.send(request, { index: 0 })
      expect(record.error?.kind).toBe('malformed')
      expect(record.error?.message).toContain('text/html')
    } finally {
      await c.close()
    }
  })

  test('separate chunked segments coalesced into one TCP send still count as one burst', async () => {
    // Five events, each its own chunked-encoding segment (undici hands them over one by one) but one read.
    server.respond = () => ({
      corked: true,
      writes: ['a', 'b', 'c', 'd', 'e']
        .map((t) => ({ afterMs: 0, data: content(t) }))
        .concat([{ afterMs: 0, data: usage + done }]),
    })
    const c = client(1)
    try {
      const record = await c.send(request, { index: 0 })
      expect(record.ok).toBe(true)
      expect(record.chunkTimes).toHaveLength(5)
      expect(record.readInOneBurst).toBe(true)
      // Still an event stream: whether the server buffers is the idle probe's call, not this read's.
      expect(record.streamed).toBe(true)
    } finally {
      await c.close()
    }
  })

  test('two content events in one read and nothing else is not a burst (fewer than 3)', async () => {
    server.respond = () => ({ writes: [{ afterMs: 0, data: content('a') + content('b') + usage + done }] })
    const c = client(1)
    try {
      const record = await c.send(request, { index: 0 })
      expect(record.chunkTimes).toHaveLength(2)
      expect(record.readInOneBurst).toBe(false)
    } finally {
      await c.close()
    }
  })
})
