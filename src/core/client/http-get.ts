import { requestText } from '../platform/runtime-http.ts'
import { describeNetworkError } from './failure.ts'

/** Options of {@link httpGet}. */
export interface HttpGetOptions {
  /** Sent as `Authorization: Bearer ...`. */
  apiKey?: string
  headers?: Record<string, string>
  /** Limit for the whole exchange, in milliseconds. */
  timeoutMs: number
  signal?: AbortSignal
}

/** The outcome of one GET: a status and body, or why there was none. */
export type HttpGetResult = { ok: true; status: number; body: string } | { ok: false; problem: string; cause: unknown }

/**
 * One small GET (health checks, model lists). Never throws for network trouble, only when
 * `signal` aborts (with the signal's reason).
 */
export async function httpGet(url: string, options: HttpGetOptions): Promise<HttpGetResult> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
  if (options.apiKey !== undefined && options.apiKey !== '') headers.authorization = `Bearer ${options.apiKey}`
  // AbortSignal.timeout takes whole milliseconds only.
  const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(options.timeoutMs)))
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout])
  try {
    const response = await requestText(url, { method: 'GET', headers, signal })
    return { ok: true, status: response.status, body: response.body }
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason
    const problem = timeout.aborted ? `no answer within ${options.timeoutMs} ms` : describeNetworkError(error)
    return { ok: false, problem, cause: error }
  }
}
