import { bucketLabelTexts, familyHeader, histogramLines, labelText, sampleLine } from './prometheus-text.ts'
import type { PrometheusLabels } from './prometheus-text.ts'
import type { SimulatorHistogramSnapshot, SimulatorMetricsSnapshot } from './types.ts'

// Bucket bounds, seconds, as vLLM V1 defines them: DEFAULT_BUCKETS in vllm/v1/metrics/buckets.py
// (vllm-project/vllm@3168f587): PREFILL_LATENCY for TTFT, TOKEN_STEP_LATENCY for inter-token
// latency, ACCUMULATED_PHASE_LATENCY for e2e, queue, inference, prefill and decode time. Older
// releases (loggers.py in v0.10) start the request-level bounds at 0.3 instead of 0.1, 0.2, 0.3;
// scrapers should read `le` from the text rather than assume either.
const TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0,
  640.0, 2560.0,
]
const INTER_TOKEN_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
]
const REQUEST_LATENCY_BUCKETS = [
  0.1, 0.2, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0,
  960.0, 1920.0, 7680.0,
]

/** Observations counted per bucket, as prometheus_client's Histogram does (a value equal to a bound falls in that bucket). */
class Histogram {
  readonly #boundaries: readonly number[]
  readonly #counts: number[]
  #count = 0
  #sum = 0
  /** Rendered labels of the bucket lines, made once: a scrape then only formats numbers. */
  readonly bucketLabels: readonly string[]

  constructor(boundaries: readonly number[], labels: PrometheusLabels) {
    this.#boundaries = boundaries
    this.#counts = boundaries.map(() => 0)
    this.bucketLabels = bucketLabelTexts(labels, boundaries)
  }

  /** @param seconds the observed value. */
  observe(seconds: number): void {
    this.#count++
    this.#sum += seconds
    const i = this.#boundaries.findIndex((bound) => seconds <= bound)
    if (i >= 0) this.#counts[i] = (this.#counts[i] ?? 0) + 1
  }

  snapshot(): SimulatorHistogramSnapshot {
    let running = 0
    const cumulativeCounts = this.#counts.map((n) => (running += n))
    return { boundaries: this.#boundaries, cumulativeCounts, count: this.#count, sum: this.#sum }
  }
}

/** Load the scheduler reports at scrape time. */
export interface SchedulerGauges {
  running: number
  waiting: number
  /** 0..1. */
  kvCacheUsage: number
}

/** The lifecycle of one request, as the metrics see it. Times are milliseconds on the scheduler's clock. */
export interface RequestMetricsTracker {
  /** Left the queue; `cachedTokens` of its prompt were prefix-cache hits. */
  admitted(at: number, cachedTokens: number): void
  /** A chunk of `count` tokens was sent; `last` marks a completed request. */
  emitted(count: number, last: boolean, at: number): void
}

const ms = (milliseconds: number) => milliseconds / 1000

/**
 * Counters and histograms of vLLM V1's Prometheus logger, fed from the simulator's sequence
 * callbacks, and their text exposition. As in vLLM, prompt tokens are counted when a request's
 * first token is out (a request refused before, or dropped before its first token, counts
 * none); per-request histograms take completed requests only; TTFT and inter-token latency are
 * observed as the tokens go out.
 */
export class SimulatorServerMetrics {
  readonly #labels: PrometheusLabels
  /** {@link #labels} rendered. */
  readonly #labelText: string
  readonly #tokensPerChunk: number
  readonly #prefixCaching: boolean
  readonly #gauges: () => SchedulerGauges
  /** Unix seconds, the value of every `_created` series. */
  readonly #createdAt = Date.now() / 1000
  #promptTokens = 0
  #generationTokens = 0
  #prefixCacheQueries = 0
  #prefixCacheHits = 0
  readonly #success = { stop: 0, length: 0 }
  #drafts = 0
  #draftTokens = 0
  #acceptedTokens = 0
  readonly #acceptedPerPosition: number[]
  readonly #ttft: Histogram
  readonly #interToken: Histogram
  readonly #e2e: Histogram
  readonly #queue: Histogram
  readonly #inference: Histogram
  readonly #prefill: Histogram
  readonly #decode: Histogram

  /**
   * @param options.model served model name (the `model_name` label).
   * @param options.tokensPerChunk k: above 1 the spec-decode families are served.
   * @param options.prefixCaching whether prefix-cache queries count.
   * @param options.gauges the scheduler's load, read at every scrape.
   */
  constructor(options: {
    model: string
    tokensPerChunk: number
    prefixCaching: boolean
    gauges: () => SchedulerGauges
  }) {
    // vLLM labels every engine series with the served model and the engine index (one engine here).
    this.#labels = { model_name: options.model, engine: '0' }
    this.#labelText = labelText(this.#labels)
    this.#ttft = new Histogram(TTFT_BUCKETS, this.#labels)
    this.#interToken = new Histogram(INTER_TOKEN_BUCKETS, this.#labels)
    this.#e2e = new Histogram(REQUEST_LATENCY_BUCKETS, this.#labels)
    this.#queue = new Histogram(REQUEST_LATENCY_BUCKETS, this.#labels)
    this.#inference = new Histogram(REQUEST_LATENCY_BUCKETS, this.#labels)
    this.#prefill = new Histogram(REQUEST_LATENCY_BUCKETS, this.#labels)
    this.#decode = new Histogram(REQUEST_LATENCY_BUCKETS, this.#labels)
    this.#tokensPerChunk = options.tokensPerChunk
    this.#prefixCaching = options.prefixCaching
    this.#gauges = options.gauges
    this.#acceptedPerPosition = new Array<number>(Math.max(0, options.tokensPerChunk - 1)).fill(0)
  }

  /** Starts following one request that reached the scheduler. */
  track(arrivedAt: number, promptTokens: number, finishReason: 'stop' | 'length'): RequestMetricsTracker {
    let admittedAt: number | undefined
    let firstAt: number | undefined
    let previousAt = 0
    return {
      admitted: (at, cachedTokens) => {
        admittedAt = at
        if (this.#prefixCaching) {
          this.#prefixCacheQueries += promptTokens
          this.#prefixCacheHits += cachedTokens
        }
      },
      emitted: (count, last, at) => {
        this.#generationTokens += count
        if (firstAt === undefined) {
          firstAt = at
          this.#promptTokens += promptTokens
          this.#ttft.observe(ms(at - arrivedAt))
        } else {
          this.#interToken.observe(ms(at - previousAt))
          if (this.#tokensPerChunk > 1) this.#draft(count)
        }
        previousAt = at
        if (!last) return
        this.#success[finishReason]++
        const started = admittedAt ?? firstAt
        this.#e2e.observe(ms(at - arrivedAt))
        this.#queue.observe(ms(started - arrivedAt))
        this.#inference.observe(ms(at - started))
        this.#prefill.observe(ms(firstAt - started))
        this.#decode.observe(ms(at - firstAt))
      },
    }
  }

  /** A decode step after the first token, read as one speculative draft of k − 1 tokens with a bonus token. */
  #draft(count: number): void {
    const accepted = Math.max(0, count - 1)
    this.#drafts++
    this.#draftTokens += this.#tokensPerChunk - 1
    this.#acceptedTokens += accepted
    for (let i = 0; i < accepted; i++) this.#acceptedPerPosition[i] = (this.#acceptedPerPosition[i] ?? 0) + 1
  }

  snapshot(): SimulatorMetricsSnapshot {
    const gauges = this.#gauges()
    return {
      running: gauges.running,
      waiting: gauges.waiting,
      kvCacheUsage: gauges.kvCacheUsage,
      promptTokens: this.#promptTokens,
      generationTokens: this.#generationTokens,
      requestSuccess: { ...this.#success },
      preemptions: 0,
      prefixCacheQueries: this.#prefixCacheQueries,
      prefixCacheHits: this.#prefixCacheHits,
      specDecode:
        this.#tokensPerChunk > 1
          ? {
              drafts: this.#drafts,
              draftTokens: this.#draftTokens,
              acceptedTokens: this.#acceptedTokens,
              acceptedTokensPerPosition: [...this.#acceptedPerPosition],
            }
          : undefined,
      timeToFirstToken: this.#ttft.snapshot(),
      interTokenLatency: this.#interToken.snapshot(),
      e2eRequestLatency: this.#e2e.snapshot(),
      requestQueueTime: this.#queue.snapshot(),
      requestInferenceTime: this.#inference.snapshot(),
      requestPrefillTime: this.#prefill.snapshot(),
      requestDecodeTime: this.#decode.snapshot(),
    }
  }

  /**
   * The text `GET /metrics` answers with: names, help texts, types and labels as vLLM V1 serves
   * them from one API server, `_created` families included (prometheus_client writes one gauge
   * family of series creation times after every counter and histogram).
   */
  render(): string {
    const m = this.snapshot()
    const l = this.#labels
    const lt = this.#labelText
    const created = this.#createdAt
    let text = ''
    const gauge = (name: string, help: string, value: number) => {
      text += familyHeader(name, 'gauge', help) + sampleLine(name, lt, value)
    }
    const counter = (base: string, help: string, series: ReadonlyArray<readonly [PrometheusLabels, number]>) => {
      const labels = series.map(([set]) => (set === l ? lt : labelText(set)))
      text += familyHeader(`${base}_total`, 'counter', help)
      series.forEach(([, value], i) => (text += sampleLine(`${base}_total`, labels[i] ?? '', value)))
      text += familyHeader(`${base}_created`, 'gauge', help)
      for (const set of labels) text += sampleLine(`${base}_created`, set, created)
    }
    const histogram = (name: string, help: string, h: Histogram) => {
      text += familyHeader(name, 'histogram', help) + histogramLines(name, h.bucketLabels, lt, h.snapshot())
      text += familyHeader(`${name}_created`, 'gauge', help) + sampleLine(`${name}_created`, lt, created)
    }
    if (m.specDecode) {
      const s = m.specDecode
      counter('vllm:spec_decode_num_drafts', 'Number of spec decoding drafts.', [[l, s.drafts]])
      counter('vllm:spec_decode_num_draft_tokens', 'Number of draft tokens.', [[l, s.draftTokens]])
      counter('vllm:spec_decode_num_accepted_tokens', 'Number of accepted tokens.', [[l, s.acceptedTokens]])
      counter(
        'vllm:spec_decode_num_accepted_tokens_per_pos',
        'Accepted tokens per draft position.',
        s.acceptedTokensPerPosition.map((n, position) => [{ ...l, position: String(position) }, n] as const),
      )
    }
    gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', m.running)
    gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', m.waiting)
    gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', m.kvCacheUsage)
    counter('vllm:prefix_cache_queries', 'Prefix cache queries, in terms of number of queried tokens.', [
      [l, m.prefixCacheQueries],
    ])
    counter('vllm:prefix_cache_hits', 'Prefix cache hits, in terms of number of cached tokens.', [
      [l, m.prefixCacheHits],
    ])
    counter('vllm:num_preemptions', 'Cumulative number of preemption from the engine.', [[l, m.preemptions]])
    counter('vllm:prompt_tokens', 'Number of prefill tokens processed.', [[l, m.promptTokens]])
    counter('vllm:generation_tokens', 'Number of generation tokens processed.', [[l, m.generationTokens]])
    // vLLM creates a series per finish reason up front; `abort` stays 0 here, as only completed requests count.
    counter('vllm:request_success', 'Count of successfully processed requests.', [
      [{ ...l, finished_reason: 'stop' }, m.requestSuccess.stop],
      [{ ...l, finished_reason: 'length' }, m.requestSuccess.length],
      [{ ...l, finished_reason: 'abort' }, 0],
    ])
    histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', this.#ttft)
    histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', this.#interToken)
    histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', this.#e2e)
    histogram('vllm:request_queue_time_seconds', 'Histogram of time spent in WAITING phase for request.', this.#queue)
    histogram(
      'vllm:request_inference_time_seconds',
      'Histogram of time spent in RUNNING phase for request.',
      this.#inference,
    )
    histogram(
      'vllm:request_prefill_time_seconds',
      'Histogram of time spent in PREFILL phase for request.',
      this.#prefill,
    )
    histogram('vllm:request_decode_time_seconds', 'Histogram of time spent in DECODE phase for request.', this.#decode)
    return text
  }
}
