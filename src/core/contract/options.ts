/**
 * What a benchmark is asked to do (see DESIGN.md's contract): the target, the load, the warm-up, goodput,
 * cost, server metrics, a segment, the safety stop and a soak, in {@link BenchmarkOptions}; and the
 * forms the plan resolves them to (`ResolvedLoad`, `ResolvedWarmup`, `ResolvedStopWhen`), which the
 * stages read. Other tools read these shapes: change a name only together with a `schemaVersion` bump.
 * Units: times in milliseconds, lengths in tokens, rates per second.
 */
import type { ApiKind } from './api-kinds.ts'
import type { WorkloadOptions } from './workload-options.ts'

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
  /**
   * Requests in flight at most, in each loop (a thread's or host's share runs its own): `concurrency` when
   * given; else 1 for a closed loop (one request at a time, in each loop) and `Infinity` for an open loop or a
   * trace replay (no cap). Not part of the baseline identity: it follows from `concurrency` and the schedule.
   */
  maxInFlight: number
}

/** Requests sent and discarded before measurement. */
export interface WarmupOptions {
  /** Number of warm-up requests. */
  requests?: number
  /** Or warm up for this many milliseconds. */
  durationMs?: number
}

/** A warm-up with its defaults applied, once, by the plan (`resolveWarmup`): what the warm-up stage reads. */
export interface ResolvedWarmup {
  /** Warm-up requests; 0: none (the duration alone bounds the warm-up). */
  requests: number
  /** Warm-up duration, ms; 0: none (the request count alone bounds it). */
  durationMs: number
  /**
   * Warm-up requests in flight: `load.concurrency` when given (the batch sizes the measurement will see); else
   * every warm-up request at once (as vLLM `bench serve --num-warmups`); else, for a duration alone, 1.
   */
  concurrency: number
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
