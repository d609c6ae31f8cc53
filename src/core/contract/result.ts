/**
 * What a benchmark returns ({@link BenchmarkResult}, `schemaVersion`) and each of its parts: the metric
 * summaries, throughput, streaming, goodput and cost, the environment, soak, sessions, GPU telemetry
 * and the timeline. Other tools read these shapes: change a name only together with a `schemaVersion`
 * bump. Units: every time in milliseconds on one monotonic clock, every length in tokens, every rate per second.
 */
import type { GateableLatency, HistogramKey, PerMetric } from './metric-catalog.ts'
import type { GoodputLimits } from './options.ts'
import type { FailureKind, RequestRecord } from './request-record.ts'
import type { ServerSide } from './server-metrics.ts'
import type { WorkloadOptions } from './workload-options.ts'

/** The replies checked against the asked {@link ResponseFormat}, completed requests only. */
export interface StructuredOutputCounts {
  checked: number
  valid: number
  /** Replies that did not parse as JSON (or, for `json_object`, were not an object). */
  notJson: number
  /** Replies that parsed but broke the schema. */
  schemaMismatch: number
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
    /**
     * The built-in simulator's resolved options (its server spec), nested ones as `faults.stallRate`, the port
     * left out and a secret as `***`; absent for other servers. Compared like a launch's arguments.
     */
    simulator?: Record<string, string | number | boolean>
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
