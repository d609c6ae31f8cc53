/**
 * The server's own figures in a result (`BenchmarkResult.server`): what its Prometheus metrics said
 * over the measured window, by dialect (vLLM, SGLang, llama.cpp, TensorRT-LLM), beside the client's.
 * Other tools read these shapes: change a name only together with a `schemaVersion` bump. Units: ms, tokens.
 */
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
