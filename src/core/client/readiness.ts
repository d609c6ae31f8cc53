import { errorCodeOf } from './failure.ts'
import { httpGet } from './http-get.ts'
import { abortableSleep } from '../platform/abortable-sleep.ts'

/** Options of {@link waitForServerReady}. */
export interface ReadinessOptions {
  /** Server root, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string
  /** URL that answers 2xx once ready. Default: `<baseUrl>/health` (skipped when the server has none), then `<baseUrl>/v1/models`. */
  readyUrl?: string
  /** Model name; when absent, the first model listed by `/v1/models` is returned. */
  model?: string
  /** Bearer token for `/v1/models` (vLLM's `--api-key` guards `/v1`). */
  apiKey?: string
  /** Overall limit, ms. */
  timeoutMs: number
  /** Stops waiting (the server process exited, the run was cancelled). */
  signal?: AbortSignal
  /** First pause between polls, ms; it grows to 2000. Default 200. */
  pollMs?: number
  /**
   * Give up once every answer for this long was a refused connection (nothing listens on the
   * port), in milliseconds: for a server that should already run. Default: wait the whole `timeoutMs`.
   */
  refusedFailMs?: number
}

/** Outcome of {@link waitForServerReady}. */
export type ReadinessOutcome =
  | {
      ready: true
      /** The model given, or the first one listed; undefined when `/v1/models` is absent. */ model: string | undefined
    }
  | {
      ready: false
      reason: 'timeout' | 'aborted' | 'unauthorized' | 'refused'
      /** What the server last answered, for the error message. */ lastAnswer: string
    }

/**
 * Polls until the server answers: `/health` (or `readyUrl`) with 2xx — 503 while a model loads is
 * normal for vLLM and llama.cpp — then `/v1/models`, which gives the model name. Never throws.
 */
export async function waitForServerReady(options: ReadinessOptions): Promise<ReadinessOutcome> {
  const deadline = performance.now() + options.timeoutMs
  let pause = options.pollMs ?? 200
  let lastAnswer = 'no answer yet'
  let phase: 'health' | 'models' = 'health'
  const healthUrl = options.readyUrl ?? `${options.baseUrl}/health`
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}
  let refusedSince: number | undefined

  for (;;) {
    if (options.signal?.aborted) return { ready: false, reason: 'aborted', lastAnswer }
    const left = deadline - performance.now()
    if (left <= 0) return { ready: false, reason: 'timeout', lastAnswer }
    const url = phase === 'health' ? healthUrl : `${options.baseUrl}/v1/models`
    // httpGet rejects only when the signal aborted; any other trouble is an answer of status 0.
    const result = await httpGet(url, {
      headers: phase === 'models' ? headers : {},
      timeoutMs: Math.max(PROBE_MIN_MS, Math.min(PROBE_MAX_MS, left)),
      signal: options.signal,
    }).catch(() => undefined)
    if (result === undefined) return { ready: false, reason: 'aborted', lastAnswer }
    const answer = result.ok ? { status: result.status, text: result.body } : { status: 0, text: result.problem }
    if (!result.ok && errorCodeOf(result.cause) === 'ECONNREFUSED') refusedSince ??= performance.now()
    else refusedSince = undefined
    // A request cut short by the overall deadline says nothing about the server: keep the answer before it.
    if (answer.status !== 0 || performance.now() < deadline)
      lastAnswer = `GET ${url.startsWith(options.baseUrl) ? url.slice(options.baseUrl.length) : url}${answer.status === 0 ? `: ${answer.text}` : ` answered HTTP ${answer.status}`}`
    if (
      refusedSince !== undefined &&
      options.refusedFailMs !== undefined &&
      performance.now() - refusedSince >= options.refusedFailMs
    ) {
      return { ready: false, reason: 'refused', lastAnswer }
    }
    if (phase === 'health') {
      // A server without /health (404/405) is judged by /v1/models alone; a custom readyUrl must answer 2xx.
      const skippable = options.readyUrl === undefined && (answer.status === 404 || answer.status === 405)
      if (isOk(answer.status) || skippable) {
        phase = 'models'
        continue
      }
    } else {
      if (isOk(answer.status)) return { ready: true, model: options.model ?? firstModel(answer.text) }
      if (answer.status === 401 || answer.status === 403) return { ready: false, reason: 'unauthorized', lastAnswer }
      // Not an OpenAI model listing (e.g. a custom server): it is up, the model stays as given.
      if (answer.status === 404) return { ready: true, model: options.model }
    }
    await abortableSleep(Math.min(pause, Math.max(0, deadline - performance.now())), options.signal)
    pause = Math.min(2000, pause * 1.5)
  }
}

/** The first model id of a `/v1/models` body, if any. */
function firstModel(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { data?: Array<{ id?: unknown }> }
    const id = parsed.data?.[0]?.id
    return typeof id === 'string' ? id : undefined
  } catch {
    return undefined
  }
}

/** Longest single probe, ms: a hung server must not eat the whole wait in one attempt. */
const PROBE_MAX_MS = 5_000
/** Shortest probe, ms, even at the deadline: a last probe cut to ~0 ms would only report its own timeout. */
const PROBE_MIN_MS = 250

function isOk(status: number): boolean {
  return status >= 200 && status < 300
}
