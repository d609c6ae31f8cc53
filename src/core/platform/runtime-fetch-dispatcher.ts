import { Buffer } from 'node:buffer'
import type { Dispatcher } from 'undici'

/** Bytes of the request body and headers the client hands over; the subset of undici's options it uses. */
type FetchDispatchOptions = Pick<Dispatcher.DispatchOptions, 'method' | 'path' | 'headers' | 'body'>

/** A system-style error code on an error, so the client's failure table reads it as it reads undici's. */
type CodedError = Error & { code: string }

function coded(message: string, code: string, cause?: unknown): CodedError {
  const error = new Error(message, cause === undefined ? undefined : { cause }) as CodedError
  error.code = code
  return error
}

/**
 * Messages of fetch errors that carry no code, by runtime, and the code they mean. Bun sets
 * `code` itself (`ECONNRESET`, `ECONNREFUSED`); Node's fetch puts undici's code on `cause`;
 * Deno's fetch gives words only.
 */
const CODELESS_MESSAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/connection closed before message completed/i, 'ECONNRESET'],
  [/error reading a body from connection/i, 'ECONNRESET'],
  [/connection reset/i, 'ECONNRESET'],
  [/connection refused/i, 'ECONNREFUSED'],
  [/broken pipe/i, 'EPIPE'],
]

function hasCode(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && code !== '') return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/** A fetch error with a code wherever the runtime's words tell which one it is. */
export function normalizeFetchError(error: unknown): Error {
  if (hasCode(error)) return error instanceof Error ? error : new Error(String(error))
  const texts: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    texts.push(current instanceof Error ? current.message : String(current))
    current = typeof current === 'object' ? (current as { cause?: unknown }).cause : undefined
  }
  const text = texts.join(': ')
  for (const [pattern, code] of CODELESS_MESSAGES) if (pattern.test(text)) return coded(text, code, error)
  return error instanceof Error ? error : new Error(text)
}

/** The controller a handler gets: `abort` cancels the fetch and its body; pausing is not supported by fetch (no-ops). */
class FetchDispatchController implements Dispatcher.DispatchController {
  readonly signalSource = new AbortController()
  private abortReason: Error | null = null

  get aborted(): boolean {
    return this.abortReason !== null
  }

  get paused(): boolean {
    return false
  }

  get reason(): Error | null {
    return this.abortReason
  }

  abort(reason: Error): void {
    if (this.abortReason !== null) return
    this.abortReason = reason
    this.signalSource.abort(reason)
  }

  pause(): void {}

  resume(): void {}
}

function headersRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {}
  // Headers iterates lower-cased names, as undici hands them to a dispatch handler.
  headers.forEach((value, name) => {
    record[name] = value
  })
  return record
}

function requestHeaders(headers: FetchDispatchOptions['headers']): Record<string, string> {
  const result: Record<string, string> = {}
  if (headers !== undefined && headers !== null && !Array.isArray(headers) && typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (typeof value === 'string') result[name] = value
      else if (Array.isArray(value)) result[name] = value.join(', ')
    }
  }
  // undici's dispatcher asks for no compression; fetch would ask for gzip/br and hide it. Keep the bytes identical.
  if (!Object.keys(result).some((name) => name.toLowerCase() === 'accept-encoding'))
    result['accept-encoding'] = 'identity'
  return result
}

/** The client sends JSON text; bytes are copied into a plain ArrayBuffer-backed view, as every fetch accepts. */
function requestBody(body: FetchDispatchOptions['body']): string | Uint8Array<ArrayBuffer> | undefined {
  if (typeof body === 'string') return body
  if (body instanceof Uint8Array) return new Uint8Array(body)
  return undefined
}

/**
 * undici's dispatch handler protocol on top of the runtime's `fetch`: for runtimes whose `undici`
 * cannot dispatch (Bun ships a stub). `onRequestStart`, `onResponseStart`, one `onResponseData`
 * per read of the body stream, then `onResponseEnd` or `onResponseError`, in that order, so a
 * handler written for undici's `Pool` runs unchanged. Connections are the runtime's to pool (Bun
 * keeps them alive and caps them at `BUN_CONFIG_MAX_HTTP_REQUESTS`, default 256); redirects are
 * not followed, as with a `Pool`.
 */
export class FetchDispatcher {
  private readonly origin: string
  private readonly inFlight = new Set<Promise<void>>()
  private closed = false

  /** `origin`: scheme, host and port, e.g. `http://127.0.0.1:8000`; each request's `path` is appended. */
  constructor(origin: string) {
    this.origin = origin.replace(/\/+$/, '')
  }

  /** Starts one request. After {@link close} the handler gets a `UND_ERR_CLOSED` error at once, as from a closed `Pool`. */
  dispatch(options: FetchDispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const controller = new FetchDispatchController()
    if (this.closed) {
      handler.onResponseError?.(controller, coded('the dispatcher is closed', 'UND_ERR_CLOSED'))
      return false
    }
    const running = this.run(options, handler, controller)
      // A handler callback that throws must not become an unhandled rejection; undici reports it to the handler too.
      .catch((error: unknown) => {
        if (!controller.aborted)
          handler.onResponseError?.(controller, error instanceof Error ? error : new Error(String(error)))
      })
      .finally(() => this.inFlight.delete(running))
    this.inFlight.add(running)
    return true
  }

  /** Refuses new requests and resolves when those in flight have ended. */
  async close(): Promise<void> {
    this.closed = true
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight])
  }

  private async run(
    options: FetchDispatchOptions,
    handler: Dispatcher.DispatchHandler,
    controller: FetchDispatchController,
  ): Promise<void> {
    handler.onRequestStart?.(controller, {})
    if (controller.aborted) return
    let response: Response
    try {
      response = await fetch(this.origin + options.path, {
        method: options.method,
        headers: requestHeaders(options.headers),
        body: requestBody(options.body),
        signal: controller.signalSource.signal,
        redirect: 'manual',
      })
    } catch (error) {
      handler.onResponseError?.(controller, controller.reason ?? normalizeFetchError(error))
      return
    }
    if (controller.aborted) {
      await response.body?.cancel().catch(() => undefined)
      return
    }
    handler.onResponseStart?.(controller, response.status, headersRecord(response.headers), response.statusText)
    const body = response.body
    if (body === null) {
      if (!controller.aborted) handler.onResponseEnd?.(controller, {})
      return
    }
    const reader = body.getReader()
    try {
      for (;;) {
        if (controller.aborted) {
          await reader.cancel(controller.reason).catch(() => undefined)
          return
        }
        const read = await reader.read()
        if (read.done) break
        if (controller.aborted) continue
        const bytes = read.value
        handler.onResponseData?.(controller, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
      }
    } catch (error) {
      if (!controller.aborted) handler.onResponseError?.(controller, normalizeFetchError(error))
      return
    }
    if (!controller.aborted) handler.onResponseEnd?.(controller, {})
  }
}
