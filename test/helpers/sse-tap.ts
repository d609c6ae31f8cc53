/**
 * A recording proxy for checks against a real server: it forwards every request to `upstream` and
 * keeps each POST's body and the events of its response, each stamped with `performance.now()` when
 * the proxy read it from the server, before the client got it. In the client's process the stamps are
 * on the client's own clock, so a record's times can be checked against the stream as it was sent.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'

/** One server-sent event as the proxy read it. */
export interface TappedEvent {
  /** `performance.now()` when the chunk that completed the event arrived from the server, ms. */
  at: number
  /** The `event:` field, when the server sent one. */
  event: string | undefined
  /** The `data:` field, parsed as JSON; undefined for `[DONE]` or data that is not JSON. */
  data: Record<string, unknown> | undefined
}

/** One POST through the proxy. */
export interface TappedExchange {
  path: string
  /** The request body, parsed. */
  body: Record<string, unknown>
  /** `performance.now()` when the whole request body had arrived, ms. */
  receivedAt: number
  status: number
  events: TappedEvent[]
}

/** A running tap: its URL, what passed through it, and how to stop it. */
export interface SseTap {
  url: string
  exchanges: TappedExchange[]
  close(): Promise<void>
}

/** Starts a tap on 127.0.0.1 (a free port) in front of `upstream` (`http://host:port`). */
export async function startSseTap(upstream: string): Promise<SseTap> {
  const exchanges: TappedExchange[] = []
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8')
      const receivedAt = performance.now()
      const post = req.method === 'POST'
      void fetch(`${upstream}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': 'application/json' },
        ...(post ? { body: text } : {}),
      })
        .then(async (response) => {
          const exchange: TappedExchange = {
            path: req.url ?? '/',
            body: post && text !== '' ? (JSON.parse(text) as Record<string, unknown>) : {},
            receivedAt,
            status: response.status,
            events: [],
          }
          if (post) exchanges.push(exchange)
          res.writeHead(response.status, Object.fromEntries(response.headers))
          const decoder = new TextDecoder()
          let pending = ''
          for await (const chunk of response.body ?? []) {
            const at = performance.now()
            pending += decoder.decode(chunk as Uint8Array, { stream: true })
            const blocks = pending.split(/\r?\n\r?\n/)
            pending = blocks.pop() ?? ''
            for (const block of blocks) {
              const event = parseEvent(block, at)
              if (event !== undefined) exchange.events.push(event)
            }
            res.write(chunk)
          }
          res.end()
        })
        .catch((error: unknown) => {
          res.destroy(error instanceof Error ? error : new Error(String(error)))
        })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

function parseEvent(block: string, at: number): TappedEvent | undefined {
  let event: string | undefined
  const data: string[] = []
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('event:')) event = line.slice(6).trim()
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
  }
  if (data.length === 0 && event === undefined) return undefined
  let parsed: Record<string, unknown> | undefined
  try {
    const value: unknown = JSON.parse(data.join('\n'))
    parsed = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    parsed = undefined
  }
  return { at, event, data: parsed }
}
