/**
 * The API a target drives: the streamed generation APIs (`chat`, `completions`, `responses`,
 * `messages`), or the one-body input APIs (`embeddings`, `rerank`: no stream, no output tokens).
 */
export type ApiKind = 'chat' | 'completions' | 'responses' | 'messages' | 'embeddings' | 'rerank'

/** The APIs that take texts and answer them in one JSON body, with no output tokens. */
export type InputsApi = 'embeddings' | 'rerank'

/** The APIs that generate a streamed reply. */
export type GenerationApi = Exclude<ApiKind, InputsApi>

/** The path each API posts to, below the server root. */
export const API_ENDPOINTS: Readonly<Record<ApiKind, string>> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  responses: '/v1/responses',
  messages: '/v1/messages',
  embeddings: '/v1/embeddings',
  rerank: '/v1/rerank',
}

/** Every API a target can drive. */
export const API_KINDS: readonly ApiKind[] = ['chat', 'completions', 'responses', 'messages', 'embeddings', 'rerank']

/** The valid values of `target.api`, for an error's "what to do". */
export const API_CHOICES =
  "'chat' (/v1/chat/completions), 'completions' (/v1/completions), 'responses' (/v1/responses), 'messages' " +
  "(/v1/messages, Anthropic), 'embeddings' (/v1/embeddings) or 'rerank' (/v1/rerank)"

export function isApiKind(value: unknown): value is ApiKind {
  return typeof value === 'string' && (API_KINDS as readonly string[]).includes(value)
}

/**
 * `max_tokens` sent to the Messages API for a request whose workload gives no output length (a JSONL
 * line without `max_tokens`): the API requires the field (Anthropic, vLLM). 1024, as AIPerf sends.
 */
export const MESSAGES_MAX_TOKENS_WHEN_UNSET = 1024

/** True when the API takes a conversation (`messages`, the Responses API's `input`); false for a `prompt` string or texts. */
export function takesMessages(api: ApiKind): boolean {
  return api === 'chat' || api === 'responses' || api === 'messages'
}

/**
 * True for the APIs that take texts and answer them in one JSON body (`embeddings`, `rerank`): no
 * stream, no output tokens; a request's latency is its end to end.
 */
export function takesInputs(api: ApiKind): api is InputsApi {
  return api === 'embeddings' || api === 'rerank'
}
