/**
 * What the simulator did with one completion request. Times are `performance.now()` milliseconds
 * (the process's monotonic clock, shared with an in-process client), taken right before the
 * bytes are handed to the socket.
 */
export interface SimulatorScheduleEntry {
  /** Response id (`chatcmpl-…` or `cmpl-…`), as sent to the client. */
  id: string
  /** The request handler started (headers received). */
  arrivedAt: number
  /** Left the queue: its prefill started (absent when it never got a slot). */
  prefillStartedAt?: number
  /** Prefill done: the step that prefilled it ended, which is also when its first token is sent. */
  prefillEndedAt?: number
  /** First content-bearing chunk sent. */
  firstTokenAt?: number
  /** Emit time of every output token, in order; tokens of one chunk share a time. */
  tokenTimes: number[]
  /** Emit time of every content-bearing chunk (differs from `tokenTimes` when `tokensPerChunk` > 1). */
  chunkTimes: number[]
  /** Response ended, failed or the client went away. */
  finishedAt?: number
  promptTokens: number
  /** Prompt tokens found in the prefix cache at admission (0 without `prefixCaching`; absent when never admitted). */
  cachedPromptTokens?: number
  /** Planned output length, tokens (the emitted count is `tokenTimes.length`). */
  completionTokens: number
  /**
   * Set when the request did not end normally: `http-429`, `http-500`, `drop-connection`,
   * `error-event`, `stall` (completed after a pause) or `client-disconnect`.
   */
  fault?: string
}

/** Load inside the simulator right now. */
export interface SimulatorStats {
  /** Sequences holding a batch slot (decoding, or stalled). */
  running: number
  /** Requests waiting for a slot. */
  queued: number
  /** Requests whose output was sent in full since start. */
  completed: number
}

/** What a histogram has observed, in seconds. */
export interface SimulatorHistogramSnapshot {
  /** Upper bounds of the buckets, seconds, ascending, without +Inf (vLLM's own bounds). */
  boundaries: readonly number[]
  /** Observations at or below each bound (cumulative), aligned with `boundaries`. */
  cumulativeCounts: readonly number[]
  /** Observations in all (the `+Inf` bucket). */
  count: number
  /** Sum of the observations, seconds. */
  sum: number
}

/**
 * The figures `GET /metrics` serves, as numbers (token counts in tokens, times in seconds).
 * Each field names the vLLM metric it is served as.
 */
export interface SimulatorMetricsSnapshot {
  /** `vllm:num_requests_running`: sequences holding a batch slot. */
  running: number
  /** `vllm:num_requests_waiting`: requests queued for a slot. */
  waiting: number
  /** `vllm:kv_cache_usage_perc`, 0..1: KV blocks held by running sequences over the capacity (`kvCacheTokens / blockTokens`). */
  kvCacheUsage: number
  /** `vllm:prompt_tokens_total`: prompt tokens of requests that got their first token. */
  promptTokens: number
  /** `vllm:generation_tokens_total`: output tokens emitted. */
  generationTokens: number
  /** `vllm:request_success_total` by `finished_reason`: requests whose output was sent in full. */
  requestSuccess: { stop: number; length: number }
  /** `vllm:num_preemptions_total`: always 0, the simulator never preempts a sequence. */
  preemptions: number
  /** `vllm:prefix_cache_queries_total`: prompt tokens of admitted requests, with `prefixCaching` (else 0). */
  prefixCacheQueries: number
  /** `vllm:prefix_cache_hits_total`: of those, tokens found in the prefix cache. */
  prefixCacheHits: number
  /**
   * `vllm:spec_decode_*`, present when `tokensPerChunk` k > 1: a chunk after a request's first is
   * one draft of k − 1 tokens, of which the chunk's tokens minus one were accepted.
   */
  specDecode:
    | {
        /** `vllm:spec_decode_num_drafts_total`. */
        drafts: number
        /** `vllm:spec_decode_num_draft_tokens_total`. */
        draftTokens: number
        /** `vllm:spec_decode_num_accepted_tokens_total`. */
        acceptedTokens: number
        /** `vllm:spec_decode_num_accepted_tokens_per_pos_total` by `position` (0..k−2). */
        acceptedTokensPerPosition: readonly number[]
      }
    | undefined
  /** `vllm:time_to_first_token_seconds`: arrival to first token, observed when the first token is sent. */
  timeToFirstToken: SimulatorHistogramSnapshot
  /** `vllm:inter_token_latency_seconds`: gap between consecutive chunks of one request, observed per chunk. */
  interTokenLatency: SimulatorHistogramSnapshot
  /** `vllm:e2e_request_latency_seconds`: arrival to last token, completed requests. */
  e2eRequestLatency: SimulatorHistogramSnapshot
  /** `vllm:request_queue_time_seconds`: arrival to admission, completed requests. */
  requestQueueTime: SimulatorHistogramSnapshot
  /** `vllm:request_inference_time_seconds`: admission to last token, completed requests. */
  requestInferenceTime: SimulatorHistogramSnapshot
  /** `vllm:request_prefill_time_seconds`: admission to first token, completed requests. */
  requestPrefillTime: SimulatorHistogramSnapshot
  /** `vllm:request_decode_time_seconds`: first token to last token, completed requests. */
  requestDecodeTime: SimulatorHistogramSnapshot
}

/** A started simulator. */
export interface RunningSimulator {
  /** Root URL, e.g. `http://127.0.0.1:41234` (append `/v1` for OpenAI SDKs). */
  url: string
  port: number
  /** Per-request log; filled only with `recordSchedule: true`, in arrival order. */
  schedule: SimulatorScheduleEntry[]
  stats(): SimulatorStats
  /** The counters, gauges and histograms `GET /metrics` serves, right now. */
  metrics(): SimulatorMetricsSnapshot
  /** Changes the speed factor from the next step on (1 nominal, 2 twice as slow, 0 no delay). */
  setSpeedFactor(speedFactor: number): void
  /** Stops listening, ends open connections and the scheduler loop. */
  close(): Promise<void>
}
