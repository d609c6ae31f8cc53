import { MetricsDataError } from '../contract/errors.ts'
import type {
  BenchmarkMetrics,
  BenchmarkResult,
  ClientLateness,
  ErrorCount,
  StreamingInfo,
  Throughput,
} from '../contract/result.ts'
import type { CostOptions, GoodputLimits } from '../contract/options.ts'
import type { RequestRecord } from '../contract/request-record.ts'
import { costPerMillionOutputTokens } from './cost.ts'
import { Distribution } from './distribution.ts'
import type { DistributionSnapshot } from './distribution.ts'
import { ErrorTable, OTHER_MESSAGES } from './error-table.ts'
import { meetsGoodputLimits, sameGoodputLimits } from './goodput.ts'
import { LATENCY_HIGHEST_TRACKABLE_US, LATENCY_UNITS_PER_MS, TOKENS_HIGHEST_TRACKABLE } from './histogram.ts'
import {
  LATENCIES,
  METRIC_CATALOG,
  TOKEN_COUNTS,
  type DistributionName as CatalogDistribution,
} from '../contract/metric-catalog.ts'
import { emptySummary } from './summarize-histogram.ts'
import {
  endToEndMs,
  forEachInterTokenLatencyMs,
  forEachPerTokenInterTokenLatencyMs,
  timePerOutputTokenMs,
  timeToFirstOutputMs,
  timeToFirstTokenMs,
} from './request-latency.ts'

/** Options of {@link MetricsAccumulator}. */
export interface MetricsAccumulatorOptions {
  /** Keep every record and return them from `finish()` (memory grows with the run). Default false: only histograms and running sums are kept. */
  recordRequests?: boolean
  /** Goodput limits in milliseconds, checked when the options were planned (`resolveGoodputLimits`); goodput is reported only when given. */
  goodput?: GoodputLimits
}

/** Requests whose {@link RequestRecord.clientLateMs} exceeds this many milliseconds count as read late. */
export const CLIENT_LATE_THRESHOLD_MS = 5

/** The metric parts of a {@link BenchmarkResult}, as {@link MetricsAccumulator.finish} returns them. */
export interface MetricsOutcome extends Pick<
  BenchmarkResult,
  'counts' | 'metrics' | 'throughput' | 'errors' | 'streaming' | 'goodput' | 'cost' | 'histograms' | 'warnings'
> {
  /** How late the client read, over the completed requests the lateness monitor watched. */
  lateness: ClientLateness | undefined
  /** Output tokens of the completed requests, summed (usage, or the estimate), tokens. */
  outputTokensTotal: number
  /** Every record added, sorted by `index`; only with `recordRequests`. */
  requests?: RequestRecord[]
}

/** The catalog's per-request distributions, and how late the client read each request (ms). */
type DistributionName = CatalogDistribution | 'clientLateMs'

/** Version of {@link MetricsSnapshot}; bumped when its shape changes. */
export const METRICS_SNAPSHOT_VERSION = 5

/** A {@link MetricsAccumulator} as plain JSON, to move between worker threads (structured clone or JSON). */
export interface MetricsSnapshot {
  version: typeof METRICS_SNAPSHOT_VERSION
  options: { recordRequests: boolean; goodput?: GoodputLimits }
  completed: number
  failed: number
  /** Input tokens of completed requests, summed. */
  inputTokensTotal: number
  /** Output tokens of completed requests, summed. */
  outputTokensTotal: number
  nonSseRequests: number
  burstRequests: number
  /** Completed requests without usage (estimated token counts). */
  usageMissingRequests: number
  /** Content-bearing chunks of streamed requests with usage (the base of tokens per chunk). */
  chunksWithUsage: number
  /** Output tokens of those same requests. */
  outputTokensWithUsage: number
  multiTokenChunks: number
  /** Completed streamed requests with reasoning events (`reasoningChunks`): TTFO is reported when there are any. */
  reasoningRequests: number
  /** Completed streamed requests that had output but no answer output (all reasoning): no TTFO. */
  noAnswerRequests: number
  /** Completed requests whose usage reported reasoning tokens. */
  reasoningReportedRequests: number
  /** Completed requests whose reply carried a tool call. */
  toolCallRequests: number
  /** Completed requests whose reply was checked against a reply format, and how it met it. */
  structuredChecked: number
  structuredValid: number
  structuredNotJson: number
  /** Completed streamed requests with exact tokens per chunk (continuous usage). */
  chunkTokenRequests: number
  /** Completed requests of the `embeddings` and `rerank` APIs (those with `inputs`). */
  inputRequests: number
  /** Texts those requests carried and got answered, summed. */
  inputsTotal: number
  goodRequests: number
  /** Completed requests whose client lateness exceeded {@link CLIENT_LATE_THRESHOLD_MS}. */
  lateRequests: number
  /** Values clamped to 0 because they were negative. */
  negativeValues: number
  /** Values left out because they were not finite. */
  nonFiniteValues: number
  distributions: Record<DistributionName, DistributionSnapshot>
  errors: ErrorCount[]
  requests?: RequestRecord[]
}

/** The running counts of a {@link MetricsAccumulator} (its fields of the same names): added on merge, copied to and from its snapshot. */
const COUNTER_NAMES = [
  'completed',
  'failed',
  'inputTokensTotal',
  'outputTokensTotal',
  'nonSseRequests',
  'burstRequests',
  'usageMissingRequests',
  'chunksWithUsage',
  'outputTokensWithUsage',
  'multiTokenChunks',
  'reasoningRequests',
  'noAnswerRequests',
  'reasoningReportedRequests',
  'toolCallRequests',
  'structuredChecked',
  'structuredValid',
  'structuredNotJson',
  'chunkTokenRequests',
  'inputRequests',
  'inputsTotal',
  'goodRequests',
  'lateRequests',
  'negativeValues',
  'nonFiniteValues',
] as const satisfies ReadonlyArray<keyof MetricsSnapshot>

type CounterName = (typeof COUNTER_NAMES)[number]

const DISTRIBUTION_SCALES: Record<DistributionName, { unitsPerValue: number; highestTrackable: number }> = {
  ...(Object.fromEntries(
    [...LATENCIES, ...TOKEN_COUNTS].map((name) => {
      const { kind, unitsPerValue } = METRIC_CATALOG[name]
      const highestTrackable = kind === 'latency' ? LATENCY_HIGHEST_TRACKABLE_US : TOKENS_HIGHEST_TRACKABLE
      return [name, { unitsPerValue, highestTrackable }]
    }),
  ) as Record<CatalogDistribution, { unitsPerValue: number; highestTrackable: number }>),
  clientLateMs: { unitsPerValue: LATENCY_UNITS_PER_MS, highestTrackable: LATENCY_HIGHEST_TRACKABLE_US },
}

const DISTRIBUTION_NAMES = Object.keys(DISTRIBUTION_SCALES) as DistributionName[]

function newDistributions(): Record<DistributionName, Distribution> {
  const entries = DISTRIBUTION_NAMES.map((name) => {
    const { unitsPerValue, highestTrackable } = DISTRIBUTION_SCALES[name]
    return [name, new Distribution(unitsPerValue, highestTrackable)] as const
  })
  return Object.fromEntries(entries) as Record<DistributionName, Distribution>
}

/**
 * Turns the measured phase's {@link RequestRecord}s into the metric parts of a
 * {@link BenchmarkResult}, in memory that does not grow with the number of requests (unless
 * `recordRequests`): one HDR histogram (3 significant digits, latencies in integer microseconds,
 * reported in milliseconds) plus exact running count, min, max, mean and variance per metric.
 *
 * Definitions (DESIGN.md), all per completed request; failed requests count in `counts.failed`
 * and `errors` and in no distribution, token sum or throughput:
 * - TTFT, TTFO, E2E, TPOT, ITL and per-token ITL as request-latency.ts defines them, the one place
 *   they are written (a role-only chunk never counts; TPOT only with outputTokens >= 2; ITL one gap
 *   per chunk; per-token ITL only from requests with exact tokens per chunk). `ttfoMs` is reported
 *   when some stream carried reasoning (else it equals TTFT and is left out); `itlPerTokenMs`
 *   when some request had tokens per chunk; `reasoningTokens` when some usage reported them.
 * - inputTokens / outputTokens: per-request counts (usage, or estimates when `usageReported` is false).
 * - Throughputs: completed requests, their output tokens, their input plus output tokens, each
 *   divided by the caller's `durationMs` (first measured dispatch to last completion).
 * - Requests with `streamed: false` (not an event stream) are left out of TTFT, TPOT and ITL
 *   (their timings say nothing about token pacing) but count in E2E, tokens and throughput. A
 *   streamed request whose output reached the client in one read (`readInOneBurst`) counts in
 *   every metric: the client's lateness is measured (`clientLateMs`), never a reason to drop it.
 *   When more than half of completed requests were not event streams, or the idle streaming probe
 *   saw the server buffer (`serverBuffers`), `streaming.streamed` is false and TTFT, TPOT and ITL
 *   are empty.
 * - stddev is the population standard deviation (divides by n, as numpy's `np.std` in vLLM and as
 *   hdr reports); min, max, mean and stddev are exact; percentiles come from the histogram
 *   (hdr `getValueAtPercentile`, highest equivalent value, clamped to [min, max]: within 0.1 % of
 *   numpy's linearly interpolated percentiles).
 */
export class MetricsAccumulator {
  private readonly recordRequests: boolean
  private readonly goodputLimits: GoodputLimits | undefined
  private readonly distributions: Record<DistributionName, Distribution>
  private errorTable = new ErrorTable()
  private readonly requests: RequestRecord[] | undefined
  private completed = 0
  private failed = 0
  private inputTokensTotal = 0
  private outputTokensTotal = 0
  private nonSseRequests = 0
  private burstRequests = 0
  private usageMissingRequests = 0
  private chunksWithUsage = 0
  private outputTokensWithUsage = 0
  private multiTokenChunks = 0
  private reasoningRequests = 0
  private noAnswerRequests = 0
  private reasoningReportedRequests = 0
  private toolCallRequests = 0
  private structuredChecked = 0
  private structuredValid = 0
  private structuredNotJson = 0
  private chunkTokenRequests = 0
  private inputRequests = 0
  private inputsTotal = 0
  private goodRequests = 0
  private lateRequests = 0
  private negativeValues = 0
  private nonFiniteValues = 0
  // Bound once, so that visiting ITL gaps allocates nothing per request.
  private readonly recordInterTokenLatency = (gapMs: number): void => this.recordValue(this.distributions.itlMs, gapMs)
  private readonly recordPerTokenLatency = (perTokenMs: number, tokens: number): void => {
    for (let i = 0; i < tokens; i++) this.recordValue(this.distributions.itlPerTokenMs, perTokenMs)
  }

  constructor(options: MetricsAccumulatorOptions = {}) {
    this.recordRequests = options.recordRequests ?? false
    this.goodputLimits = options.goodput
    this.distributions = newDistributions()
    this.requests = this.recordRequests ? [] : undefined
  }

  /** Adds one measured request (ok or failed). O(chunks) time; the record is kept only with `recordRequests`. */
  add(record: RequestRecord): void {
    this.requests?.push(record)
    if (!record.ok) {
      this.failed += 1
      const error = record.error ?? {
        kind: 'incomplete' as const,
        message: 'request failed without an error description',
      }
      this.errorTable.add(error.kind, error.message)
      return
    }
    this.completed += 1
    const d = this.distributions
    const inputTokens = this.tokenCount(record.inputTokens)
    const outputTokens = this.tokenCount(record.outputTokens)
    this.inputTokensTotal += inputTokens
    this.outputTokensTotal += outputTokens
    d.inputTokens.record(inputTokens)
    d.outputTokens.record(outputTokens)
    if (!record.usageReported) this.usageMissingRequests += 1
    if (record.reasoningTokens !== undefined) {
      this.reasoningReportedRequests += 1
      d.reasoningTokens.record(this.tokenCount(record.reasoningTokens))
    }
    this.recordValue(d.e2eMs, endToEndMs(record))
    if (record.toolCall === true) this.toolCallRequests += 1
    if (record.structuredOutput !== undefined) {
      this.structuredChecked += 1
      if (record.structuredOutput === 'valid') this.structuredValid += 1
      else if (record.structuredOutput === 'not-json') this.structuredNotJson += 1
    }
    if (this.goodputLimits !== undefined && meetsGoodputLimits(record, this.goodputLimits)) this.goodRequests += 1

    if (record.clientLateMs !== undefined) {
      this.recordValue(d.clientLateMs, record.clientLateMs)
      if (record.clientLateMs > CLIENT_LATE_THRESHOLD_MS) this.lateRequests += 1
    }
    if (record.inputs !== undefined) {
      // Embeddings and rerank: one JSON body by definition, latency end to end.
      this.inputRequests += 1
      this.inputsTotal += this.tokenCount(record.inputs)
      return
    }
    if (!record.streamed) {
      this.nonSseRequests += 1
      return
    }
    if (record.readInOneBurst) this.burstRequests += 1
    const ttft = timeToFirstTokenMs(record)
    if (ttft !== undefined) this.recordValue(d.ttftMs, ttft)
    const ttfo = timeToFirstOutputMs(record)
    if (ttfo !== undefined) this.recordValue(d.ttfoMs, ttfo)
    if (record.reasoningChunks !== undefined && record.reasoningChunks > 0) {
      this.reasoningRequests += 1
      if (record.firstOutputAt === undefined) this.noAnswerRequests += 1
    }
    const tpot = timePerOutputTokenMs(record)
    if (tpot !== undefined) this.recordValue(d.tpotMs, tpot)
    forEachInterTokenLatencyMs(record, this.recordInterTokenLatency)
    const chunks = record.chunkTimes.length
    // Exact tokens per chunk (continuous usage), aligned with the chunks: per-token ITL and an exact multi-token count.
    const chunkTokens =
      record.chunkTokens !== undefined && record.chunkTokens.length === chunks ? record.chunkTokens : undefined
    if (chunkTokens !== undefined) {
      this.chunkTokenRequests += 1
      forEachPerTokenInterTokenLatencyMs(record, this.recordPerTokenLatency)
    }
    if (record.usageReported && chunks > 0) {
      this.chunksWithUsage += chunks
      this.outputTokensWithUsage += outputTokens
      if (chunkTokens !== undefined) {
        for (let i = 0; i < chunks; i++) if ((chunkTokens[i] as number) > 1) this.multiTokenChunks += 1
      } else {
        // Only the surplus is known, not how it is spread: count as if each multi-token chunk carried
        // one extra token (exact when no chunk carries more than two).
        this.multiTokenChunks += Math.min(chunks, Math.max(0, outputTokens - chunks))
      }
    }
  }

  /**
   * Adds everything `other` holds. Histograms add bucket by bucket, so percentiles equal those of
   * one accumulator fed every record; means and variances combine exactly (up to float rounding).
   *
   * @throws {MetricsDataError} when the two were created with different options.
   */
  merge(other: MetricsAccumulator): void {
    if (other.recordRequests !== this.recordRequests || !sameGoodputLimits(other.goodputLimits, this.goodputLimits)) {
      throw new MetricsDataError(
        'Cannot merge metric accumulators created with different options (recordRequests or goodput limits). Create every accumulator of one run with the same options.',
      )
    }
    for (const name of DISTRIBUTION_NAMES) this.distributions[name].merge(other.distributions[name])
    this.errorTable.merge(other.errorTable)
    if (this.requests && other.requests) this.requests.push(...other.requests)
    for (const name of COUNTER_NAMES) this[name] += other[name]
  }

  /** The whole state as plain JSON (histograms as compressed base64). */
  toJSON(): MetricsSnapshot {
    const distributions = Object.fromEntries(
      DISTRIBUTION_NAMES.map((name) => [name, this.distributions[name].toJSON()]),
    )
    const counters = Object.fromEntries(COUNTER_NAMES.map((name) => [name, this[name]])) as Record<CounterName, number>
    return {
      version: METRICS_SNAPSHOT_VERSION,
      options: {
        recordRequests: this.recordRequests,
        ...(this.goodputLimits ? { goodput: { ...this.goodputLimits } } : {}),
      },
      ...counters,
      distributions: distributions as Record<DistributionName, DistributionSnapshot>,
      errors: this.errorTable.toArray(),
      ...(this.requests ? { requests: [...this.requests] } : {}),
    }
  }

  /** @throws {MetricsDataError} when the snapshot has another version or lacks a distribution. */
  static fromJSON(snapshot: MetricsSnapshot): MetricsAccumulator {
    if (snapshot?.version !== METRICS_SNAPSHOT_VERSION) {
      throw new MetricsDataError(
        `Metrics snapshot version ${String(snapshot?.version)} is not supported (expected ${METRICS_SNAPSHOT_VERSION}). Produce the snapshot with the same vitest-llm-bench version that reads it.`,
      )
    }
    const accumulator = new MetricsAccumulator(snapshot.options)
    for (const name of DISTRIBUTION_NAMES) {
      const part = snapshot.distributions[name]
      if (!part)
        throw new MetricsDataError(
          `Metrics snapshot lacks the "${name}" distribution. Produce it with MetricsAccumulator.toJSON().`,
        )
      const { unitsPerValue, highestTrackable } = DISTRIBUTION_SCALES[name]
      accumulator.distributions[name] = Distribution.fromJSON(part, unitsPerValue, highestTrackable)
    }
    accumulator.errorTable = ErrorTable.fromArray(snapshot.errors)
    if (accumulator.requests && snapshot.requests) accumulator.requests.push(...snapshot.requests)
    for (const name of COUNTER_NAMES) accumulator[name] = snapshot[name]
    return accumulator
  }

  /**
   * The metric parts of the result. Does not change the accumulator (it can be called again).
   *
   * @param args.durationMs First measured dispatch to last completion, ms. Throughputs and the
   *   goodput rate divide by it; when it is not a finite number > 0 they are 0 and a warning says why.
   * @param args.cost Price to turn output throughput into cost; left out (with a warning) when no
   *   output token was produced.
   * @param args.serverBuffers What the idle streaming probe found: true when the server buffered
   *   its output (then TTFT, TPOT and ITL are not reported), false when it streamed, undefined when
   *   no probe ran (the content type alone decides).
   */
  finish(args: { durationMs: number; cost?: CostOptions; serverBuffers?: boolean | undefined }): MetricsOutcome {
    const warnings: string[] = []
    const d = this.distributions
    const completed = this.completed
    const durationValid = Number.isFinite(args.durationMs) && args.durationMs > 0
    const perSecond = (amount: number): number => (durationValid ? amount / (args.durationMs / 1000) : 0)
    if (!durationValid && completed > 0) {
      warnings.push(`durationMs is ${args.durationMs}: throughputs and the goodput rate are reported as 0.`)
    }
    if (completed === 0 && this.failed > 0) {
      warnings.push(`All ${this.failed} measured requests failed; see errors.`)
    }

    const throughput: Throughput = {
      requestsPerSec: perSecond(completed),
      outputTokensPerSec: perSecond(this.outputTokensTotal),
      totalTokensPerSec: perSecond(this.inputTokensTotal + this.outputTokensTotal),
    }
    // The embeddings and rerank APIs: every completed request answered texts in one body.
    const inputsOnly = this.inputRequests > 0 && this.inputRequests === completed
    if (inputsOnly) {
      throughput.inputsPerSec = perSecond(this.inputsTotal)
      throughput.inputTokensPerSec = perSecond(this.inputTokensTotal)
    }

    const notSse = this.nonSseRequests
    const sseMostly = !inputsOnly && notSse * 2 <= completed
    const streamed = sseMostly && args.serverBuffers !== true
    const evidence = inputsOnly
      ? 'api'
      : !sseMostly
        ? 'content-type'
        : args.serverBuffers === undefined
          ? 'none'
          : 'probe'
    const notes: string[] = []
    if (inputsOnly) {
      notes.push(
        `${this.inputsTotal} texts in ${completed} requests (${(this.inputsTotal / completed).toFixed(1)} per request), each answered in one JSON body: latency is end to end; there is no TTFT, TPOT or ITL`,
      )
    } else if (!sseMostly) {
      const line = `server did not stream (${notSse} of ${completed} responses were not text/event-stream): TTFT, TPOT and ITL are not reported`
      notes.push(line)
      warnings.push(`${line}.`)
    } else if (!streamed) {
      const line =
        'server did not stream (the idle streaming probe before warm-up received its whole output in one read): TTFT, TPOT and ITL are not reported'
      notes.push(line)
      warnings.push(`${line}.`)
    } else if (notSse > 0) {
      const line = `${notSse} of ${completed} responses were not text/event-stream and are left out of TTFT, TPOT and ITL`
      notes.push(line)
      warnings.push(`${line}.`)
    }
    if (streamed && this.burstRequests > 0) {
      notes.push(
        `${this.burstRequests} of ${completed} streamed responses reached the client in one read (the client read late; they are measured, see client.lateness)`,
      )
    }
    const meanTokensPerChunk = this.chunksWithUsage > 0 ? this.outputTokensWithUsage / this.chunksWithUsage : 0
    const streamedCompleted = completed - notSse
    const perToken = streamed && this.chunkTokenRequests > 0
    if (this.multiTokenChunks > 0) {
      const chunksLine = `content-bearing chunks carried more than one token (mean ${meanTokensPerChunk.toFixed(2)} tokens per chunk, e.g. speculative decoding)`
      if (this.chunkTokenRequests >= streamedCompleted) {
        notes.push(
          `${this.multiTokenChunks} ${chunksLine}, counted from per-chunk usage: ITL is per chunk, itlPerTokenMs and TPOT per token`,
        )
      } else if (perToken) {
        notes.push(
          `about ${this.multiTokenChunks} ${chunksLine}: ITL is per chunk, TPOT per token; itlPerTokenMs comes from the ${this.chunkTokenRequests} of ${streamedCompleted} streamed requests whose chunks carried usage`,
        )
      } else {
        notes.push(
          `about ${this.multiTokenChunks} ${chunksLine}: ITL is per chunk, TPOT per token; per-token ITL is not measured (no usage in each chunk: stream_options.continuous_usage_stats, target.continuousUsageStats), ITL / ${meanTokensPerChunk.toFixed(2)} estimates it`,
        )
      }
    }
    if (streamed && this.noAnswerRequests > 0) {
      notes.push(
        `${this.noAnswerRequests} of ${streamedCompleted} streamed replies were reasoning only (no answer text, e.g. max_tokens reached while thinking): they have a TTFT but no TTFO`,
      )
    }
    const invalid = this.structuredChecked - this.structuredValid
    if (invalid > 0) {
      warnings.push(
        `${invalid} of ${this.structuredChecked} replies did not meet workload.responseFormat (${this.structuredNotJson} not JSON, ${invalid - this.structuredNotJson} breaking the schema).`,
      )
    }
    if (this.usageMissingRequests > 0) {
      warnings.push(
        inputsOnly
          ? `${this.usageMissingRequests} of ${completed} completed requests reported no usage: their input token counts are the workload's estimates.`
          : `${this.usageMissingRequests} of ${completed} completed requests reported no usage: their output token counts are estimated from content-bearing chunks.`,
      )
    }
    const streaming: StreamingInfo = {
      streamed,
      evidence,
      nonSseRequests: this.nonSseRequests,
      burstRequests: this.burstRequests,
      tokenCountEstimated: this.usageMissingRequests > 0,
      multiTokenChunks: this.multiTokenChunks,
      meanTokensPerChunk,
      ...(this.toolCallRequests > 0 ? { toolCallRequests: this.toolCallRequests } : {}),
      ...(this.structuredChecked > 0
        ? {
            structuredOutput: {
              checked: this.structuredChecked,
              valid: this.structuredValid,
              notJson: this.structuredNotJson,
              schemaMismatch: this.structuredChecked - this.structuredValid - this.structuredNotJson,
            },
          }
        : {}),
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    }

    if (this.negativeValues > 0) {
      warnings.push(
        `${this.negativeValues} latency or token values were negative (a clock or client bug) and were counted as 0.`,
      )
    }
    if (this.nonFiniteValues > 0) {
      warnings.push(
        `${this.nonFiniteValues} latency or token values were not finite (a clock or client bug) and were left out.`,
      )
    }
    if (this.errorTable.overflowed) {
      warnings.push(
        `More than ${this.errorTable.maxDistinctMessages} distinct error messages: the rest are counted per kind under "${OTHER_MESSAGES}".`,
      )
    }

    const streamedSummary = (distribution: Distribution) => (streamed ? distribution.summary() : emptySummary())
    const metrics: BenchmarkMetrics = {
      ttftMs: streamedSummary(d.ttftMs),
      tpotMs: streamedSummary(d.tpotMs),
      itlMs: streamedSummary(d.itlMs),
      e2eMs: d.e2eMs.summary(),
      outputTokens: d.outputTokens.summary(),
      inputTokens: d.inputTokens.summary(),
    }
    const ttfo = streamed && this.reasoningRequests > 0
    if (ttfo) metrics.ttfoMs = d.ttfoMs.summary()
    if (perToken) metrics.itlPerTokenMs = d.itlPerTokenMs.summary()
    if (this.reasoningReportedRequests > 0) metrics.reasoningTokens = d.reasoningTokens.summary()

    // Each latency reported with samples keeps its histogram (a verdict's and an SLO's intervals read it);
    // one left empty (TTFT of a run that did not stream) or not reported keeps none.
    const histograms: BenchmarkResult['histograms'] = {}
    for (const metric of LATENCIES) {
      if ((metrics[metric]?.count ?? 0) === 0) continue
      const encoded = d[metric].encodedHistogram()
      if (encoded !== undefined) histograms[METRIC_CATALOG[metric].histogram] = encoded
    }

    const late = d.clientLateMs.summary()
    const lateness: ClientLateness | undefined =
      late.count > 0
        ? {
            watchedRequests: late.count,
            lateRequests: this.lateRequests,
            share: this.lateRequests / late.count,
            thresholdMs: CLIENT_LATE_THRESHOLD_MS,
            p50Ms: late.p50,
            p99Ms: late.p99,
            maxMs: late.max,
          }
        : undefined
    const outcome: MetricsOutcome = {
      lateness,
      outputTokensTotal: this.outputTokensTotal,
      counts: { total: completed + this.failed, completed, failed: this.failed },
      metrics,
      throughput,
      errors: this.errorTable.toArray(),
      streaming,
      histograms,
      warnings,
    }
    if (this.goodputLimits !== undefined) {
      outcome.goodput = {
        limits: { ...this.goodputLimits },
        goodRequests: this.goodRequests,
        share: completed > 0 ? this.goodRequests / completed : 0,
        requestsPerSec: perSecond(this.goodRequests),
      }
    }
    if (args.cost !== undefined) {
      if (throughput.outputTokensPerSec > 0)
        outcome.cost = costPerMillionOutputTokens(throughput.outputTokensPerSec, args.cost)
      else warnings.push('Cost is not reported: no output tokens per second were measured.')
    }
    if (this.requests) outcome.requests = [...this.requests].sort((a, b) => a.index - b.index)
    return outcome
  }

  /** Records kept for `finish().requests`: 0 unless `recordRequests`. */
  get retainedRequests(): number {
    return this.requests?.length ?? 0
  }

  /**
   * A conservative estimate of the bytes this accumulator holds, records aside: histograms
   * (constant unless a value lands above a histogram's range) and the error table (bounded).
   * For tests and diagnostics; it does not grow with the number of requests added.
   */
  get estimatedFootprintInBytes(): number {
    let bytes = 0
    for (const name of DISTRIBUTION_NAMES) bytes += this.distributions[name].estimatedFootprintInBytes
    return bytes + this.errorTable.size * 512
  }

  private recordValue(distribution: Distribution, value: number): void {
    if (!Number.isFinite(value)) {
      this.nonFiniteValues += 1
      return
    }
    if (value < 0) {
      this.negativeValues += 1
      distribution.record(0)
      return
    }
    distribution.record(value)
  }

  private tokenCount(value: number): number {
    if (!Number.isFinite(value)) {
      this.nonFiniteValues += 1
      return 0
    }
    if (value < 0) {
      this.negativeValues += 1
      return 0
    }
    return value
  }
}
