import { ServerUnavailableError } from '../contract/errors.ts'
import { requestText } from '../platform/runtime-http.ts'
import { normalizeBaseUrl } from './server-key.ts'

/** What the server says about itself (goes into `EnvironmentInfo.server`). */
export interface ServerFacts {
  /** `vllm`, `sglang`, `llama.cpp`, or what the `server` header or `owned_by` says. */
  name?: string
  /** Server version (llama.cpp: its build, e.g. `b4567-abc1234`). */
  version?: string
  /** The model given, or the first listed by `/v1/models`. */
  model?: string
  /** Context length the server was started with, tokens (`max_model_len`, llama.cpp `n_ctx`). */
  maxContextTokens?: number
}

/** Options of {@link getServerFacts} and {@link resetPrefixCache}. */
export interface ServerFactsOptions {
  /** Bearer token (vLLM's `--api-key` guards `/v1`). */
  apiKey?: string
  /** The model used, to pick its entry of `/v1/models`. Default: the first entry. */
  model?: string
  /** Limit of each request, ms. Default 5000. */
  timeoutMs?: number
}

interface Answer {
  status: number
  json: unknown
  serverHeader: string | null
}

/**
 * Asks the server what it is, from what each kind answers: vLLM `GET /version` and `owned_by: "vllm"`,
 * SGLang `GET /get_server_info`, llama.cpp `GET /props` (`build_info`, `model_path`, `n_ctx`),
 * `GET /v1/models` (`id`, `max_model_len`), and the `server` response header. Endpoints a server
 * lacks are skipped; never throws, a fact that cannot be read is left out.
 */
export async function getServerFacts(baseUrl: string, options: ServerFactsOptions = {}): Promise<ServerFacts> {
  const root = normalizeBaseUrl(baseUrl)
  const timeoutMs = options.timeoutMs ?? 5000
  const auth = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : undefined
  const [models, version, props, sglangInfo] = await Promise.all([
    request(`${root}/v1/models`, 'GET', auth, timeoutMs),
    request(`${root}/version`, 'GET', auth, timeoutMs),
    request(`${root}/props`, 'GET', auth, timeoutMs),
    request(`${root}/get_server_info`, 'GET', auth, timeoutMs),
  ])

  const entries = ok(models) ? (field(models.json, 'data') as unknown[] | undefined) : undefined
  const list = Array.isArray(entries) ? entries : []
  const entry = list.find((item) => field(item, 'id') === options.model) ?? list[0]
  const ownedBy = stringField(entry, 'owned_by')
  const propsJson = ok(props) ? props.json : undefined
  const buildInfo = stringField(propsJson, 'build_info')
  const isLlamaCpp =
    buildInfo !== undefined || field(propsJson, 'default_generation_settings') !== undefined || ownedBy === 'llamacpp'
  const sglangVersion = ok(sglangInfo) ? stringField(sglangInfo.json, 'version') : undefined
  const plainVersion = ok(version) ? stringField(version.json, 'version') : undefined
  const header = [models, version, props].map((answer) => answer?.serverHeader).find((value) => value)
  const [headerName, headerVersion] = header ? header.split('/', 2).map((part) => part.trim()) : []
  const genericHeader =
    headerName !== undefined && /^(uvicorn|hypercorn|gunicorn|granian|python|werkzeug)$/i.test(headerName)

  const facts: ServerFacts = {}
  const name = isLlamaCpp
    ? 'llama.cpp'
    : ownedBy === 'vllm' || ownedBy === 'sglang'
      ? ownedBy
      : sglangVersion !== undefined
        ? 'sglang'
        : !genericHeader && headerName
          ? headerName
          : ownedBy
  if (name) facts.name = name
  const serverVersion = isLlamaCpp
    ? buildInfo
    : name === 'sglang'
      ? (sglangVersion ?? plainVersion)
      : (plainVersion ?? (genericHeader ? undefined : headerVersion))
  if (serverVersion) facts.version = serverVersion
  const modelPath = stringField(propsJson, 'model_path')
  const model = options.model ?? stringField(entry, 'id') ?? (modelPath ? modelPath.split(/[\\/]/).pop() : undefined)
  if (model) facts.model = model
  const generation = field(propsJson, 'default_generation_settings')
  const context =
    numberField(entry, 'max_model_len') ??
    numberField(generation, 'n_ctx') ??
    numberField(propsJson, 'n_ctx') ??
    numberField(sglangInfo?.json, 'context_length')
  if (context !== undefined) facts.maxContextTokens = context
  return facts
}

/** Why a prefix-cache reset could not happen, for the warnings of its callers (bench option, sweep `between`). */
export function prefixCacheResetUnsupported(baseUrl: string): string {
  return `${baseUrl} offers neither POST /reset_prefix_cache (vLLM with VLLM_SERVER_DEV_MODE=1) nor POST /flush_cache (SGLang)`
}

/**
 * Empties the server's prefix cache so a run does not profit from the previous one: vLLM
 * `POST /reset_prefix_cache` (served when vLLM runs with `VLLM_SERVER_DEV_MODE=1`), else SGLang
 * `POST /flush_cache`. Resolves false when the server offers neither (never throws for a 404);
 * rejects with {@link ServerUnavailableError} only when the server cannot be reached.
 */
export async function resetPrefixCache(baseUrl: string, options: ServerFactsOptions = {}): Promise<boolean> {
  const root = normalizeBaseUrl(baseUrl)
  const timeoutMs = options.timeoutMs ?? 30_000
  const auth = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : undefined
  for (const endpoint of ['/reset_prefix_cache', '/flush_cache']) {
    const answer = await request(`${root}${endpoint}`, 'POST', auth, timeoutMs)
    if (answer === undefined)
      throw new ServerUnavailableError(`Cannot reach ${root} to reset its prefix cache: is the server still running?`)
    if (ok(answer)) return true
  }
  return false
}

async function request(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string> | undefined,
  timeoutMs: number,
): Promise<Answer | undefined> {
  try {
    // The runtime's transport (undici, or fetch on Bun), as every other request of a run.
    const response = await requestText(url, {
      method,
      ...(headers ? { headers } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    })
    let json: unknown
    try {
      json = JSON.parse(response.body)
    } catch {
      json = undefined
    }
    return { status: response.status, json, serverHeader: response.headers.server ?? null }
  } catch {
    return undefined
  }
}

function ok(answer: Answer | undefined): answer is Answer {
  return answer !== undefined && answer.status >= 200 && answer.status < 300
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
}

function stringField(value: unknown, key: string): string | undefined {
  const v = field(value, key)
  return typeof v === 'string' && v !== '' ? v : undefined
}

function numberField(value: unknown, key: string): number | undefined {
  const v = field(value, key)
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined
}
