import { ServerUnavailableError } from '../contract/errors.ts'
import { redactSecret } from '../platform/redact.ts'
import { serverMessageOf } from './failure.ts'
import { httpGet } from './http-get.ts'
import { normalizeBaseUrl } from './target.ts'

/** A model the server lists. */
export interface ListedModel {
  id: string
  /** Context length in tokens (vLLM's `max_model_len`), when the server gives it. */
  maxModelLen?: number
}

/** Options of {@link listModels}. */
export interface ListModelsOptions {
  /** Bearer token. Not read from the environment here: pass the resolved one. */
  apiKey?: string
  headers?: Record<string, string>
  /** Limit for the request, in milliseconds. Default 10000. */
  timeoutMs?: number
}

/**
 * `GET /v1/models`: the ids the server serves, in its order (the first is the default model).
 * Throws {@link ServerUnavailableError} naming the URL and what to do when the server cannot
 * be reached, refuses, or answers something that is not a model list.
 */
export async function listModels(baseUrl: string, opts: ListModelsOptions = {}): Promise<ListedModel[]> {
  const url = `${normalizeBaseUrl(baseUrl)}/v1/models`
  const timeoutMs = opts.timeoutMs ?? 10_000
  const result = await httpGet(url, { apiKey: opts.apiKey, headers: opts.headers, timeoutMs })
  if (!result.ok) {
    throw new ServerUnavailableError(
      `GET ${url} failed: ${result.problem}. Start the server (or wait until it is ready) and check target.baseUrl.`,
      { cause: result.cause },
    )
  }
  if (result.status !== 200) {
    const hint =
      result.status === 401 || result.status === 403
        ? 'Check target.apiKey (or OPENAI_API_KEY).'
        : 'Check target.baseUrl, or set target.model to skip the lookup.'
    throw new ServerUnavailableError(
      redactSecret(`GET ${url} answered HTTP ${result.status}: ${serverMessageOf(result.body)}. ${hint}`, opts.apiKey),
    )
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(result.body)
  } catch {
    parsed = undefined
  }
  const data = typeof parsed === 'object' && parsed !== null ? (parsed as { data?: unknown }).data : undefined
  if (!Array.isArray(data)) {
    throw new ServerUnavailableError(
      `GET ${url} did not answer an OpenAI model list ({"data": [...]}). Is this an OpenAI-compatible server? Set target.model to skip the lookup.`,
    )
  }
  const models: ListedModel[] = []
  for (const entry of data) {
    if (typeof entry !== 'object' || entry === null) continue
    const e = entry as { id?: unknown; max_model_len?: unknown }
    if (typeof e.id !== 'string' || e.id === '') continue
    const model: ListedModel = { id: e.id }
    if (typeof e.max_model_len === 'number' && Number.isFinite(e.max_model_len)) model.maxModelLen = e.max_model_len
    models.push(model)
  }
  return models
}
