import { ServerUnavailableError } from '../contract/errors.ts'
import { waitForServerReady } from './readiness.ts'
import { redactUrlCredentials } from '../platform/redact.ts'
import { normalizeBaseUrl } from './target.ts'

/** Options of {@link waitForReady}. */
export interface WaitForReadyOptions {
  /** Give up after this long, in milliseconds (the last probe may overrun it by up to 250 ms). Default 300000 (5 minutes: large models load slowly). */
  timeoutMs?: number
  /** First pause between attempts, in milliseconds; it grows by half each time up to 2000. Default 500. */
  intervalMs?: number
  apiKey?: string
  /** Stops waiting; the promise rejects with the signal's reason. */
  signal?: AbortSignal
  /** Fail once the connection was refused for this long (nothing listens), in milliseconds. Default: wait `timeoutMs`. */
  refusedFailMs?: number
  /** What the caller names as the way to wait longer, for the timeout message. Default `the timeout`. */
  timeoutOption?: string
}

/**
 * Polls `GET /health` until it answers 2xx, then `GET /v1/models` until it answers 2xx (vLLM
 * and llama.cpp answer /health before the model is loaded, or 503 while loading). A server
 * without /health (404/405) is judged by /v1/models alone. The polling is the server lifecycle's
 * ({@link waitForServerReady}); this throws {@link ServerUnavailableError} naming the URL and the
 * last answer when `timeoutMs` passes or the API key is refused.
 */
export async function waitForReady(baseUrl: string, opts: WaitForReadyOptions = {}): Promise<void> {
  const root = normalizeBaseUrl(baseUrl)
  const timeoutMs = opts.timeoutMs ?? 300_000
  const outcome = await waitForServerReady({
    baseUrl: root,
    timeoutMs,
    pollMs: opts.intervalMs ?? 500,
    ...(opts.apiKey !== undefined && opts.apiKey !== '' ? { apiKey: opts.apiKey } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.refusedFailMs !== undefined ? { refusedFailMs: opts.refusedFailMs } : {}),
  })
  if (outcome.ready) return
  const shown = redactUrlCredentials(root)
  if (outcome.reason === 'aborted')
    throw opts.signal?.reason ?? new ServerUnavailableError(`waiting for ${shown} was cancelled`)
  if (outcome.reason === 'unauthorized') {
    throw new ServerUnavailableError(
      `${shown} refused the API key (${outcome.lastAnswer}): set target.apiKey or OPENAI_API_KEY to the key the server was started with.`,
    )
  }
  if (outcome.reason === 'refused') {
    throw new ServerUnavailableError(
      `Nothing listens at ${shown}: the connection was refused for ${opts.refusedFailMs} ms (${outcome.lastAnswer}). Start the server first, or fix the host and port in target.baseUrl.` +
        (opts.timeoutOption ? ` To wait for a server that is still starting, use ${opts.timeoutOption}.` : ''),
    )
  }
  throw new ServerUnavailableError(
    `${shown} was not ready within ${timeoutMs} ms; last answer: ${outcome.lastAnswer}. Check that the server is up and target.baseUrl names it${opts.timeoutOption ? `, or wait longer with ${opts.timeoutOption}` : ', or wait longer (timeoutMs)'}.`,
  )
}
