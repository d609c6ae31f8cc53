/**
 * Builders of {@link RequestFailure}. Messages are stable per cause (no timestamps or counters)
 * so the errors table groups them, and they say what to do next.
 */
import { redactSecret } from '../platform/redact.ts'
import type { RequestFailure } from '../contract/request-record.ts'
import { API_CHOICES } from '../contract/api-kinds.ts'

/** Longest excerpt of a server body quoted in a message, in characters. */
const EXCERPT_CHARS = 200

/** The system or undici error code of an error, looking into `cause` and `AggregateError.errors`. */
export function errorCodeOf(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const e = current as { code?: unknown; errors?: unknown; cause?: unknown }
    if (typeof e.code === 'string' && e.code !== '') return e.code
    if (Array.isArray(e.errors) && e.errors.length > 0) current = e.errors[0]
    else current = e.cause
  }
  return undefined
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}...` : flat
}

/** The server's own message in an error body: `error.message`, `message` or `detail` of its JSON, else its first 200 characters. */
export function serverMessageOf(body: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return excerpt(body)
  }
  if (typeof parsed === 'object' && parsed !== null) {
    const p = parsed as { error?: unknown; message?: unknown; detail?: unknown }
    if (typeof p.error === 'object' && p.error !== null) {
      const m = (p.error as { message?: unknown }).message
      if (typeof m === 'string' && m !== '') return excerpt(m)
    }
    if (typeof p.error === 'string' && p.error !== '') return excerpt(p.error)
    if (typeof p.message === 'string' && p.message !== '') return excerpt(p.message)
    if (typeof p.detail === 'string' && p.detail !== '') return excerpt(p.detail)
    if (p.detail !== undefined && p.detail !== null) return excerpt(JSON.stringify(p.detail))
  }
  return excerpt(body)
}

function httpHint(status: number): string {
  if (status === 401 || status === 403) return ' Check target.apiKey (or OPENAI_API_KEY).'
  if (status === 404)
    return ` Check target.baseUrl, target.api (a server may not serve every API: ${API_CHOICES}) and target.model.`
  if (status === 429) return ' The server is rate-limiting: lower the load or raise its limits.'
  if (status === 400 || status === 413 || status === 422)
    return ' The server is up and refused it: check the prompt and output lengths against its context size, target.model and extraBody.'
  return ''
}

/** A non-2xx response to `POST url`: the status, the server's own message (bounded) and what to check. */
export function httpFailure(status: number, body: string, url?: string): RequestFailure {
  const detail = body.length > 0 ? serverMessageOf(body) : 'empty body'
  // A server message that ends its own sentence gets no second period.
  const end = /[.!?]$/.test(detail) ? '' : '.'
  return {
    kind: 'http',
    status,
    message: `${url ? `POST ${url}: ` : ''}HTTP ${status}: ${detail}${end}${httpHint(status)}`,
  }
}

const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused; is the server running and listening there? Check target.baseUrl',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed by the server while sending',
  ENOTFOUND: 'host not found; check target.baseUrl',
  EAI_AGAIN: 'host name lookup failed; check target.baseUrl and DNS',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'the StreamingClient was closed before this request finished',
  UND_ERR_DESTROYED: 'the StreamingClient was closed before this request finished',
}

/** A network error in words with its code, e.g. `connection refused; is the server running ... (ECONNREFUSED)`. */
export function describeNetworkError(error: unknown): string {
  const code = errorCodeOf(error)
  const cause = code !== undefined ? NETWORK_CAUSES[code] : undefined
  return `${cause ?? messageOf(error)} (${code ?? 'no error code'})`
}

/** The connection failed before a response started. `url` is where the request went. */
export function networkFailure(url: string, error: unknown): RequestFailure {
  return { kind: 'network', message: `POST ${url}: ${describeNetworkError(error)}` }
}

/** `requestTimeoutMs` passed since send. */
export function timeoutFailure(timeoutMs: number): RequestFailure {
  return {
    kind: 'timeout',
    message: `no complete response within ${timeoutMs} ms; raise target.requestTimeoutMs or lower the load`,
  }
}

/** The caller's signal aborted the request. */
export function cancelledFailure(reason: unknown): RequestFailure {
  const why = reason === undefined ? '' : `: ${messageOf(reason)}`
  return { kind: 'cancelled', message: `request cancelled${why}` }
}

/** An error sent inside the stream (`data: {"error": ...}` or `event: error`). */
export function streamErrorFailure(message: string): RequestFailure {
  return { kind: 'stream-error', message: `server sent an error mid-stream: ${excerpt(message)}` }
}

/** An event (or a non-streamed body) that is not valid JSON. */
export function malformedFailure(data: string, what = 'event data'): RequestFailure {
  return { kind: 'malformed', message: `${what} is not a JSON object: ${JSON.stringify(excerpt(data).slice(0, 80))}` }
}

/** The stream ended (or the connection dropped) before `data: [DONE]`. */
export function incompleteFailure(error?: unknown): RequestFailure {
  const cause = error === undefined ? '' : ` (${errorCodeOf(error) ?? messageOf(error)})`
  return {
    kind: 'incomplete',
    message: `stream closed without \`data: [DONE]\`${cause}; the server may have crashed or a proxy cut the response`,
  }
}

/** Replaces every occurrence of a secret (the API key) in a failure message. */
export function redactFailure(failure: RequestFailure, secret: string | undefined): RequestFailure {
  if (secret === undefined || secret === '' || !failure.message.includes(secret)) return failure
  return { ...failure, message: redactSecret(failure.message, secret) }
}
