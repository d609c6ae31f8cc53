import { ServerUnavailableError } from '../errors.ts'
import { httpGet } from './http-get.ts'
import type { HttpGetResult } from './http-get.ts'
import { normalizeBaseUrl } from './target.ts'

/** Options of {@link waitForReady}. */
export interface WaitForReadyOptions {
  /** Give up after this long, in milliseconds (the last probe may overrun it by up to 250 ms). Default 300000 (5 minutes: large models load slowly). */
  timeoutMs?: number
  /** Pause between attempts, in milliseconds. Default 500. */
  intervalMs?: number
  apiKey?: string
  /** Stops waiting; the promise rejects with the signal's reason. */
  signal?: AbortSignal
}

/** Longest single probe, in milliseconds: a hung server must not eat the whole wait in one attempt. */
const PROBE_TIMEOUT_MS = 5_000
/** Shortest probe, in milliseconds, even at the deadline: a last probe cut to ~0 ms would only report its own timeout. */
const PROBE_MIN_MS = 250

function probeTimeout(deadline: number): number {
  return Math.min(PROBE_TIMEOUT_MS, Math.max(PROBE_MIN_MS, deadline - performance.now()))
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

function describe(path: string, result: HttpGetResult): string {
  return result.ok ? `GET ${path} answered HTTP ${result.status}` : `GET ${path}: ${result.problem}`
}

/**
 * Polls `GET /health` until it answers 200, then `GET /v1/models` until it answers 200 (vLLM
 * and llama.cpp answer /health before the model is loaded, or 503 while loading). A server
 * without /health (404/405) is judged by /v1/models alone. Throws {@link ServerUnavailableError}
 * naming the URL and the last error when `timeoutMs` passes.
 */
export async function waitForReady(baseUrl: string, opts: WaitForReadyOptions = {}): Promise<void> {
  const root = normalizeBaseUrl(baseUrl)
  const timeoutMs = opts.timeoutMs ?? 300_000
  const intervalMs = opts.intervalMs ?? 500
  const signal = opts.signal
  const deadline = performance.now() + timeoutMs
  let lastError = 'no attempt finished'
  for (;;) {
    signal?.throwIfAborted()
    const health = await httpGet(`${root}/health`, { apiKey: opts.apiKey, timeoutMs: probeTimeout(deadline), signal })
    const healthy = health.ok && (health.status === 200 || health.status === 404 || health.status === 405)
    if (healthy) {
      const models = await httpGet(`${root}/v1/models`, { apiKey: opts.apiKey, timeoutMs: probeTimeout(deadline), signal })
      if (models.ok && models.status === 200) return
      lastError = describe('/v1/models', models)
    } else {
      lastError = describe('/health', health)
    }
    const left = deadline - performance.now()
    if (left <= 0) {
      throw new ServerUnavailableError(`${root} was not ready within ${timeoutMs} ms; last error: ${lastError}. Check that the server started (its log), the port in target.baseUrl, or raise the timeout.`)
    }
    await sleep(Math.min(intervalMs, left), signal)
  }
}
