/** The idle streaming probe decides whether a server buffers; a client that reads late cannot fool it. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { LatenessMonitor, StreamingClient, probeStreaming, resolveTarget } from '../../src/core/client/index.ts'
import { MetricsAccumulator } from '../../src/core/metrics/index.ts'
import { startScriptedServer } from '../fixtures/sse/scripted-server.ts'
import { startThreadedStreamingServer } from '../fixtures/sse/threaded-streaming-server.ts'
import type { ScriptedResponse, ScriptedServer } from '../fixtures/sse/scripted-server.ts'

const content = (text: string): string =>
  `data: {"choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}\n\n`
const tail = 'data: {"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":5}}\n\ndata: [DONE]\n\n'
const words = ['a', 'b', 'c', 'd', 'e']
/** Five tokens 10 ms apart: a server that streams. */
const streaming: ScriptedResponse = {
  writes: [...words.map((t) => ({ afterMs: 10, data: content(t) })), { afterMs: 1, data: tail }],
}
/** The same five tokens in one write: a server (or proxy) that buffers, still labelled text/event-stream. */
const buffered: ScriptedResponse = { writes: [{ afterMs: 30, data: words.map(content).join('') + tail }] }
const request = { messages: [{ role: 'user', content: 'hi' }], maxTokens: 5 }

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer(() => streaming)
})
afterAll(async () => {
  await server.close()
})

function withClient<T>(fn: (client: StreamingClient) => Promise<T>, url = server.url): Promise<T> {
  const client = new StreamingClient(resolveTarget({ baseUrl: url, requestTimeoutMs: 10_000 }, 'm'), { connections: 1 })
  return fn(client).finally(() => client.close())
}

/**
 * How long a test holds up the client's event loop, started 5 ms after a send, ms: past the
 * threaded server's whole response (100 ms of prefill, then 40 ms of events), with room for the
 * timer and the server thread to run late on a busy machine (two CPU-bound processes beside the suite).
 */
const HOLD_UP_MS = 400

/** Keeps the event loop busy for `ms`, as a CPU-starved or late client would be. */
function blockFor(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // busy
  }
}

describe('probeStreaming', () => {
  test('a server that sends the whole output in one write is found buffering after 3 tries', async () => {
    server.respond = () => buffered
    const outcome = await withClient((client) =>
      probeStreaming((attempt) => client.send(request, { index: -1 - attempt })),
    )
    expect(outcome).toEqual({ serverBuffers: true, requests: 3 })
  })

  test('a server that streams is found streaming on the first try', async () => {
    server.respond = () => streaming
    const outcome = await withClient((client) =>
      probeStreaming((attempt) => client.send(request, { index: -1 - attempt })),
    )
    expect(outcome).toEqual({ serverBuffers: false, requests: 1 })
  })

  test('one late read does not make a streaming server buffered: the next try streams', async () => {
    const threaded = await startThreadedStreamingServer()
    const outcome = await withClient(
      (client) =>
        probeStreaming(async (attempt) => {
          const pending = client.send(request, { index: -1 - attempt })
          // The first try's reader is late for the whole response.
          if (attempt === 0) setTimeout(() => blockFor(HOLD_UP_MS), 5)
          return pending
        }),
      threaded.url,
    ).finally(() => threaded.close())
    expect(outcome).toEqual({ serverBuffers: false, requests: 2 })
  })

  test('a JSON body or a failed probe cannot tell: the content type decides', async () => {
    server.respond = () => ({
      headers: { 'content-type': 'application/json' },
      writes: [{ afterMs: 1, data: '{"choices":[{"message":{"content":"hi"}}]}' }],
    })
    expect(await withClient((client) => probeStreaming(() => client.send(request, { index: -1 })))).toEqual({
      serverBuffers: undefined,
      requests: 1,
    })
    server.respond = () => ({ status: 500, writes: [{ afterMs: 1, data: 'boom' }] })
    expect(await withClient((client) => probeStreaming(() => client.send(request, { index: -1 })))).toEqual({
      serverBuffers: undefined,
      requests: 1,
    })
  })
})

describe('a late reader of a streaming server', () => {
  test('its responses arrive in one read, count in TTFT, and carry how late the client was', async () => {
    const threaded = await startThreadedStreamingServer()
    const monitor = new LatenessMonitor()
    monitor.start()
    const accumulator = new MetricsAccumulator()
    try {
      await withClient(async (client) => {
        const probe = await probeStreaming((attempt) => client.send(request, { index: -1 - attempt }))
        expect(probe.serverBuffers).toBe(false)
        for (let i = 0; i < 3; i++) {
          const pending = client.send(request, { index: i })
          setTimeout(() => blockFor(HOLD_UP_MS), 5)
          const record = await pending
          record.clientLateMs = monitor.lateBetween(record.sentAt, record.endAt)
          expect(record.readInOneBurst).toBe(true)
          expect(record.clientLateMs).toBeGreaterThan(60)
          accumulator.add(record)
        }
        const outcome = accumulator.finish({ durationMs: 1000, serverBuffers: probe.serverBuffers })
        expect(outcome.streaming).toMatchObject({ streamed: true, evidence: 'probe', burstRequests: 3 })
        expect(outcome.metrics.ttftMs.count).toBe(3)
        expect(outcome.lateness).toMatchObject({ watchedRequests: 3, lateRequests: 3 })
      }, threaded.url)
    } finally {
      monitor.stop()
      await threaded.close()
    }
  })

  test('the monitor reports 0 for a window in which the loop was never held up', async () => {
    const monitor = new LatenessMonitor()
    monitor.start()
    try {
      const from = performance.now()
      await new Promise((resolve) => setTimeout(resolve, 60))
      const quiet = monitor.lateBetween(from, performance.now())
      blockFor(40)
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(quiet).toBeLessThan(40)
      expect(monitor.lateBetween(from, performance.now())).toBeGreaterThanOrEqual(30)
    } finally {
      monitor.stop()
    }
  })
})
