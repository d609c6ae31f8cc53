/**
 * What a benchmark sends (`BenchmarkOptions.workload`): the workload kinds, their length distributions,
 * session sources, and the tools and response format added to every request. Other tools read these
 * shapes: change a name only together with a `schemaVersion` bump. Units: lengths in tokens, times in ms.
 */
/** A length distribution in tokens: normal, clipped to [min, max], rounded; fixed when stddev is 0. */
export interface TokenLengthDistribution {
  /** Mean length in tokens. */
  mean: number
  /** Standard deviation in tokens. Default 0. */
  stddev?: number
  /** Smallest length in tokens. Default 1. */
  min?: number
  /** Largest length in tokens. Default unbounded. */
  max?: number
}

/** A tool offered to the model, in the Chat Completions shape; converted for the Responses and Messages APIs. */
export interface ChatTool {
  type: 'function'
  function: {
    name: string
    description?: string
    /** JSON Schema of the arguments. Default: an object with no properties. */
    parameters?: Record<string, unknown>
  }
}

/** Whether the model must call a tool: `auto` (it decides), `required` (one of them), `none`, or `{ name }` (that one). */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string }

/**
 * A reply format the server must follow (`response_format`), checked on every reply: `json_object`
 * (any JSON object) or `json_schema` (a JSON Schema, draft 2020-12).
 */
export type ResponseFormat =
  | { type: 'json_object' }
  | {
      type: 'json_schema'
      /** Name sent with the schema. Default `output`. */
      name?: string
      schema: Record<string, unknown>
      /** Ask the server to hold the reply to the schema exactly (OpenAI's `strict`). Default true. */
      strict?: boolean
    }

/** {@link ResponseFormat} with its defaults applied. */
export type ResolvedResponseFormat =
  { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean }

/** What every request of a workload carries besides its conversation: the options every workload kind takes. */
export interface WorkloadRequestOptions {
  /**
   * Tools offered with every request (`tools`). A streamed tool call is output (TTFT, ITL and E2E
   * count it), and `streaming.toolCallRequests` counts the replies that made one. Not for the
   * completions API, which takes no tools.
   */
  tools?: ChatTool[]
  /** `tool_choice` sent with the tools. Default: none sent (the server's default, `auto`). */
  toolChoice?: ToolChoice
  /**
   * Structured output: the reply format asked of every request (chat and completions
   * `response_format`, Responses `text.format`; not the Messages API). Each reply is checked:
   * `streaming.structuredOutput` counts those that parse as JSON and match the schema.
   */
  responseFormat?: ResponseFormat
  /**
   * Texts per request of the `embeddings` API (`input` array), or documents per request of the
   * `rerank` API (beside one query): consecutive texts of the workload are grouped, so a request
   * of `batch` N takes N (rerank: N + 1, the first as the query) of the texts it would send one
   * per request. Only for those two APIs. Default 1.
   */
  batch?: number
}

/** {@link WorkloadRequestOptions} checked and resolved: what the client adds to every request body. */
export interface RequestShape {
  /** Tools offered; empty: none. */
  tools: readonly ChatTool[]
  toolChoice: ToolChoice | undefined
  responseFormat: ResolvedResponseFormat | undefined
}

/** Synthetic prompts of a given token length. */
export interface SyntheticWorkload extends WorkloadRequestOptions {
  kind: 'synthetic'
  inputTokens: TokenLengthDistribution
  /** Output lengths (`max_tokens`): required by the generation APIs; left out for `embeddings` and `rerank`. */
  outputTokens?: TokenLengthDistribution
  /** Send `ignore_eos: true` and `min_tokens` so the server produces exactly the requested output length. Default true. */
  ignoreEos?: boolean
  /** Length in tokens of a prefix shared by every request (prefix-cache workloads). Default 0. */
  sharedPrefixTokens?: number
  /** Path to a HuggingFace `tokenizer.json` used to count prompt tokens. */
  tokenizer?: string
}

/** The ShareGPT JSON file that vLLM's docs download. */
export interface ShareGptWorkload extends WorkloadRequestOptions {
  kind: 'sharegpt'
  path: string
  /** Output length in tokens when the conversation gives none. Default: the reply's length. */
  outputTokens?: number
  /**
   * Send `ignore_eos: true` and `min_tokens = max_tokens` so the server produces each request's full
   * length (vLLM, SGLang). Default false: the model may stop early, as `vllm bench serve` runs a
   * dataset without `--ignore-eos`.
   */
  ignoreEos?: boolean
}

/** One JSON object per line with `prompt` or `messages`, optional `max_tokens`. */
export interface JsonlWorkload extends WorkloadRequestOptions {
  kind: 'jsonl'
  path: string
  /**
   * Send `ignore_eos: true` and `min_tokens = max_tokens` so the server produces each request's full
   * length (vLLM, SGLang). Default false: the model may stop early, as `vllm bench serve` runs a
   * dataset without `--ignore-eos`.
   */
  ignoreEos?: boolean
}

/** Prompts given in code, sent round-robin. */
export interface PromptsWorkload extends WorkloadRequestOptions {
  kind: 'prompts'
  prompts: string[]
  /** `max_tokens` for every request. Default 128. */
  maxTokens?: number
  /**
   * Send `ignore_eos: true` and `min_tokens = max_tokens` so the server produces each request's full
   * length (vLLM, SGLang). Default false: the model may stop early, as `vllm bench serve` runs a
   * dataset without `--ignore-eos`.
   */
  ignoreEos?: boolean
}

/** Replay of a timestamped trace (mooncake format: `timestamp`, `input_length`, `output_length`, `hash_ids`). */
export interface TraceWorkload extends WorkloadRequestOptions {
  kind: 'trace'
  path: string
  /** Send `ignore_eos: true` and `min_tokens` so each request produces the trace's output length. Default true. */
  ignoreEos?: boolean
}

/** A count or a time drawn per session or turn: normal, clipped to [min, max], rounded for counts; fixed when stddev is 0. */
export interface NumberDistribution {
  mean: number
  /** Standard deviation, in the unit of `mean`. Default 0. */
  stddev?: number
  /** Smallest value. Default 1 for counts, 0 for times. */
  min?: number
  /** Largest value. Default unbounded. */
  max?: number
}

/** Generated sessions: `turns` user messages of `userTokens` each, after an optional shared system prompt. */
export interface SyntheticSessionSource {
  kind: 'synthetic'
  /** Turns per session (a whole number, drawn once per session). */
  turns: NumberDistribution
  /** Length of each new user message, tokens (the history re-sent before it is not counted here). */
  userTokens: TokenLengthDistribution
  /** `max_tokens` of each turn's reply, tokens. */
  outputTokens: TokenLengthDistribution
  /** Length of a system prompt shared by every session of the run (a prefix the cache can share across sessions), tokens. Default 0. */
  systemPromptTokens?: number
}

/** Every human turn of each multi-turn ShareGPT conversation, in order; the reply that follows a turn sets its `max_tokens`. */
export interface ShareGptSessionSource {
  kind: 'sharegpt'
  path: string
  /** `max_tokens` of every turn, tokens. Default: the length of the dataset's reply to that turn. */
  outputTokens?: number
  /** Keep at most this many turns of a conversation. Default: all. */
  maxTurns?: number
}

/** One session per line: `{"system"?: "...", "turns": [{"user": "...", "max_tokens"?: n, "think_ms"?: n}, ...]}`. */
export interface JsonlSessionSource {
  kind: 'jsonl'
  path: string
}

/**
 * Multi-turn sessions (chat): turn k sends the system prompt, every earlier user message with the
 * model's actual reply to it, then the new user message. A session runs one turn at a time.
 * Its load counts sessions: `load.concurrency` is users (sessions in flight), `load.rate` session
 * arrivals per second, `load.sessions` the sessions to run.
 */
export interface SessionsWorkload extends WorkloadRequestOptions {
  kind: 'sessions'
  /** Where the sessions come from. */
  source: SyntheticSessionSource | ShareGptSessionSource | JsonlSessionSource
  /** Think time before each turn after the first (a user reading and typing), ms. Default 0; a JSONL turn's `think_ms` overrides it. */
  thinkTimeMs?: NumberDistribution
  /** Send `ignore_eos: true` and `min_tokens = max_tokens` (vLLM, SGLang). Default: true for synthetic sessions, false for datasets. */
  ignoreEos?: boolean
}

/**
 * Replay of an agentic trace (JSONL, one request per line; docs/sessions.md): sessions with ids,
 * think times, tool-result turns and sub-agents that a turn fans out to and waits for. Root
 * sessions start at their `timestamp`; `load.concurrency` caps the root sessions in flight.
 */
export interface AgenticTraceWorkload extends WorkloadRequestOptions {
  kind: 'agentic-trace'
  path: string
  /** Send `ignore_eos: true` and `min_tokens` so each request produces the trace's `output_length`. Default true. */
  ignoreEos?: boolean
}

export type WorkloadOptions =
  | SyntheticWorkload
  | ShareGptWorkload
  | JsonlWorkload
  | PromptsWorkload
  | TraceWorkload
  | SessionsWorkload
  | AgenticTraceWorkload
