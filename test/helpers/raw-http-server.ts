/**
 * An HTTP/1.1 server written on `node:net`, for connection-handling tests that must behave the same
 * on Node, Bun and Deno. Their `node:http` servers differ exactly where these tests look (Bun and
 * Deno keep a connection open after `res.socket.destroy()`), while a raw socket closes when told.
 */
import net from 'node:net'
import type { AddressInfo } from 'node:net'

/** How the server answers one request. */
export type RawAnswer =
  /** Chunked SSE body, keep-alive; `then` says what happens to the connection after the last byte. */
  | { kind: 'sse'; events: string[]; gapMs?: number; then?: 'keep' | 'destroy' | 'close-header' }
  /** Close the connection without answering. */
  | { kind: 'drop' }
  /** A whole response with these status, header lines (as written, repeats allowed) and body; keep-alive. */
  | { kind: 'plain'; status: number; headerLines: string[]; body: string }

export interface RawHttpServer {
  url: string
  /** Connections accepted so far. */
  connections: number
  /** Requests received so far, with the index of the connection each came on. */
  requests: Array<{ connection: number; path: string }>
  answer: (request: { connection: number; nthOnConnection: number }) => RawAnswer
  close(): Promise<void>
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

async function play(socket: net.Socket, answer: RawAnswer): Promise<void> {
  if (answer.kind === 'drop') {
    socket.destroy()
    return
  }
  if (answer.kind === 'plain') {
    const head = [
      `HTTP/1.1 ${answer.status} X`,
      ...answer.headerLines,
      `content-length: ${Buffer.byteLength(answer.body)}`,
      'connection: keep-alive',
    ]
    socket.write(`${head.join('\r\n')}\r\n\r\n${answer.body}`)
    return
  }
  const close = answer.then === 'close-header'
  socket.write(
    `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: ${close ? 'close' : 'keep-alive'}\r\n\r\n`,
  )
  for (const event of answer.events) {
    if (answer.gapMs) await sleep(answer.gapMs)
    if (socket.destroyed) return
    const bytes = Buffer.byteLength(event)
    socket.write(`${bytes.toString(16)}\r\n${event}\r\n`)
  }
  // llama.cpp-like: the final chunk, then the socket goes without a word (no Connection: close).
  if (answer.then === 'destroy') socket.end('0\r\n\r\n', () => socket.destroy())
  else if (close) socket.end('0\r\n\r\n')
  else socket.write('0\r\n\r\n')
}

/** Starts a server on 127.0.0.1, port 0. */
export async function startRawHttpServer(answer: RawHttpServer['answer']): Promise<RawHttpServer> {
  const sockets = new Set<net.Socket>()
  const state: RawHttpServer = {
    url: '',
    connections: 0,
    requests: [],
    answer,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  const server = net.createServer((socket) => {
    const connection = state.connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let buffered = ''
    let nth = 0
    socket.on('data', (data: Buffer) => {
      buffered += data.toString('latin1')
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end < 0) return
        const head = buffered.slice(0, end)
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
        if (buffered.length < end + 4 + length) return
        buffered = buffered.slice(end + 4 + length)
        const path = head.split(' ')[1] ?? ''
        state.requests.push({ connection, path })
        void play(socket, state.answer({ connection, nthOnConnection: nth++ }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return state
}
