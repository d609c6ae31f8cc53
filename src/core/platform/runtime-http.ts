import { Agent, Pool, request } from 'undici'
import type { Dispatcher } from 'undici'
import { defaultHttpTransport } from './runtime.ts'
import type { HttpTransportName } from './runtime.ts'
import { FetchDispatcher, normalizeFetchError } from './runtime-fetch-dispatcher.ts'

/**
 * What the streaming client needs from a connection pool: undici's dispatch handler protocol
 * and a close that waits for requests in flight. undici's `Pool` and {@link FetchDispatcher} both are one.
 */
export interface StreamDispatcher {
  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean
  close(): Promise<void>
}

/** Options of {@link createStreamDispatcher}. */
export interface StreamDispatcherOptions {
  /** Most connections open at once (undici); fetch leaves pooling to the runtime. */
  connections: number
  /** Default: {@link defaultHttpTransport} (undici on Node and Deno, fetch on Bun). */
  transport?: HttpTransportName
}

/** A pool of connections to `origin` for streaming requests, on the transport this runtime supports. */
export function createStreamDispatcher(origin: string, options: StreamDispatcherOptions): StreamDispatcher {
  const transport = options.transport ?? defaultHttpTransport()
  if (transport === 'fetch') return new FetchDispatcher(origin)
  // The request timer of each StreamingRequest is the one limit; undici's own would cut long generations.
  return new Pool(origin, { connections: options.connections, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 })
}

let agent: Agent | undefined

/**
 * The connection pool of small requests: one of our own. undici's global dispatcher is whatever
 * the process holds under the shared global symbol (on Node 24 the Agent of Node's own built-in
 * fetch, or a user's `setGlobalDispatcher`), so small requests would otherwise go through another
 * undici, with other settings, than the streaming pool. Idle sockets do not keep the process alive.
 */
function smallRequestAgent(): Agent {
  agent ??= new Agent()
  return agent
}

/** One small request's answer: status, headers and the whole body as text. */
export interface TextResponse {
  status: number
  /** Response headers, names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>
  body: string
}

/** Options of {@link requestText}. */
export interface RequestTextOptions {
  method?: string
  headers?: Record<string, string>
  signal?: AbortSignal
  /** Default: {@link defaultHttpTransport}. */
  transport?: HttpTransportName
}

/**
 * One small request (health checks, model lists) read whole. Rejects on network errors, with a
 * system-style `code` (`ECONNREFUSED`, ...) where the runtime says which, and with the signal's
 * reason when `signal` aborts.
 */
export async function requestText(url: string, options: RequestTextOptions = {}): Promise<TextResponse> {
  const transport = options.transport ?? defaultHttpTransport()
  const method = options.method ?? 'GET'
  if (transport === 'fetch') {
    try {
      const response = await fetch(url, {
        method,
        headers: { 'accept-encoding': 'identity', ...options.headers },
        signal: options.signal,
        redirect: 'manual',
      })
      return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      throw normalizeFetchError(error)
    }
  }
  const response = await request(url, {
    method: method as Dispatcher.HttpMethod,
    headers: options.headers,
    signal: options.signal,
    dispatcher: smallRequestAgent(),
  })
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return { status: response.statusCode, headers, body: await response.body.text() }
}
