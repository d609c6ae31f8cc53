/**
 * The contract of vitest-llm-bench (see DESIGN.md). Other tools read these shapes: change a name
 * only together with a `schemaVersion` bump.
 *
 * Units: every time is in milliseconds on one monotonic clock (`performance.now()`), every
 * length in tokens, every rate per second.
 */

import type { GateableLatency, HistogramKey, PerMetric } from './metric-catalog.ts'

/**
 * Which endpoint is driven: OpenAI's Chat Completions (`chat`), Completions (`completions`) or
 * Responses (`responses`) API, or Anthropic's Messages API (`messages`), as vLLM and llama.cpp
 * serve them.
 */
/**
 * The API a target drives: the streamed generation APIs (`chat`, `completions`, `responses`,
 * `messages`), or the one-body input APIs (`embeddings`, `rerank`: no stream, no output tokens).
 */
export type ApiKind = 'chat' | 'completions' | 'responses' | 'messages' | 'embeddings' | 'rerank'

/** The APIs that take texts and answer them in one JSON body, with no output tokens. */
export type InputsApi = 'embeddings' | 'rerank'

/** The APIs that generate a streamed reply. */
export type GenerationApi = Exclude<ApiKind, InputsApi>

/** Where requests go. */
export interface TargetOptions {
  /** Server root, e.g. `http://127.0.0.1:8000` (a trailing `/v1` is accepted and stripped). */
  baseUrl: string
  /** Model name sent in each request. Default: the first model listed by `GET /v1/models`. */
  model?: string
  /**
   * `chat` posts to `/v1/chat/completions` with `messages`, `completions` to `/v1/completions` with
   * `prompt`, `responses` to `/v1/responses` with the conversation as `input`, `messages` to
   * `/v1/messages` (Anthropic) with `messages` and `system`. Default `chat`.
   */
  api?: ApiKind
  /** Bearer token. Default: `process.env.OPENAI_API_KEY`. Never written to results or logs. */
  apiKey?: string
  /** Extra request headers (values are redacted in results when their name suggests a secret). */
  headers?: Record<string, string>
  /** Per-request limit from send to end of stream, in milliseconds. Default 600000 (10 minutes). */
  requestTimeoutMs?: number
  /**
   * How long the server may send nothing while requests are in flight before the run stops and the
   * bench fails ("the server stopped answering"), in milliseconds; what was measured before is kept
   * in the reports. Progress lines say so after 5 s of silence. Default 120000 (2 minutes): a long
   * prompt's prefill sends nothing until its first token, so keep it above the slowest TTFT.
   */
  stallTimeoutMs?: number
  /**
   * Ask for usage in every chunk (`stream_options.continuous_usage_stats: true`) to count the tokens
   * of each chunk exactly: per-token ITL (`itlPerTokenMs`) and exact multi-token chunk counts. Costs
   * the client a JSON parse per event (the repeated-chunk fast path no longer applies). Default: on
   * for servers known to support it (vLLM, SGLang, the built-in simulator, by the server's name),
   * off for others (llama.cpp ignores it; other servers may refuse an unknown option).
   */
  continuousUsageStats?: boolean
}

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

/** How a reply met the asked {@link ResponseFormat}: valid, not JSON (or not an object for `json_object`), or JSON that breaks the schema. */
export type StructuredOutputCheck = 'valid' | 'not-json' | 'schema-mismatch'

/** The replies checked against the asked {@link ResponseFormat}, completed requests only. */
export interface StructuredOutputCounts {
  checked: number
  valid: number
  /** Replies that did not parse as JSON (or, for `json_object`, were not an object). */
  notJson: number
  /** Replies that parsed but broke the schema. */
  schemaMismatch: number
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

/** Arrival process of an open-loop load. */
export type ArrivalKind = 'constant' | 'poisson' | 'gamma'

/** What load is applied and when it stops. */
export interface LoadOptions {
  /** Closed loop: this many requests in flight at all times; with `rate`, a cap on in-flight requests. */
  concurrency?: number
  /** Open loop: requests per second. `Infinity` sends every request at once. */
  rate?: number
  /** Inter-arrival distribution for `rate`. Default `poisson`. */
  arrival?: ArrivalKind
  /** Gamma shape: 1 is Poisson, lower is burstier, higher is more even (as vLLM). Default 1. */
  burstiness?: number
  /** Ramp the rate or concurrency from a start value to the target. */
  rampUp?: { from: number; durationMs: number; curve?: 'linear' | 'exponential' }
  /** Stop after this many measured requests (not with session workloads: see `sessions`). */
  requests?: number
  /** Session workloads only: stop after this many measured sessions. */
  sessions?: number
  /** Stop dispatching after this many milliseconds of measurement. */
  durationMs?: number
  /** After the stop, how long in-flight requests may finish before they are cancelled, in milliseconds. Default 30000. */
  drainGraceMs?: number
}

/**
 * A load with every default applied, once, by the plan (`resolveLoad`): what the load stages read.
 * An open loop (`rate`) names its arrival process, and `burstiness` only for gamma; a ramp names its
 * curve; the drain grace is written out. Also the baseline identity of the load (`canonicalConfig`).
 */
export interface ResolvedLoad extends Omit<LoadOptions, 'arrival' | 'burstiness' | 'rampUp' | 'drainGraceMs'> {
  /** Open loops (and rate sweeps): the inter-arrival distribution, always named; elsewhere as given (unused). */
  arrival?: ArrivalKind
  /** Gamma arrivals: the shape (absent for an open loop of another kind); elsewhere as given (unused). */
  burstiness?: number
  /** The ramp, its curve named. */
  rampUp?: { from: number; durationMs: number; curve: 'linear' | 'exponential' }
  /** After the stop, how long in-flight requests may finish before they are cancelled, in milliseconds. */
  drainGraceMs: number
}

/** Requests sent and discarded before measurement. */
export interface WarmupOptions {
  /** Number of warm-up requests. */
  requests?: number
  /** Or warm up for this many milliseconds. */
  durationMs?: number
}

/** Limits for goodput: a request is "good" when it meets every limit given. */
export interface GoodputLimits {
  /** TTFT limit in milliseconds. */
  ttftMs?: number
  /** TPOT limit in milliseconds. */
  tpotMs?: number
  /** E2E latency limit in milliseconds. */
  e2eMs?: number
}

/** Price to turn throughput into cost. */
export interface CostOptions {
  /** Price of one GPU for one hour, in the currency of your choice (e.g. USD). */
  pricePerGpuHour: number
  /** GPUs serving the model. Default 1. */
  gpus?: number
}

/**
 * Scraping the server's Prometheus endpoint while a bench runs: one connection of its own (not
 * the streaming pool), one scrape at a time, never failing the run.
 */
export interface ServerMetricsOptions {
  /** Endpoint URL. Default: `<baseUrl>/metrics`, then `<baseUrl>/prometheus/metrics` (TensorRT-LLM). */
  url?: string
  /** Time between scrapes, ms (at least 100). Default 1000. */
  intervalMs?: number
  /** Limit of one scrape, ms. Default 5000. */
  timeoutMs?: number
}

/**
 * One host's part of a load split over several machines (docs/distributed.md): every host plans the
 * same global schedule from the same seed and options and runs its disjoint slice; the results merge
 * exactly afterwards. Set by the harness from `LLM_BENCH_SEGMENT=i/N` (or `JOB_COMPLETION_INDEX` with
 * `LLM_BENCH_SEGMENTS`) and `LLM_BENCH_START_AT`.
 */
export interface SegmentOptions {
  /** This host's segment, 1..count. */
  index: number
  /** Segments in all. */
  count: number
  /** Wall-clock time (epoch ms) at which every host starts its measured load; undefined: each starts when ready. */
  startAtMs?: number
}

/** Options of {@link runBenchmark}. */
export interface BenchmarkOptions {
  target: TargetOptions
  workload: WorkloadOptions
  load: LoadOptions
  warmup?: WarmupOptions
  /** Seed of every random choice (schedule, lengths, prompts). Default 0. */
  seed?: number
  /** Keep every {@link RequestRecord} in the result. Default false (memory stays flat). */
  recordRequests?: boolean
  goodput?: GoodputLimits
  cost?: CostOptions
  /** The server's own metrics (queue, KV cache, prefix cache, server-side latencies) over the measured window; `false` turns scraping off. Default on, `<baseUrl>/metrics` every second. */
  serverMetrics?: ServerMetricsOptions | false
  /** Aborts the run; in-flight requests are cancelled. */
  signal?: AbortSignal
  /** Called after each measured request (progress reporting). Must be cheap. With `workers` > 1: as threads report (every ~200 ms each), with sums over threads. */
  onProgress?: (progress: Progress) => void
  /**
   * Threads that drive the load, for loads one event loop cannot carry (thousands of streams,
   * 100k+ events per second). Each thread runs its share (concurrency, rate, requests and warm-up
   * split evenly) with its own connections; counts and histograms merge exactly, schedule lag and
   * event-loop delay are the worst thread's. Up to the number of CPU cores the client may use.
   * Must not exceed `load.concurrency` or `load.requests`. Default 1 (this thread only).
   */
  workers?: number
  /** Run only this host's segment of the load (several machines, one load). Default: the whole load. */
  segment?: SegmentOptions
  /**
   * Ends the load early when the server is overwhelmed (a safety stop for a shared server): see
   * {@link StopWhenOptions}. The result then has `stopped`; a bench fails unless `stopWhen.expected`.
   * Not with `workers` > 1 or a segment. Default: none (the load runs to its end whatever the server answers).
   */
  stopWhen?: StopWhenOptions
  /** A soak run: the load runs for `soak.durationMs`, judged per window and by trend. Default: none. */
  soak?: SoakOptions
}

/** Progress of a running benchmark. */
export interface Progress {
  /** Measured requests finished (ok or failed). */
  done: number
  /** Planned measured requests, when known. */
  total: number | undefined
  /** Milliseconds since the first measured dispatch. */
  elapsedMs: number
  /** Output tokens so far. */
  outputTokens: number
  /** TTFT of the request that just finished, ms; undefined when it failed or produced no token (live TTFT in progress displays). */
  ttftMs?: number
  /** Set while requests are in flight and the server has sent nothing for 5 s or more: how long, ms. */
  silentMs?: number
  /** With {@link silentMs}: the requests waiting. */
  inFlight?: number
  /** Set once, when `stopWhen` stops the load: why (the limits exceeded, with the figures). */
  stopping?: string
  /** Set once per closed soak window: its figures in one line (a long CI log stays readable). */
  soakWindow?: string
}

/** One request to send, as built by a workload. */
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

/** Summary of one distribution. Units as the metric's name says. */
export interface MetricSummary {
  count: number
  min: number
  max: number
  mean: number
  stddev: number
  p50: number
  p90: number
  p95: number
  p99: number
  p999: number
}

/** Counts of requests in the measured phase. */
export interface RequestCounts {
  /** Measured requests dispatched. */
  total: number
  completed: number
  failed: number
}

export interface BenchmarkMetrics {
  /** Time to first token, ms. Empty (count 0) when the server did not stream. */
  ttftMs: MetricSummary
  /** Time per output token after the first, ms: (E2E - TTFT) / (outputTokens - 1). */
  tpotMs: MetricSummary
  /** Gaps between consecutive content-bearing events, ms. */
  itlMs: MetricSummary
  /** Send to last content-bearing event, ms. */
  e2eMs: MetricSummary
  /** Output tokens per request. */
  outputTokens: MetricSummary
  /** Input tokens per request. */
  inputTokens: MetricSummary
  /**
   * Time to first output, ms: send to the first event with output that is not reasoning (`text` or
   * `delta.content`; GuideLLM's TTFOT, AIPerf's TTFO). TTFT counts reasoning, so for a reasoning
   * model TTFO − TTFT is its thinking time. Present only when some streamed request carried
   * reasoning (`RequestRecord.reasoningChunks`; otherwise it equals TTFT); replies that were all reasoning have no TTFO (count < TTFT's).
   */
  ttfoMs?: MetricSummary
  /**
   * Inter-token latency per token, ms: each chunk's gap to the previous chunk divided evenly among
   * the k tokens it carried (k values of gap / k; vLLM PR 42661), the tokens counted exactly from the
   * cumulative `usage.completion_tokens` in every chunk (`stream_options.continuous_usage_stats`).
   * Present only when some request had that usage; `itlMs` stays per chunk. Without it nothing is
   * estimated here: `streaming.note` gives ITL / `meanTokensPerChunk` as the estimate.
   */
  itlPerTokenMs?: MetricSummary
  /** Reasoning tokens per request (`usage.completion_tokens_details.reasoning_tokens`, part of `outputTokens`). Present only when the server reported them. */
  reasoningTokens?: MetricSummary
}

export interface Throughput {
  /** Completed requests per second of duration. */
  requestsPerSec: number
  /** Output tokens of completed requests per second. */
  outputTokensPerSec: number
  /** Input plus output tokens of completed requests per second. */
  totalTokensPerSec: number
  /** Texts embedded or documents ranked per second (`embeddings`, `rerank`); absent for the generation APIs. */
  inputsPerSec?: number
  /** Input tokens of completed requests per second (`embeddings`, `rerank`); absent for the generation APIs. */
  inputTokensPerSec?: number
}

/**
 * How late the client read responses, from the lateness monitor (a timer that notes how late it
 * fires) over each completed request's send-to-end window.
 */
export interface ClientLateness {
  /** Completed requests the monitor watched. */
  watchedRequests: number
  /** Of those, the ones with a lateness above `thresholdMs`. */
  lateRequests: number
  /** `lateRequests / watchedRequests`, 0..1. */
  share: number
  /** The threshold, ms. */
  thresholdMs: number
  /** Per-request lateness p50, ms. */
  p50Ms: number
  /** Per-request lateness p99, ms. */
  p99Ms: number
  /** Largest per-request lateness, ms. */
  maxMs: number
}

/** What decided {@link StreamingInfo.streamed}. */
export type StreamingEvidence = 'content-type' | 'probe' | 'none' | 'api'

/** How far the delivered stream matched a real token stream. */
export interface StreamingInfo {
  /**
   * False when the server did not stream: most completed responses were not `text/event-stream`, or
   * the idle streaming probe received its whole output in one read. TTFT/ITL/TPOT are then empty.
   */
  streamed: boolean
  /**
   * What decided `streamed`: `content-type` (the responses' content type), `probe` (the content type
   * said event stream, and the idle probe before warm-up saw how the output arrived), or `none` (no
   * probe ran or it failed: the content type alone), or `api` (the `embeddings` and `rerank` APIs answer in
   * one JSON body by definition: `streamed` is false, and no warning says so).
   */
  evidence: StreamingEvidence
  /** Requests the idle streaming probe sent before warm-up (not measured); absent when none was sent. */
  probeRequests?: number
  /** Completed requests whose response was not `text/event-stream`; left out of TTFT, TPOT and ITL. */
  nonSseRequests: number
  /**
   * Completed event-stream requests whose whole output reached the client in one network read.
   * They count in every metric: with a server that streams, this is the client reading late.
   */
  burstRequests: number
  /** True when at least one request had no usage: output token counts are estimated from chunks. */
  tokenCountEstimated: boolean
  /** Content-bearing chunks that carried more than one token (speculative decoding, buffering). */
  multiTokenChunks: number
  /** Mean tokens per content-bearing chunk. */
  meanTokensPerChunk: number
  /** Completed requests whose reply carried a tool call (their tool-call output counts as output); absent when none. */
  toolCallRequests?: number
  /** The replies checked against the workload's `responseFormat`; absent when none was asked. */
  structuredOutput?: StructuredOutputCounts
  /** One line for humans when something is off, else undefined. */
  note?: string
}

/** Goodput: requests meeting every limit. */
export interface GoodputResult {
  limits: GoodputLimits
  /** Completed requests that met every limit. */
  goodRequests: number
  /** Share of completed requests that met every limit, 0..1. */
  share: number
  /** Good requests per second of duration. */
  requestsPerSec: number
}

/** Cost at the measured throughput. */
export interface CostResult {
  pricePerGpuHour: number
  gpus: number
  /** Cost per one million output tokens, in the price's currency. */
  perMillionOutputTokens: number
}

/** An entry of the errors table. */
export interface ErrorCount {
  kind: FailureKind
  message: string
  count: number
}

/** What the run ran on. */
export interface EnvironmentInfo {
  runtime: { name: 'node' | 'bun' | 'deno' | 'unknown'; version: string }
  /** vitest-llm-bench version. */
  toolVersion: string
  host: {
    platform: string
    arch: string
    hostname?: string
    cpuModel?: string
    cpuCores?: number
    memoryBytes?: number
    os?: string
  }
  /** GPU inventory; empty when no NVIDIA driver was found. */
  gpus: Array<{
    index: number
    name: string
    uuid?: string
    memoryTotalMiB?: number
    driverVersion?: string
    cudaVersion?: string
  }>
  server: {
    /**
     * What the server is, as it answers (`vllm`, `sglang`, `llama.cpp`, the `server` header, `owned_by`);
     * the launch name (`startedAs`) only where the server does not say.
     */
    name?: string
    /**
     * How it was started: `connected` (it was running), or the launch's name (`vllm`, `sglang`, `llama.cpp`,
     * a command's name such as `docker`). Absent for a `target` given by URL.
     */
    startedAs?: string
    version?: string
    model?: string
    maxContextTokens?: number
    launch?: {
      command: string
      /** Arguments as run, secret values replaced by `***`. */
      args: string[]
      /** Environment variables the launch spec set (not the inherited ones), secret values replaced by `***`. */
      env?: Record<string, string>
    }
  }
}

/** Client self-check: whether the load generator kept up. */
/**
 * Whether the client or the machine was disturbed while the run measured: what the baseline
 * quality gate and the verdict read. Thresholds: other processes above 0.5 cores, steal above 5 % (from 0.5 % a verdict allows for it),
 * event-loop delay p99 above 30 ms, a client that fell behind its schedule.
 */
export interface SelfCheck {
  /** Logical CPUs of this machine. */
  cores: number
  /** CPU used by other processes than the benchmark and its launched server, in cores (averaged over the window); absent where it cannot be told. */
  otherCores?: number
  /**
   * The busiest of those other processes (up to 3, each over 0.05 cores), busiest first: pid, command
   * name (no arguments) and cores used over the window. A process that started and ended inside the
   * window counts in `otherCores` but is not named.
   */
  busiestOthers?: { pid: number; command: string; cores: number }[]
  /** Share of CPU time taken by the hypervisor (steal), 0..1. */
  stealShare?: number
  /** 1-minute load average at the end of the window (counts the server under test too: shown, not judged). */
  loadAverage1m: number
  /** Event-loop delay p99 during the window, ms. */
  eventLoopDelayP99Ms?: number
  /** Share of requests read more than 5 ms late, 0..1. */
  lateShare?: number
  /** How long a fixed CPU loop took before the load, ms (median of 5): this machine's speed then, compared with the baseline's. */
  cpuCalibrationMs?: number
  /** What disturbed the run, one phrase each; empty when nothing did. */
  disturbed: string[]
}

export interface ClientHealth {
  /** Actual minus planned send time, ms (open-loop loads). */
  scheduleLagMs?: { p50: number; p99: number; max: number }
  /** Lag of the sends no concurrency cap held back: the client's own lag, ms. */
  generatorLagMs?: { p50: number; p99: number; max: number }
  /** Event-loop delay during the run, ms. */
  eventLoopDelayMs?: { p50: number; p99: number; max: number }
  /** How late the client read each request's events (one thread; absent with workers). */
  lateness?: ClientLateness
  /** Whether the client or the machine was disturbed while the run measured. */
  selfCheck?: SelfCheck
  /** False when lag shows the client, not the server, shaped the load. */
  keptUp: boolean
  warnings: string[]
}

/** The figures of one trial (one measurement of a bench) that a verdict compares across trials. */
export interface TrialFigures {
  /** Measured duration of the trial, ms. */
  durationMs: number
  /**
   * Per gateable latency (`METRIC_CATALOG`): sample count and statistics, ms. One reported only where
   * measured (`ttfoMs`) is absent from a trial that could not measure it.
   */
  latency: PerMetric<GateableLatency, Pick<MetricSummary, 'count' | 'mean' | 'p50' | 'p90' | 'p95' | 'p99' | 'p999'>>
  /** Run-level throughputs of the trial, per second. */
  throughput: Throughput
}

/**
 * What a workload says about itself (`Workload.describe()`, the result's `workload`): the fields
 * every kind has, typed, and the kind's own (dataset path and hash, length limits, skipped entries).
 */
export interface WorkloadFacts {
  kind: WorkloadOptions['kind']
  /** The seed its random choices used. */
  seed: number
  /** The prompt salt of this run; null: the workload adds none (datasets and prompt lists are sent as written). */
  salt: string | null
  /** Mean input tokens the workload asks for, tokens (counted or estimated as `tokenCounter` says). */
  requestedInputTokensMean: number
  /** Mean output tokens it asks for (`max_tokens`), tokens; null when it sets none. */
  requestedOutputTokensMean: number | null
  [fact: string]: unknown
}

/** The outcome of {@link runBenchmark}. JSON-serialisable. */
/**
 * A trend limit per hour, as text: `'+5%/h'` (relative to the figure's median over the run) or, for GPU
 * memory, `'+200/h'` (MiB per hour). A latency limit bounds growth, a throughput limit a fall (`'-5%/h'`).
 */
export type SoakRateLimit = `${'+' | '-'}${number}%/h` | `+${number}/h`

/** Trend limits of a soak, per hour ({@link SoakRateLimit}). Every key is optional. */
export interface SoakExpect {
  ttftMs?: { p50?: SoakRateLimit; p99?: SoakRateLimit }
  tpotMs?: { p50?: SoakRateLimit; p99?: SoakRateLimit }
  e2eMs?: { p50?: SoakRateLimit; p99?: SoakRateLimit }
  /** Output tokens per second of each window: a fall limit such as `'-5%/h'`. */
  outputTokensPerSec?: SoakRateLimit
  /** Growth of the GPU memory used (the largest sample of each window, summed over GPUs), MiB per hour: `'+200/h'`. */
  gpuMemoryMiB?: { growth: SoakRateLimit }
  /** Failed requests over all measured requests of the soak: at most this share (0..1). */
  errors?: { maxRate: number }
}

/** After a soak's load: GPU memory and the server's gauges must come back. */
export interface SoakRecoveryOptions {
  /** How long they may take, ms. Default 60000. */
  withinMs?: number
  /** GPU memory may stay this many MiB above where it was before the load (summed over GPUs). Default 1024. */
  gpuMemoryMarginMiB?: number
}

/** `soak` of {@link BenchmarkOptions}: a long run judged by the trend of its windows. */
export interface SoakOptions {
  /** How long the load runs, ms (it becomes `load.durationMs`; `load.requests` must be left out). At least 4 windows. */
  durationMs: number
  /** Length of one window, ms, at least 1000. Default 60000. */
  windowMs?: number
  /** Trend limits; without them the trends are reported, not judged. */
  expect?: SoakExpect
  /** The recovery check after the load (GPU memory where nvidia-smi answers; server gauges where scraped). */
  recovery?: SoakRecoveryOptions
}

/** Percentiles of one window, ms; null when no request of the window had the figure. */
export interface SoakWindowLatency {
  p50: number
  p99: number
}

/** One window of a soak: the requests that finished in it, and what the machine did meanwhile. */
export interface SoakWindow {
  /** Start and end from the first measured dispatch, ms. */
  startMs: number
  endMs: number
  completed: number
  failed: number
  outputTokensPerSec: number
  ttftMs: SoakWindowLatency | null
  tpotMs: SoakWindowLatency | null
  e2eMs: SoakWindowLatency | null
  /** p99 of how late the client read its requests' events, ms; absent where not measured. */
  clientLateMsP99?: number
  /** Cores other processes used (not this process, not the launched server); absent where `/proc` cannot say. */
  otherCores?: number
  /** Share of CPU time the hypervisor took (steal), 0..1. */
  stealShare?: number
  /** Largest GPU memory used in the window, MiB, summed over GPUs. */
  gpuMemoryMiB?: number
  /** Mean GPU power in the window, W, summed over GPUs. */
  gpuPowerW?: number
  /** Largest KV-cache usage the server reported in the window, 0..1. */
  kvCacheUsage?: number
  /** Largest queue (requests waiting) the server reported in the window. */
  requestsWaiting?: number
}

/** Names of the figures a soak follows over its windows. */
export type SoakFigure =
  | 'ttftMs.p50'
  | 'ttftMs.p99'
  | 'tpotMs.p50'
  | 'tpotMs.p99'
  | 'e2eMs.p50'
  | 'e2eMs.p99'
  | 'outputTokensPerSec'
  | 'gpuMemoryMiB'

/**
 * The trend of one figure over the windows: Theil-Sen's slope (the median of the slopes between every
 * two windows) with Sen's distribution-free interval, per hour. `unit` `'%/h'`: relative to the figure's
 * median over the windows; `'MiB/h'` for GPU memory.
 */
export interface SoakTrend {
  figure: SoakFigure
  unit: '%/h' | 'MiB/h'
  /** Windows with the figure. */
  windows: number
  /** Median of the figure over the windows (ms, tok/s or MiB). */
  median: number
  slopePerHour: number
  /** The interval's bounds; null where too few windows give one. */
  ciLow: number | null
  ciHigh: number | null
  /** Confidence of the interval, e.g. 0.95. */
  level: number
}

/** One soak limit judged: pass when the whole interval is within it, fail when the whole interval is beyond. */
export interface SoakCheck {
  /** The figure (a {@link SoakFigure}, or `errors.rate`). */
  figure: SoakFigure | 'errors.rate'
  /** The limit as given. */
  limit: string
  verdict: 'pass' | 'fail' | 'inconclusive'
  /** One line: the measured trend and interval against the limit, and why a fail was not called. */
  reason: string
}

/** What came back after a soak's load. */
export interface SoakRecovery {
  /** GPU memory before the load, at its end, and when last read after it, MiB (summed over GPUs). */
  gpuMemoryBeforeMiB?: number
  gpuMemoryEndMiB?: number
  gpuMemoryAfterMiB?: number
  /** Time after the load until GPU memory was back within the margin, ms; null: it did not come back. */
  gpuMemoryReturnedAfterMs?: number | null
  /** The server's running and waiting requests and KV-cache usage when last scraped after the load. */
  requestsRunning?: number
  requestsWaiting?: number
  kvCacheUsage?: number
  /** Time after the load until the server's gauges were idle, ms; null: they were not. */
  gaugesReturnedAfterMs?: number | null
  withinMs: number
  gpuMemoryMarginMiB: number
  verdict: 'pass' | 'fail'
  /** Why it failed, one line each. */
  failures: string[]
}

/** The soak part of a {@link BenchmarkResult}. */
export interface SoakResult {
  durationMs: number
  windowMs: number
  windows: SoakWindow[]
  trends: SoakTrend[]
  checks: SoakCheck[]
  recovery?: SoakRecovery
  /** Set when other work on the machine changed between the soak's halves: a trend fail is then inconclusive. */
  machineChange?: string
  /** Fail when a check or the recovery failed, inconclusive when a check was, else pass. */
  verdict: 'pass' | 'fail' | 'inconclusive'
}

export interface BenchmarkResult {
  /** 2 since `server` (server-side metrics); readers accept 1, which lacks it. */
  schemaVersion: 2
  /** Wall-clock start, ISO 8601 (for humans; durations use the monotonic clock). */
  startedAt: string
  /** First measured dispatch to last completion, ms. */
  durationMs: number
  counts: RequestCounts
  metrics: BenchmarkMetrics
  throughput: Throughput
  errors: ErrorCount[]
  streaming: StreamingInfo
  goodput?: GoodputResult
  cost?: CostResult
  client: ClientHealth
  /** Workload facts: dataset path and hash, salt, requested vs actual lengths. */
  workload: WorkloadFacts & {
    /** Mean output tokens of completed requests, tokens. */
    actualOutputTokensMean: number
    /** Mean input tokens of completed requests, tokens. */
    actualInputTokensMean: number
  }
  environment: EnvironmentInfo
  /** The resolved options (secrets removed). */
  config: Record<string, unknown>
  /**
   * Encoded HDR histograms (base64, hdr-histogram-js `encodeIntoCompressedBase64`) of the latency metrics, in
   * microseconds, keyed as `METRIC_CATALOG` says (`ttftUs` for `ttftMs`); one per latency with samples.
   */
  histograms: Partial<Record<HistogramKey, string>>
  /** The run cut into windows of equal length (throughput noise, charts over time). */
  timeline?: Timeline
  /** GPU telemetry from nvidia-smi; absent when no NVIDIA driver was found. */
  gpu?: GpuTelemetry
  /** The server's own metrics over the measured window (with `trials`, all trials as one window, see `mergeTrials`); absent when scraping was turned off (`serverMetrics: false`). */
  server?: ServerSide
  /** Present only with `recordRequests`. */
  requests?: RequestRecord[]
  /**
   * Each trial's own figures when the bench ran several (`trials`), oldest first (at most 10); the
   * rest of the result then describes all trials together (see `mergeTrials`).
   */
  trials?: TrialFigures[]
  /** Session workloads: per turn number and per session (`counts` and `metrics` above count every turn as one request). */
  sessions?: SessionsResult
  /** A segmented run: which slice of the global load this result holds, and how its start went (see `mergeSegments`). */
  segment?: SegmentInfo
  /**
   * Present when the server stopped answering: requests were in flight and none of them received a
   * byte for `target.stallTimeoutMs`. The run was stopped there; what finished before is measured
   * as usual, and the bench fails on any machine.
   */
  stall?: StallReport
  /**
   * Present when `stopWhen` ended the load early: when, why, and what was cancelled. Never recorded
   * as a baseline; the bench fails unless the stop was expected.
   */
  stopped?: StopReport
  /** A soak run's windows, trends and verdict (`soak` option). */
  soak?: SoakResult
  /** Warnings for humans (early stop, client lag, estimated counts). */
  warnings: string[]
}

/** Latency limits of {@link StopWhenOptions}, ms, read over the trailing window. */
export interface StopWhenLatency {
  /** The median of the window's requests above this, ms. */
  p50?: number
  /** The 99th percentile (nearest rank) of the window's requests above this, ms. */
  p99?: number
}

/**
 * When to stop the load early: any limit exceeded over the trailing `windowMs`, continuously for
 * `forMs`. Read from the measured requests as they finish and on a timer; while no request finishes
 * (a server that stopped answering) the last figures stand. At least one limit must be given.
 */
export interface StopWhenOptions {
  /** Share (0..1, exclusive of 1) of the requests finished in the window that failed above which the load stops. */
  errorRate?: number
  /** TTFT limits over the window's requests that produced a token, ms. */
  ttftMs?: StopWhenLatency
  /** End-to-end latency limits over the window's completed requests, ms. */
  e2eMs?: StopWhenLatency
  /** How long the condition must hold before the load stops, ms. Default 5000. */
  forMs?: number
  /** The trailing window the figures are read over, ms. Default 1000. */
  windowMs?: number
  /** The stop is what the bench is for (a probe meant to find the limit): it passes with a note. Default false. */
  expected?: boolean
}

/** {@link StopWhenOptions} with its defaults applied by the plan. */
export interface ResolvedStopWhen extends Omit<StopWhenOptions, 'forMs' | 'windowMs' | 'expected'> {
  forMs: number
  windowMs: number
  expected: boolean
}

/** A load that `stopWhen` ended early (see {@link BenchmarkResult.stopped}); times from the first measured dispatch, ms. */
export interface StopReport {
  /** When the load stopped sending, ms after the first measured dispatch. */
  atMs: number
  /** Since when the condition held without a break, ms after the first measured dispatch. */
  conditionSinceMs: number
  /** The limits exceeded at the stop, with the figures, e.g. `error rate 100 % > 50 % (12 of 12 requests in the last 1 s)`. */
  reason: string
  /** Measured requests in flight at the stop, cancelled (they count in `counts.failed` as `cancelled` errors). */
  inFlightCancelled: number
  /** `stopWhen.expected`: the stop was the point of the run. */
  expected: boolean
}

/** A server that stopped answering mid-run (see {@link BenchmarkResult.stall}). */
export interface StallReport {
  /** How long no byte arrived while requests were in flight, ms. */
  silentMs: number
  /** Requests in flight when the run was stopped (cancelled). */
  inFlight: number
  /** The limit that was reached, ms. */
  stallTimeoutMs: number
}

/** What a segment's result says about its slice (issue 19): enough for a merge to check that the slices belong together. */
export interface SegmentInfo {
  /** This segment, 1..count. */
  index: number
  /** Segments in all. */
  count: number
  /** The seed of the global plan. */
  seed: number
  /** The shared start (epoch ms), null when none was set. */
  startAtMs: number | null
  /** Wall-clock time (epoch ms, this host's clock) of the load's origin: where this host's planned offsets count from. */
  originEpochMs: number
  /** How late the origin was after `startAtMs`, ms (this host's clock); null without a shared start. */
  startLagMs: number | null
  /**
   * The server's clock minus this host's, ms, measured from the server's `Date` headers before the
   * load, with its accuracy (the true offset lies within `offsetMs ± accuracyMs`); a merge places
   * every host's origin on the server's clock with it. Null, with `note` saying why, when not measured.
   */
  clock: { offsetMs: number; accuracyMs: number } | null
  /** Why `clock` is null. */
  clockNote?: string
}

/** The requests of one turn number across sessions. */
export interface TurnMetrics {
  /** Turn number, 1 for the first (the last entry may gather every turn from this number on: see `andLater`). */
  turn: number
  /** True when this entry holds every turn from `turn` on. */
  andLater: boolean
  /** Requests of this turn number sent in the measured phase. */
  requests: number
  failed: number
  /** TTFT of this turn's completed requests, ms: with a prefix cache, later turns find their history cached. */
  ttftMs: MetricSummary
  /** Send to last output of this turn's completed requests, ms. */
  e2eMs: MetricSummary
  /** Prompt tokens (history included) of this turn's completed requests. */
  inputTokens: MetricSummary
}

/** Sessions of a session workload (measured phase; warm-up excluded). */
export interface SessionsResult {
  /** Root sessions started. */
  started: number
  /** Root sessions whose every turn (sub-agents' included) completed. */
  completed: number
  /** Root sessions with a failed turn (their later turns were not sent) or cancelled at the stop. */
  failed: number
  /** Sub-agent sessions started by fan-out turns. */
  subSessions: number
  /** Completed root sessions per second of the measured duration. */
  sessionsPerSec: number
  /** First send to last output of each completed root session, think times and sub-agents included, ms. */
  durationMs: MetricSummary
  /** Turns per completed root session (sub-agents' turns included). */
  turns: MetricSummary
  /** Sessions whose every turn met the `goodput` limits; absent without `goodput`. */
  goodput?: { goodSessions: number; share: number }
  /** One entry per turn number, from 1. */
  byTurn: TurnMetrics[]
  /** Encoded HDR histograms (as `BenchmarkResult.histograms`, microseconds) that trials merge exactly: session durations, and TTFT and E2E by turn (aligned with `byTurn`). */
  histograms: { durationUs?: string; ttftUsByTurn: Array<string | null>; e2eUsByTurn: Array<string | null> }
}

/** Whose metric names a server's `/metrics` used (see docs/server-metrics.md for the mapping). */
export type ServerMetricsDialect = 'vllm' | 'sglang' | 'llamacpp' | 'trtllm'

/** A server gauge over the measured window: one value per scrape. */
export interface ServerGaugeSummary {
  /** Mean over the scrapes in the window (each scrape weighs the same). */
  mean: number
  /** Largest scraped value. */
  peak: number
  /** Standard deviation over the scrapes `mean` comes from: with `samples`, how far the mean is from noise. */
  stddev: number
  /** Scrapes `mean` comes from. */
  samples: number
}

/** The observations a server histogram gained inside the measured window, in milliseconds. */
export interface ServerHistogramSummary {
  /** Observations in the window. */
  count: number
  /** Sum / count of the window's observations, ms (exact: from `_sum` and `_count`). */
  mean: number
  /**
   * Quantiles estimated as Prometheus' `histogram_quantile` does (linear within the bucket that
   * holds the rank), ms: precise only to the width of that bucket, which {@link buckets} gives.
   */
  p50: number
  p90: number
  p99: number
  /** The window's observations per finite bucket: upper bound in ms and cumulative count (the `+Inf` bucket is `count`). */
  buckets: Array<{ leMs: number; count: number }>
}

/** Speculative decoding over the window, from the server's counters. */
export interface SpecDecodeSummary {
  /** Verification steps (drafts proposed). */
  drafts: number
  /** Draft tokens proposed. */
  draftTokens: number
  /** Draft tokens the target model accepted. */
  acceptedTokens: number
  /** acceptedTokens / draftTokens, 0..1 (vLLM's "draft acceptance rate"). */
  acceptanceRate: number
  /** 1 + acceptedTokens / drafts: tokens produced per verification step (vLLM's "mean acceptance length"). */
  meanAcceptedLength: number
}

/** Client TTFT minus the server's own TTFT at the same quantiles: the client's overhead plus the network, ms. */
export interface ClientServerTtft {
  p50: number
  p90: number
  p99: number
  /** p50 difference as a share of the client's TTFT p50, 0..1. */
  shareOfP50: number
  /** Width of the server histogram's bucket that holds its p50, ms: the precision of `p50`. */
  p50PrecisionMs: number
}

/** The server's own metrics over the measured window (warm-up excluded), read from its Prometheus endpoint. */
export interface ServerMetrics {
  dialect: ServerMetricsDialect
  /** The endpoint scraped (user and password removed). */
  url: string
  /** Planned time between scrapes, ms. */
  intervalMs: number
  /** Scrapes inside the measured window, both ends included. */
  scrapes: number
  /** Scrapes in the window that failed (timeout, error status, unreadable text). */
  failedScrapes: number
  /** Mean time one scrape took (request and parse), ms. */
  scrapeMeanMs: number
  /** From the scrape right before the first measured dispatch to the one right after the last completion, ms. */
  windowMs: number
  /** Prompt tokens the server received, computed and cached (llama.cpp: its computed plus cached counters). */
  promptTokens?: number
  /** Output tokens the server generated. */
  generatedTokens?: number
  /** Requests the server finished. */
  finishedRequests?: number
  /** Prompt tokens looked up in the prefix cache and found there; `hitRate` = hits / queries, 0..1. */
  prefixCache?: { queriedTokens: number; hitTokens: number; hitRate: number }
  /** Sequences preempted (evicted from the batch for lack of KV cache). */
  preemptions?: number
  /** Requests in the running batch (llama.cpp: busy slots). */
  requestsRunning?: ServerGaugeSummary
  /** Requests waiting for a slot (llama.cpp: deferred). */
  requestsWaiting?: ServerGaugeSummary
  /** Share of the KV cache in use, 0..1. */
  kvCacheUsage?: ServerGaugeSummary
  /** The server's TTFT (arrival to first token), ms. */
  ttftMs?: ServerHistogramSummary
  /** Time requests waited in the server's queue, ms. */
  queueTimeMs?: ServerHistogramSummary
  /** Prefill time (scheduled to first token), ms. */
  prefillTimeMs?: ServerHistogramSummary
  /** Decode time (first to last token), ms. */
  decodeTimeMs?: ServerHistogramSummary
  /** The server's end-to-end request latency, ms. */
  e2eMs?: ServerHistogramSummary
  /** The server's inter-token latency, ms. */
  itlMs?: ServerHistogramSummary
  specDecode?: SpecDecodeSummary
  /** Client TTFT minus server TTFT (needs the server's TTFT histogram). */
  clientOverheadTtftMs?: ClientServerTtft
  /**
   * What the run's first request (the idle probe, before warm-up) found in the prefix cache. It is
   * the first of this run, so any hit came from an earlier run: above a block and a quarter of its
   * prompt, the cache was warm (see {@link notes}).
   */
  firstRequestCache?: { promptTokens: number; hitTokens: number; warm: boolean }
  /** Gauges per scrape over the window, for charts: `t` in ms from the window's start; null where a scrape failed or the server has no such gauge. */
  series: {
    t: number[]
    requestsRunning: Array<number | null>
    requestsWaiting: Array<number | null>
    kvCacheUsage: Array<number | null>
  }
  /** One line each for humans: what is missing, estimated or suspicious. */
  notes: string[]
}

/** The server's side of a run. */
export interface ServerSide {
  /** Present when the server's metrics endpoint answered with metrics this tool knows. */
  metrics?: ServerMetrics
  /** Why there are no metrics (one line), when there are none. */
  note?: string
}

/** Per-GPU figures sampled by nvidia-smi during the measured phase. */
export interface GpuStats {
  index: number
  name: string
  uuid?: string
  /** Memory used before the load started, MiB. */
  memoryBeforeMiB?: number
  /** Memory used after the load ended, MiB. */
  memoryAfterMiB?: number
  /** Peak memory used during the load, MiB. */
  memoryPeakMiB?: number
  /** Mean memory used during the load, MiB. */
  memoryMeanMiB?: number
  memoryTotalMiB?: number
  /** Mean GPU utilization, percent. */
  utilizationMeanPct?: number
  /** Mean power draw, watts. */
  powerMeanW?: number
  /** Peak power draw, watts. */
  powerPeakW?: number
  /** Energy over the measured phase (integrated power), joules. */
  energyJ?: number
  /** Energy per output token, joules (energy divided by all output tokens of the run). */
  energyPerOutputTokenJ?: number
}

/** One nvidia-smi sample row. */
export interface GpuSample {
  /** Monotonic time of the sample (ms, same clock as requests). */
  t: number
  index: number
  memoryUsedMiB?: number
  utilizationPct?: number
  powerW?: number
}

export interface GpuTelemetry {
  /** Sampling interval, ms. */
  intervalMs: number
  gpus: GpuStats[]
  /** Time series (kept for reports). */
  samples: GpuSample[]
  /** Set when sampling could not happen or was partial (one line for humans). */
  note?: string
}

/** A run cut into consecutive windows of `windowMs`: what happened in each (from the first measured dispatch). */
export interface Timeline {
  /** Window length, milliseconds. */
  windowMs: number
  /** Requests completed in each window. */
  requests: number[]
  /** Output tokens produced in each window (spread over each request's content-bearing chunks). */
  outputTokens: number[]
  /** Input plus output tokens in each window. */
  totalTokens: number[]
  /** Most requests in flight at once during each window. */
  inFlightMax: number[]
  /** True when the last window is shorter than `windowMs` (drop it before estimating noise). */
  lastWindowPartial: boolean
}
