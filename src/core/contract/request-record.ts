/**
 * One request: as a workload prepares it ({@link PreparedRequest}) and as the client records it
 * ({@link RequestRecord}: times in milliseconds on one monotonic clock, `performance.now()`), with its
 * failure kinds. Other tools read these shapes: change a name only together with a `schemaVersion` bump.
 */
/** How a reply met the asked {@link ResponseFormat}: valid, not JSON (or not an object for `json_object`), or JSON that breaks the schema. */
export type StructuredOutputCheck = 'valid' | 'not-json' | 'schema-mismatch'

/** A tool call a reply made: what a later `tool` message answers. */
export interface ToolCallMade {
  /** The call's id (chat `tool_calls[].id`, Responses `call_id`, Messages `tool_use` `id`). */
  id: string
  /** The function called. */
  name: string
  /** Its arguments as the model wrote them (JSON text, possibly invalid). */
  arguments: string
}

/**
 * One message of a conversation, in no API's shape (the request body renders it for each): a
 * system, user or assistant message; an assistant message may carry the tool calls its reply made,
 * and a `tool` message answers one of them (`toolCallId`).
 */
export interface ConversationMessage {
  /** `system`, `user`, `assistant` or `tool`; a dataset may give others (`developer`), sent as given. */
  role: string
  content: string
  /** Assistant messages: the calls the reply made (`tool_calls`, `function_call` items, `tool_use` blocks). */
  toolCalls?: ToolCallMade[]
  /** Tool messages: the id of the call they answer. */
  toolCallId?: string
}

/** One request to send, as built by a workload. */
export interface PreparedRequest {
  /** The conversation (chat, Responses and Messages APIs). */
  messages?: ConversationMessage[]
  /** Prompt text (completions API). */
  prompt?: string
  /** The texts of an `embeddings` request (its `input`), or the documents of a `rerank` request. */
  inputs?: string[]
  /** The query of a `rerank` request. */
  query?: string
  /** `max_tokens` to send. */
  maxTokens?: number
  /** Send `ignore_eos` and `min_tokens = maxTokens`. */
  ignoreEos?: boolean
  /** Input length the workload intended, in tokens (synthetic workloads). */
  expectedInputTokens?: number
  /** Planned send time relative to the first dispatch, in milliseconds (trace replay). */
  timestampMs?: number
  /** Extra body fields, sent as is. */
  extraBody?: Record<string, unknown>
  /**
   * Keep the answer text the server streamed in {@link RequestRecord.outputText} (multi-turn
   * workloads send it back as history). Default false: nothing is decoded or kept.
   */
  keepOutputText?: boolean
}

/** Why a request failed. */
export type FailureKind =
  | 'http' // non-2xx status
  | 'network' // connection refused, reset, DNS, TLS
  | 'timeout' // requestTimeoutMs passed
  | 'stream-error' // an error event inside the stream
  | 'malformed' // an event whose data is not valid JSON
  | 'incomplete' // stream closed without `[DONE]`
  | 'cancelled' // aborted by the run (drain grace over, signal)

/** A typed failure of one request. */
export interface RequestFailure {
  kind: FailureKind
  /** HTTP status for `http` failures. */
  status?: number
  /** What went wrong, with the server's own message where it gave one. */
  message: string
}

/**
 * One request as the client saw it. All times are `performance.now()` milliseconds.
 * A failed request has `ok: false` and an `error`; its timings are kept for diagnosis only.
 */
export interface RequestRecord {
  /** Position in the measured sequence (warm-up requests have negative indices). */
  index: number
  /** Planned send time (ms, same clock), when the schedule planned one. */
  plannedAt: number | undefined
  /** When the request was handed to the connection pool. */
  sentAt: number
  /** When the response headers arrived. */
  headersAt: number | undefined
  /** First event that carries output (README, "Metric definitions"; the fields: `OUTPUT_FIELDS`). */
  firstTokenAt: number | undefined
  /** Last content-bearing event; for a failed request, the time of failure. */
  endAt: number
  /** Time of each content-bearing event, in order. */
  chunkTimes: number[]
  /** Output tokens: usage.completion_tokens, or the content-bearing chunk count when usage is absent. */
  outputTokens: number
  /** Prompt tokens from usage.prompt_tokens (or the workload's estimate when usage is absent). */
  inputTokens: number
  /** True when the server reported usage (token counts are exact). */
  usageReported: boolean
  /** False when the response was not an event stream (a whole JSON body). */
  streamed: boolean
  /**
   * Texts the request carried and the server answered, `embeddings` and `rerank` only (embeddings: the
   * inputs; rerank: the documents); absent for the generation APIs.
   */
  inputs?: number
  /**
   * True when every content event (3 or more) reached the client in one network read. Either the
   * server buffered or the client read late; the request is still measured (only the idle
   * streaming probe decides that a server buffers, see {@link StreamingInfo.evidence}).
   */
  readInOneBurst: boolean
  /**
   * How late the client's event loop ran while this request was in flight, ms: the largest delay of
   * the lateness monitor's timer between send and end (0 when it never ran late). Undefined when no
   * monitor ran (warm-up, probe).
   */
  clientLateMs?: number
  ok: boolean
  error?: RequestFailure
  /** The `finish_reason` of the last choice event, if any. */
  finishReason?: string
  /** True when the reply carried a tool call (chat `tool_calls`, a Responses `function_call`, a Messages `tool_use`). */
  toolCall?: true
  /** How the reply met the workload's `responseFormat`; absent when none was asked or the request failed. */
  structuredOutput?: StructuredOutputCheck
  /** Server timings when the server sends them (llama.cpp `timings`). */
  serverTimings?: Record<string, number>
  /**
   * First event that carries output other than reasoning (`text` or `delta.content` non-empty), ms;
   * TTFO's end. Equals `firstTokenAt` unless the stream began with reasoning; absent when no such
   * event came (a reply that was all reasoning, a whole JSON body).
   */
  firstOutputAt?: number
  /** Content-bearing events whose output was all reasoning (`delta.reasoning_content`, `delta.reasoning`); absent when none. */
  reasoningChunks?: number
  /**
   * The answer text (`delta.content` for chat, `text` for completions, in order; reasoning left out),
   * only when the request asked for it (`PreparedRequest.keepOutputText`).
   */
  outputText?: string
  /** The tool calls the reply made, in order; only when the request asked to keep its output, and it made some. */
  toolCalls?: ToolCallMade[]
  /** Reasoning tokens the server reported (`usage.completion_tokens_details.reasoning_tokens`); part of `outputTokens`. Absent when not reported. */
  reasoningTokens?: number
  /**
   * Tokens of each content-bearing event, aligned with `chunkTimes`, exact: from the cumulative
   * `usage.completion_tokens` the server sends in every chunk with `stream_options.continuous_usage_stats`
   * (vLLM, SGLang). Absent when some content event came without it.
   */
  chunkTokens?: number[]
  /** Session workloads: which session (its measured index; warm-up negative) and which turn (1 = the first) this request was. */
  sessionTurn?: SessionTurnRef
}

/** Where a request sits in a session workload. */
export interface SessionTurnRef {
  /** Measured index of the root session (sub-agent sessions carry their root's index). */
  session: number
  /** Turn number within its own session, 1 for the first. */
  turn: number
  /** Depth in the fan-out tree: 0 for a root session, 1 for its sub-agents, and so on. */
  depth: number
}
