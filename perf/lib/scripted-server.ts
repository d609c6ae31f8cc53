/**
 * A minimal OpenAI-compatible streaming server for client measurements: it knows when it wrote
 * each event, on the shared monotonic clock ({@link monotonicNowMs}), so a client's timestamps can
 * be compared with the truth.
 *
 * Plain `node:net` with a hand-written HTTP/1.1 framing (keep-alive, chunked responses) and
 * events rendered once into buffers: a write costs one `socket.write` of a ready buffer, so the
 * server stays far cheaper than the client it measures and the figures are the client's.
 *
 * Modes (set with `POST /_config`):
 * - `instant`: every event as fast as the socket takes it, `eventsPerWrite` events per write,
 *   streams taking turns once per event-loop turn.
 * - `timed`: a role chunk at once, content event k at arrival + `ttftMs` + k × `itlMs`, each
 *   write time logged (`GET /_log`, keyed by the request's first message or prompt).
 */
import { createServer } from 'node:net'
import type { AddressInfo, Server, Socket } from 'node:net'
import { monotonicNowMs } from './monotonic-clock.ts'

/** How the server streams; changed at run time with `POST /_config`. */
export interface ScriptedServerConfig {
  mode: 'instant' | 'timed'
  /** Timed mode: request arrival to the first content event, ms. */
  ttftMs: number
  /** Timed mode: gap between consecutive content events, ms. */
  itlMs: number
  /** Instant mode: events per socket write. */
  eventsPerWrite: number
  /** Keep a write log per request (timed mode). */
  log: boolean
}

/** What the server did for one request (times on the shared monotonic clock, ms). */
export interface ScriptedRequestLog {
  /** First user message (chat) or prompt (completions): the request's identity. */
  key: string
  /** When the request's body had arrived. */
  arrivedAt: number
  /** When each content event was written. */
  writes: number[]
}

export interface ScriptedServer {
  url: string
  port: number
  close(): Promise<void>
}

const MODEL = 'perf-model'
const CRLF = '\r\n'

function chunkFrame(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(payload.length.toString(16) + CRLF), payload, Buffer.from(CRLF)])
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`
}

// A vLLM-shaped chat stream: the field order and sizes of `vllm serve` chunks.
const ID = 'chatcmpl-0123456789abcdef0123456789abcdef'
const CREATED = 1_700_000_000
const base = { id: ID, object: 'chat.completion.chunk', created: CREATED, model: MODEL }
const ROLE = sse({
  ...base,
  choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
})
const TOKEN = sse({
  ...base,
  choices: [{ index: 0, delta: { content: ' token' }, logprobs: null, finish_reason: null }],
})
const LAST_TOKEN = sse({
  ...base,
  choices: [{ index: 0, delta: { content: ' token' }, logprobs: null, finish_reason: 'length', stop_reason: null }],
})
const DONE = 'data: [DONE]\n\n'
const usageEvent = (prompt: number, completion: number): string =>
  sse({
    ...base,
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  })

const SSE_HEAD = Buffer.from(
  `HTTP/1.1 200 OK${CRLF}content-type: text/event-stream; charset=utf-8${CRLF}cache-control: no-cache${CRLF}transfer-encoding: chunked${CRLF}connection: keep-alive${CRLF}${CRLF}`,
)
const TERMINATOR = Buffer.from(`0${CRLF}${CRLF}`)
const ROLE_FRAME = chunkFrame(Buffer.from(ROLE))
const TOKEN_FRAME = chunkFrame(Buffer.from(TOKEN))
/** Token frames joined, per events-per-write count, built on first use. */
const tokenRuns = new Map<number, Buffer>()

function tokenRun(count: number): Buffer {
  let run = tokenRuns.get(count)
  if (run === undefined) {
    run = Buffer.concat(Array.from({ length: count }, () => TOKEN_FRAME))
    tokenRuns.set(count, run)
  }
  return run
}

function ending(promptTokens: number, completionTokens: number): Buffer {
  return Buffer.concat([
    chunkFrame(Buffer.from(LAST_TOKEN + usageEvent(promptTokens, completionTokens) + DONE)),
    TERMINATOR,
  ])
}

function jsonResponse(status: number, body: unknown): Buffer {
  const text = JSON.stringify(body)
  return Buffer.from(
    `HTTP/1.1 ${status} ${status === 200 ? 'OK' : 'Error'}${CRLF}content-type: application/json${CRLF}content-length: ${Buffer.byteLength(text)}${CRLF}connection: keep-alive${CRLF}${CRLF}${text}`,
  )
}

interface Stream {
  socket: Socket
  tokens: number
  sent: number
  promptTokens: number
  arrivedAt: number
  log: ScriptedRequestLog | undefined
  timer: ReturnType<typeof setTimeout> | undefined
  done: () => void
}

/**
 * Starts the server on 127.0.0.1 (port 0: a free one). `reusePort` lets several processes listen on
 * one port (Linux SO_REUSEPORT: the kernel spreads connections over them).
 */
export async function startScriptedServer(
  initial: Partial<ScriptedServerConfig> = {},
  port = 0,
  reusePort = false,
): Promise<ScriptedServer> {
  const config: ScriptedServerConfig = {
    mode: 'instant',
    ttftMs: 20,
    itlMs: 10,
    eventsPerWrite: 1,
    log: false,
    ...initial,
  }
  const logs: ScriptedRequestLog[] = []
  const sockets = new Set<Socket>()
  /** Instant-mode streams with events left, served round-robin once per event-loop turn. */
  let instant: Stream[] = []
  let instantQueued = false

  const pumpInstant = (): void => {
    instantQueued = false
    const streams = instant
    instant = []
    for (const stream of streams) {
      if (stream.socket.destroyed) continue
      const left = stream.tokens - stream.sent
      if (left <= 1) {
        finish(stream)
        continue
      }
      const count = Math.min(config.eventsPerWrite, left - 1)
      stream.sent += count
      const flushed = stream.socket.write(tokenRun(count))
      if (flushed) instant.push(stream)
      else stream.socket.once('drain', () => queueInstant(stream))
    }
    if (instant.length > 0 && !instantQueued) {
      instantQueued = true
      setImmediate(pumpInstant)
    }
  }
  const queueInstant = (stream: Stream): void => {
    instant.push(stream)
    if (!instantQueued) {
      instantQueued = true
      setImmediate(pumpInstant)
    }
  }

  const finish = (stream: Stream): void => {
    if (stream.log) stream.log.writes.push(monotonicNowMs())
    stream.socket.write(ending(stream.promptTokens, stream.tokens))
    stream.done()
  }

  const timedStep = (stream: Stream): void => {
    stream.timer = undefined
    if (stream.socket.destroyed) return
    if (stream.sent + 1 >= stream.tokens) {
      finish(stream)
      return
    }
    if (stream.log) stream.log.writes.push(monotonicNowMs())
    stream.socket.write(TOKEN_FRAME)
    stream.sent++
    scheduleTimed(stream)
  }
  const scheduleTimed = (stream: Stream): void => {
    const due = stream.arrivedAt + config.ttftMs + stream.sent * config.itlMs
    stream.timer = setTimeout(timedStep, Math.max(0, due - monotonicNowMs()), stream)
  }

  const handle = (
    socket: Socket,
    method: string,
    path: string,
    body: string,
    arrivedAt: number,
    done: () => void,
  ): void => {
    if (method === 'GET' && path === '/health') {
      socket.write(`HTTP/1.1 200 OK${CRLF}content-length: 0${CRLF}connection: keep-alive${CRLF}${CRLF}`)
    } else if (method === 'GET' && path === '/v1/models') {
      socket.write(
        jsonResponse(200, {
          object: 'list',
          data: [{ id: MODEL, object: 'model', owned_by: 'scripted', max_model_len: 32768 }],
        }),
      )
    } else if (method === 'GET' && path === '/_log') {
      socket.write(jsonResponse(200, logs.splice(0, logs.length)))
    } else if (method === 'GET' && path === '/_stats') {
      const cpu = process.cpuUsage()
      socket.write(jsonResponse(200, { cpuUs: cpu.user + cpu.system, rssBytes: process.memoryUsage.rss() }))
    } else if (method === 'POST' && path === '/_config') {
      Object.assign(config, JSON.parse(body) as Partial<ScriptedServerConfig>)
      socket.write(jsonResponse(200, config))
    } else if (method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/completions')) {
      const request = JSON.parse(body) as {
        max_tokens?: number
        messages?: Array<{ content?: string }>
        prompt?: string
      }
      const key = request.messages?.[0]?.content ?? request.prompt ?? ''
      const tokens = Math.max(1, request.max_tokens ?? 16)
      const log = config.log ? { key, arrivedAt, writes: [] } : undefined
      if (log) logs.push(log)
      const stream: Stream = {
        socket,
        tokens,
        sent: 0,
        promptTokens: Math.max(1, Math.round(key.length / 4)),
        arrivedAt,
        log,
        timer: undefined,
        done,
      }
      socket.write(Buffer.concat([SSE_HEAD, ROLE_FRAME]))
      if (config.mode === 'instant') queueInstant(stream)
      else scheduleTimed(stream)
      return
    } else {
      socket.write(jsonResponse(404, { error: { message: `not found: ${method} ${path}` } }))
    }
    done()
  }

  const server: Server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
    let buffered: Buffer = Buffer.alloc(0)
    let busy = false
    const next = (): void => {
      if (busy) return
      const headEnd = buffered.indexOf('\r\n\r\n')
      if (headEnd < 0) return
      const head = buffered.subarray(0, headEnd).toString('latin1')
      const lines = head.split(CRLF)
      const [method = '', target = '/'] = (lines[0] ?? '').split(' ')
      let length = 0
      for (let i = 1; i < lines.length; i++) {
        const line = lines[i] as string
        if (line.slice(0, 15).toLowerCase() === 'content-length:') length = Number(line.slice(15).trim())
      }
      if (buffered.length < headEnd + 4 + length) return
      const body = buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8')
      buffered = buffered.subarray(headEnd + 4 + length)
      busy = true
      handle(socket, method, target.split('?')[0] ?? '/', body, monotonicNowMs(), () => {
        busy = false
        next()
      })
    }
    socket.on('data', (data: Buffer) => {
      buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data])
      next()
    })
  })
  server.maxConnections = 20_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port, host: '127.0.0.1', backlog: 4096, reusePort }, () => resolve())
  })
  const { port: bound } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
