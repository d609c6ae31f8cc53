import { OptionsError } from '../contract/errors.ts'
import type { ApiKind } from '../contract/api-kinds.ts'
import type { TargetOptions } from '../contract/options.ts'
import { API_CHOICES, isApiKind } from '../contract/api-kinds.ts'
import { SIMULATOR_SERVER_NAME } from '../contract/simulator-name.ts'

/** Per-request limit when `target.requestTimeoutMs` is not given, in milliseconds (10 minutes). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000
/** Silence with requests in flight after which a run stops, when `target.stallTimeoutMs` is not given, ms (2 minutes). */
export const DEFAULT_STALL_TIMEOUT_MS = 120_000

/** A target with every default applied, ready for {@link StreamingClient}. */
export interface ResolvedTarget {
  /** Server root without trailing slash and without `/v1`, e.g. `http://127.0.0.1:8000`. May keep a path prefix (`http://proxy/llm`). */
  baseUrl: string
  /** Model name sent in each request. */
  model: string
  /** Which endpoint is driven. */
  api: ApiKind
  /** Bearer token sent as `Authorization: Bearer ...`; never written to records or logs. */
  apiKey?: string
  /** Extra request headers, sent as given. */
  headers: Record<string, string>
  /** Limit from send to end of stream, in milliseconds. */
  requestTimeoutMs: number
  /** Silence with requests in flight after which the run stops, in milliseconds (`target.stallTimeoutMs`). */
  stallTimeoutMs: number
  /**
   * Send `stream_options.continuous_usage_stats: true` (usage in every chunk). Undefined: not decided
   * yet (`target.continuousUsageStats` left out), {@link withServerName} decides from the server's
   * name; until then it is not sent.
   */
  continuousUsageStats?: boolean
}

/**
 * Normalises a server root: trims, drops trailing slashes and one trailing `/v1`.
 * Throws {@link OptionsError} when it is not an http(s) URL.
 */
export function normalizeBaseUrl(baseUrl: string, option = 'target.baseUrl'): string {
  const trimmed = typeof baseUrl === 'string' ? baseUrl.trim() : ''
  let url: URL | undefined
  try {
    url = new URL(trimmed)
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new OptionsError(
      option,
      `${JSON.stringify(baseUrl)} is not an http(s) URL`,
      'Give the server root, e.g. `http://127.0.0.1:8000`.',
    )
  }
  let root = trimmed.replace(/\/+$/, '')
  if (root.endsWith('/v1')) root = root.slice(0, -3).replace(/\/+$/, '')
  return root
}

function apiKeyFromEnvironment(): string | undefined {
  // Bun and Deno expose `process` too, but a browser-like runtime may not.
  if (typeof process === 'undefined' || process.env === undefined) return undefined
  const key = process.env.OPENAI_API_KEY
  return key === undefined || key === '' ? undefined : key
}

/** A target with every default applied but the model, which is given or listed by the server at run time. */
export type PlannedTarget = Omit<ResolvedTarget, 'model'> & {
  /** The model named in the options; undefined: the first model of `GET /v1/models`, asked when the run starts. */
  model: string | undefined
}

/** Applies defaults to {@link TargetOptions} (`api` chat, the request timeout, `OPENAI_API_KEY`) and normalises the base URL. */
export function planTarget(t: TargetOptions): PlannedTarget {
  const baseUrl = normalizeBaseUrl(t.baseUrl)
  const api = t.api ?? 'chat'
  if (!isApiKind(api)) {
    throw new OptionsError('target.api', `${JSON.stringify(api)} is not supported`, `Use ${API_CHOICES}.`)
  }
  const requestTimeoutMs = t.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  if (!(requestTimeoutMs > 0) || !Number.isFinite(requestTimeoutMs)) {
    throw new OptionsError(
      'target.requestTimeoutMs',
      `${String(requestTimeoutMs)} is not a positive number of milliseconds`,
      'Give e.g. 600000 (10 minutes).',
    )
  }
  const apiKey = t.apiKey !== undefined && t.apiKey !== '' ? t.apiKey : apiKeyFromEnvironment()
  if (t.continuousUsageStats !== undefined && typeof t.continuousUsageStats !== 'boolean') {
    throw new OptionsError(
      'target.continuousUsageStats',
      `${JSON.stringify(t.continuousUsageStats)} is not true or false`,
      'Give true to ask for usage in every chunk, false never to, or leave it out to ask servers known to support it (vLLM, SGLang, the simulator).',
    )
  }
  const stallTimeoutMs = t.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS
  if (!(stallTimeoutMs > 0) || !Number.isFinite(stallTimeoutMs)) {
    throw new OptionsError(
      'target.stallTimeoutMs',
      `${String(stallTimeoutMs)} is not a positive number of milliseconds`,
      'Give e.g. 120000 (2 minutes), above the slowest TTFT you expect.',
    )
  }
  const planned: PlannedTarget = {
    baseUrl,
    model: t.model,
    api,
    headers: { ...t.headers },
    requestTimeoutMs,
    stallTimeoutMs,
  }
  if (apiKey !== undefined) planned.apiKey = apiKey
  if (t.continuousUsageStats !== undefined) planned.continuousUsageStats = t.continuousUsageStats
  return planned
}

/**
 * Servers known to honour `stream_options.continuous_usage_stats`, by the name `getServerFacts`
 * (or a launch) gives them: vLLM and SGLang send usage in every chunk (vLLM only with
 * `include_usage`, which is always sent); the built-in simulator as vLLM. llama.cpp reads only
 * `include_usage` and ignores the rest, so it is left off there too: it would gain nothing.
 */
const CONTINUOUS_USAGE_SERVERS: ReadonlySet<string> = new Set(['vllm', 'sglang', SIMULATOR_SERVER_NAME])

/**
 * The target with `continuousUsageStats` decided: as given in the options, else on for a server
 * known to support it (`serverName`: `EnvironmentInfo.server.name`), off otherwise. Call it once
 * the server's facts are known, before the client is made.
 */
export function withServerName(target: ResolvedTarget, serverName: string | undefined): ResolvedTarget {
  if (target.continuousUsageStats !== undefined) return target
  return {
    ...target,
    continuousUsageStats: serverName !== undefined && CONTINUOUS_USAGE_SERVERS.has(serverName.toLowerCase()),
  }
}

/** A planned target with the model chosen (given, or listed by the server). */
export function withModel(target: PlannedTarget, model: string): ResolvedTarget {
  if (typeof model !== 'string' || model === '') {
    throw new OptionsError(
      'target.model',
      'no model name is known',
      'Set `target.model`, or make sure `GET /v1/models` lists one.',
    )
  }
  return { ...target, model }
}

/** Applies defaults to {@link TargetOptions}; `model` is the name already chosen (given or listed by the server). */
export function resolveTarget(t: TargetOptions, model: string): ResolvedTarget {
  return withModel(planTarget(t), model)
}
