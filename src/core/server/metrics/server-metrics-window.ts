import type {
  ServerGaugeSummary,
  ServerHistogramSummary,
  ServerMetrics,
  SpecDecodeSummary,
} from '../../contract/server-metrics.ts'
import type { MetricSummary } from '../../contract/result.ts'
import { overheadNote } from '../../contract/client-overhead-note.ts'
import type { PrometheusExposition } from './prometheus-text.ts'
import type { CounterRef, DialectNames } from './server-metric-names.ts'

/** How a server-metrics note begins when it is copied into `BenchmarkResult.warnings`. */
export const SERVER_NOTE_PREFIX = 'Server metrics: '

/** One scrape: when it was taken and what it returned. */
export interface ServerMetricsScrape {
  /** `performance.now()` when the response was complete, ms. */
  t: number
  /** How long the request and parse took, ms. */
  durationMs: number
  /** The parsed exposition; absent when the scrape failed. */
  exposition?: PrometheusExposition
  /** Why the scrape failed. */
  error?: string
}

/** A first request's cache lookup counts below this many tokens never call the cache warm (one vLLM block). */
const WARM_MIN_HIT_TOKENS = 16
/**
 * ... nor below this share of its prompt: a chat template's fixed opening is cached across runs
 * and harmless (on llama-server, 17 tokens of each request: 22 % of an 80-token prompt), while
 * prompts an earlier run sent are found whole but for their last block.
 */
const WARM_MIN_HIT_SHARE = 0.5
/** Client overhead above this share of TTFT p50 is named: a TTFT gate then measures the client as much as the server. */
export const OVERHEAD_NOTE_SHARE = 0.1
/** How the warm-cache note begins (the trial merge recognises it). */
export const WARM_NOTE_START = 'Prefix cache was warm before the run'

function counterValue(exposition: PrometheusExposition, ref: CounterRef | undefined): number | undefined {
  if (!ref) return undefined
  const total = (name: string) => {
    const samples = exposition.samples(name).filter((s) => Number.isFinite(s.value))
    return samples.length === 0 ? undefined : samples.reduce((sum, s) => sum + s.value, 0)
  }
  if ('first' in ref) {
    for (const name of ref.first) {
      const value = total(name)
      if (value !== undefined) return value
    }
    return undefined
  }
  let sum: number | undefined
  for (const name of ref.sum) {
    const value = total(name)
    if (value !== undefined) sum = (sum ?? 0) + value
  }
  return sum
}

/** A gauge's value in one scrape: series added (requests over engines) or averaged (a usage share). */
function gaugeValue(
  exposition: PrometheusExposition | undefined,
  names: string[] | undefined,
  combine: 'sum' | 'mean',
): number | null {
  if (!exposition || !names) return null
  for (const name of names) {
    const samples = exposition.samples(name).filter((s) => Number.isFinite(s.value))
    if (samples.length === 0) continue
    const sum = samples.reduce((total, s) => total + s.value, 0)
    return combine === 'sum' ? sum : sum / samples.length
  }
  return null
}

/** The gauges of one scrape: requests running and waiting (summed over engines), KV-cache usage (mean); absent where the server has none. */
export function scrapeGauges(
  scrape: ServerMetricsScrape,
  names: DialectNames,
): { requestsRunning?: number; requestsWaiting?: number; kvCacheUsage?: number } | undefined {
  if (!scrape.exposition) return undefined
  const running = gaugeValue(scrape.exposition, names.requestsRunning, 'sum')
  const waiting = gaugeValue(scrape.exposition, names.requestsWaiting, 'sum')
  const kv = gaugeValue(scrape.exposition, names.kvCacheUsage, 'mean')
  return {
    ...(running !== null ? { requestsRunning: running } : {}),
    ...(waiting !== null ? { requestsWaiting: waiting } : {}),
    ...(kv !== null ? { kvCacheUsage: kv } : {}),
  }
}

interface HistogramState {
  /** Cumulative count per upper bound (seconds), summed over series. */
  buckets: Map<number, number>
  count: number
  sum: number
}

function histogramState(exposition: PrometheusExposition, names: string[] | undefined): HistogramState | undefined {
  if (!names) return undefined
  for (const base of names) {
    const bucketSamples = exposition.samples(`${base}_bucket`)
    if (bucketSamples.length === 0) continue
    const buckets = new Map<number, number>()
    for (const sample of bucketSamples) {
      const le = sample.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample.labels.le)
      if (Number.isNaN(le) || !Number.isFinite(sample.value)) continue
      buckets.set(le, (buckets.get(le) ?? 0) + sample.value)
    }
    const add = (name: string) =>
      exposition.samples(name).reduce((total, s) => total + (Number.isFinite(s.value) ? s.value : 0), 0)
    return { buckets, count: add(`${base}_count`), sum: add(`${base}_sum`) }
  }
  return undefined
}

/** The value at quantile `q` (0..1) of cumulative buckets, as Prometheus' `histogram_quantile`: linear within the bucket. */
export function bucketQuantile(
  buckets: ReadonlyArray<{ le: number; count: number }>,
  q: number,
): { value: number; lower: number; upper: number } {
  const total = buckets[buckets.length - 1]?.count ?? 0
  if (total <= 0) return { value: Number.NaN, lower: Number.NaN, upper: Number.NaN }
  const rank = q * total
  let previousLe = 0
  let previousCount = 0
  for (const bucket of buckets) {
    if (bucket.count >= rank && bucket.count > previousCount) {
      // Prometheus answers the highest finite bound when the rank falls in the +Inf bucket.
      if (!Number.isFinite(bucket.le)) return { value: previousLe, lower: previousLe, upper: Number.POSITIVE_INFINITY }
      const within = (rank - previousCount) / (bucket.count - previousCount)
      return { value: previousLe + (bucket.le - previousLe) * within, lower: previousLe, upper: bucket.le }
    }
    previousLe = bucket.le
    previousCount = bucket.count
  }
  return { value: previousLe, lower: previousLe, upper: previousLe }
}

/** The observations between two scrapes, converted from seconds to milliseconds; undefined when absent or empty, `reset` when a count went down. */
function histogramDelta(
  start: HistogramState | undefined,
  end: HistogramState | undefined,
): ServerHistogramSummary | 'reset' | undefined {
  if (!start || !end) return undefined
  const count = end.count - start.count
  if (count < 0) return 'reset'
  if (count === 0 || !end.buckets.has(Number.POSITIVE_INFINITY)) return undefined
  const cumulative = [...end.buckets.entries()]
    .map(([le, value]) => ({ le, count: value - (start.buckets.get(le) ?? 0) }))
    .sort((a, b) => a.le - b.le)
  if (cumulative.some((bucket) => bucket.count < 0)) return 'reset'
  const inMs = (seconds: number) => seconds * 1000
  const at = (q: number) => inMs(bucketQuantile(cumulative, q).value)
  return {
    count,
    mean: inMs((end.sum - start.sum) / count),
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    buckets: cumulative.filter((b) => Number.isFinite(b.le)).map((b) => ({ leMs: inMs(b.le), count: b.count })),
  }
}

/**
 * Mean over the scrapes inside the window (the two at its ends are taken while nothing is in
 * flight, and would pull a short run's mean towards 0), peak over all of them.
 */
function gaugeSummary(values: Array<number | null>): ServerGaugeSummary | undefined {
  const present = values.filter((v): v is number => v !== null)
  if (present.length === 0) return undefined
  const interior = values.slice(1, -1).filter((v): v is number => v !== null)
  const averaged = interior.length > 0 ? interior : present
  const mean = averaged.reduce((a, b) => a + b, 0) / averaged.length
  const variance =
    averaged.length > 1 ? averaged.reduce((total, v) => total + (v - mean) ** 2, 0) / (averaged.length - 1) : 0
  return { mean, peak: Math.max(...present), stddev: Math.sqrt(variance), samples: averaged.length }
}

/** What the run's first request (the probe, scraped before and after) found in the prefix cache. */
export interface FirstRequestScrapes {
  before: ServerMetricsScrape
  after: ServerMetricsScrape
}

/** Inputs of {@link summarizeServerMetrics}. */
export interface ServerMetricsWindow {
  names: DialectNames
  url: string
  intervalMs: number
  /** Scrapes from the one right before the first measured dispatch to the one after the last completion, in order. */
  scrapes: ServerMetricsScrape[]
  /** The client's TTFT over the same window (for the overhead), when it has samples. */
  clientTtftMs?: MetricSummary
  firstRequest?: FirstRequestScrapes
}

/**
 * The documented set over the measured window: counter deltas between the first and last good
 * scrape, gauges over every scrape, histogram deltas. A counter that went down (the server
 * restarted) is left out with a note.
 */
export function summarizeServerMetrics(window: ServerMetricsWindow): ServerMetrics {
  const { names, scrapes } = window
  const notes: string[] = []
  const good = scrapes.filter((s) => s.exposition !== undefined)
  // Counters and histograms need the window's own ends: between inner scrapes they would cover part of the run.
  const ends =
    scrapes.length >= 2 && scrapes[0]?.exposition !== undefined && scrapes[scrapes.length - 1]?.exposition !== undefined
  const start = ends ? scrapes[0] : undefined
  const end = ends ? scrapes[scrapes.length - 1] : undefined
  const startExposition = start?.exposition
  const endExposition = end?.exposition
  const origin = scrapes[0]?.t ?? 0

  const delta = (ref: CounterRef | undefined, label: string): number | undefined => {
    if (!startExposition || !endExposition || start === end) return undefined
    const a = counterValue(startExposition, ref)
    const b = counterValue(endExposition, ref)
    if (a === undefined || b === undefined) return undefined
    if (b < a) {
      notes.push(
        `${label} went down during the run (${a} -> ${b}): the server restarted or reset its counters; left out.`,
      )
      return undefined
    }
    return b - a
  }

  const series = {
    t: scrapes.map((s) => s.t - origin),
    requestsRunning: scrapes.map((s) => gaugeValue(s.exposition, names.requestsRunning, 'sum')),
    requestsWaiting: scrapes.map((s) => gaugeValue(s.exposition, names.requestsWaiting, 'sum')),
    kvCacheUsage: scrapes.map((s) => gaugeValue(s.exposition, names.kvCacheUsage, 'mean')),
  }

  const histogram = (
    key: 'ttft' | 'queueTime' | 'prefillTime' | 'decodeTime' | 'e2e' | 'itl',
  ): ServerHistogramSummary | undefined => {
    if (!startExposition || !endExposition || start === end) return undefined
    const delta = histogramDelta(histogramState(startExposition, names[key]), histogramState(endExposition, names[key]))
    if (delta !== 'reset') return delta
    notes.push(`The server's ${key} histogram went down during the run: the server restarted or reset it; left out.`)
    return undefined
  }

  const queried = delta(names.prefixQueries, 'Prefix-cache queries')
  const hits = delta(names.prefixHits, 'Prefix-cache hits')
  const drafts = delta(names.specDrafts, 'Speculative drafts')
  const draftTokens = delta(names.specDraftTokens, 'Speculative draft tokens')
  const accepted = delta(names.specAcceptedTokens, 'Accepted draft tokens')
  const specDecode: SpecDecodeSummary | undefined =
    drafts !== undefined && draftTokens !== undefined && accepted !== undefined && drafts > 0 && draftTokens > 0
      ? {
          drafts,
          draftTokens,
          acceptedTokens: accepted,
          acceptanceRate: accepted / draftTokens,
          meanAcceptedLength: 1 + accepted / drafts,
        }
      : undefined

  const metrics: ServerMetrics = {
    dialect: names.dialect,
    url: window.url,
    intervalMs: window.intervalMs,
    scrapes: scrapes.length,
    failedScrapes: scrapes.length - good.length,
    scrapeMeanMs: scrapes.length === 0 ? 0 : scrapes.reduce((sum, s) => sum + s.durationMs, 0) / scrapes.length,
    windowMs:
      scrapes.length >= 2
        ? (scrapes[scrapes.length - 1] as ServerMetricsScrape).t - (scrapes[0] as ServerMetricsScrape).t
        : 0,
    ...defined('promptTokens', delta(names.promptTokens, 'Prompt tokens')),
    ...defined('generatedTokens', delta(names.generatedTokens, 'Generated tokens')),
    ...defined('finishedRequests', delta(names.finishedRequests, 'Finished requests')),
    ...(queried !== undefined && hits !== undefined && queried > 0
      ? { prefixCache: { queriedTokens: queried, hitTokens: hits, hitRate: hits / queried } }
      : {}),
    ...defined('preemptions', delta(names.preemptions, 'Preemptions')),
    ...defined('requestsRunning', gaugeSummary(series.requestsRunning)),
    ...defined('requestsWaiting', gaugeSummary(series.requestsWaiting)),
    ...defined('kvCacheUsage', gaugeSummary(series.kvCacheUsage)),
    ...defined('ttftMs', histogram('ttft')),
    ...defined('queueTimeMs', histogram('queueTime')),
    ...defined('prefillTimeMs', histogram('prefillTime')),
    ...defined('decodeTimeMs', histogram('decodeTime')),
    ...defined('e2eMs', histogram('e2e')),
    ...defined('itlMs', histogram('itl')),
    ...defined('specDecode', specDecode),
    series,
    notes,
  }

  const why = scrapes.find((s) => s.error)?.error ?? 'unknown error'
  if (!ends)
    notes.push(
      `The scrape at the window's ${scrapes[0]?.exposition ? 'end' : 'start'} failed twice (${why}): no counter or histogram figures, only gauges.`,
    )
  else if (metrics.failedScrapes > 0)
    notes.push(`${metrics.failedScrapes} of ${scrapes.length} scrapes failed (${why}).`)

  const overhead = clientOverhead(window.clientTtftMs, metrics.ttftMs)
  if (overhead) {
    metrics.clientOverheadTtftMs = overhead
    const note = overheadNote(overhead, window.clientTtftMs?.p50, OVERHEAD_NOTE_SHARE)
    if (note) notes.push(`${note}: the client and the network are a large part of what a TTFT gate measures.`)
  }

  const first = firstRequestCache(window.firstRequest, names)
  if (first) {
    metrics.firstRequestCache = first
    if (first.warm) {
      notes.push(
        `${WARM_NOTE_START}: its first request found ${first.hitTokens} of its ${first.promptTokens} prompt tokens cached, so an earlier run sent the same prompts (no fresh salt: a dataset, fixed prompts or a chat template's long opening). TTFT is what a warm cache gives; reset the cache between runs (\`resetPrefixCache\`, vLLM and SGLang) or vary the prompts.`,
      )
    }
  }
  return metrics
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
}

/** Client TTFT minus the server's at p50/p90/p99, with the precision of the server's p50 (its bucket's width). */
export function clientOverhead(
  client: MetricSummary | undefined,
  server: ServerHistogramSummary | undefined,
): ServerMetrics['clientOverheadTtftMs'] {
  if (!client || client.count === 0 || !server || server.count === 0 || !(client.p50 > 0)) return undefined
  const cumulative = [
    ...server.buckets.map((b) => ({ le: b.leMs, count: b.count })),
    { le: Number.POSITIVE_INFINITY, count: server.count },
  ]
  const p50 = bucketQuantile(cumulative, 0.5)
  const precision = Number.isFinite(p50.upper) ? p50.upper - p50.lower : Number.POSITIVE_INFINITY
  return {
    p50: client.p50 - server.p50,
    p90: client.p90 - server.p90,
    p99: client.p99 - server.p99,
    shareOfP50: (client.p50 - server.p50) / client.p50,
    p50PrecisionMs: precision,
  }
}

function firstRequestCache(
  scrapes: FirstRequestScrapes | undefined,
  names: DialectNames,
): ServerMetrics['firstRequestCache'] {
  const before = scrapes?.before.exposition
  const after = scrapes?.after.exposition
  if (!before || !after) return undefined
  const queries = [counterValue(before, names.prefixQueries), counterValue(after, names.prefixQueries)]
  const hits = [counterValue(before, names.prefixHits), counterValue(after, names.prefixHits)]
  const [q0, q1] = queries
  const [h0, h1] = hits
  if (q0 === undefined || q1 === undefined || h0 === undefined || h1 === undefined || q1 <= q0) return undefined
  const promptTokens = q1 - q0
  const hitTokens = Math.max(0, h1 - h0)
  return {
    promptTokens,
    hitTokens,
    warm: hitTokens >= WARM_MIN_HIT_TOKENS && hitTokens >= WARM_MIN_HIT_SHARE * promptTokens,
  }
}
