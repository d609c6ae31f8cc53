import type { MetricSummary } from '../../contract/result.ts'
import { overheadNote } from '../../contract/client-overhead-note.ts'
import type {
  ServerGaugeSummary,
  ServerHistogramSummary,
  ServerMetrics,
  ServerSide,
  SpecDecodeSummary,
} from '../../contract/server-metrics.ts'
import { bucketQuantile, clientOverhead, OVERHEAD_NOTE_SHARE, WARM_NOTE_START } from './server-metrics-window.ts'

/** Notes a trial writes about itself that the merge writes again for all trials. */
const TRIAL_NOTE = new RegExp(`^(${WARM_NOTE_START}|The client and the network)`)

const HISTOGRAMS = ['ttftMs', 'queueTimeMs', 'prefillTimeMs', 'decodeTimeMs', 'e2eMs', 'itlMs'] as const
const COUNTERS = ['promptTokens', 'generatedTokens', 'finishedRequests', 'preemptions'] as const
const GAUGES = ['requestsRunning', 'requestsWaiting', 'kvCacheUsage'] as const

/** Adds counts only where every trial has the figure: a sum over some trials would pass for all. */
function sumAll(values: Array<number | undefined>): number | undefined {
  return values.every((v) => v !== undefined) ? (values as number[]).reduce((a, b) => a + b, 0) : undefined
}

function mergeGauges(list: Array<ServerGaugeSummary | undefined>): ServerGaugeSummary | undefined {
  const present = list.filter((g): g is ServerGaugeSummary => g !== undefined)
  if (present.length === 0) return undefined
  const samples = present.reduce((total, g) => total + g.samples, 0)
  const mean = present.reduce((total, g) => total + g.mean * g.samples, 0) / samples
  // Pooled: each trial's squared deviations about its own mean, plus its mean's about the pooled one.
  const squares = present.reduce(
    (total, g) => total + (g.stddev ?? 0) ** 2 * (g.samples - 1) + g.samples * (g.mean - mean) ** 2,
    0,
  )
  return {
    mean,
    peak: Math.max(...present.map((g) => g.peak)),
    stddev: samples > 1 ? Math.sqrt(squares / (samples - 1)) : 0,
    samples,
  }
}

function mergeHistograms(list: Array<ServerHistogramSummary | undefined>): ServerHistogramSummary | undefined {
  if (list.length === 0 || list.some((h) => h === undefined)) return undefined
  const histograms = list as ServerHistogramSummary[]
  const bounds = histograms[0]?.buckets.map((b) => b.leMs) ?? []
  // Bucket bounds differ only if the server was reconfigured between trials: then nothing adds up.
  if (histograms.some((h) => h.buckets.length !== bounds.length || h.buckets.some((b, i) => b.leMs !== bounds[i])))
    return undefined
  const count = histograms.reduce((total, h) => total + h.count, 0)
  const buckets = bounds.map((leMs, i) => ({
    leMs,
    count: histograms.reduce((total, h) => total + (h.buckets[i]?.count ?? 0), 0),
  }))
  const cumulative = [...buckets.map((b) => ({ le: b.leMs, count: b.count })), { le: Number.POSITIVE_INFINITY, count }]
  const at = (q: number) => bucketQuantile(cumulative, q).value
  return {
    count,
    mean: histograms.reduce((total, h) => total + h.mean * h.count, 0) / count,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    buckets,
  }
}

function mergeSpec(list: Array<SpecDecodeSummary | undefined>): SpecDecodeSummary | undefined {
  if (list.length === 0 || list.some((s) => s === undefined)) return undefined
  const specs = list as SpecDecodeSummary[]
  const drafts = specs.reduce((t, s) => t + s.drafts, 0)
  const draftTokens = specs.reduce((t, s) => t + s.draftTokens, 0)
  const acceptedTokens = specs.reduce((t, s) => t + s.acceptedTokens, 0)
  return {
    drafts,
    draftTokens,
    acceptedTokens,
    acceptanceRate: acceptedTokens / draftTokens,
    meanAcceptedLength: 1 + acceptedTokens / drafts,
  }
}

/**
 * The server side of several trials of one bench, as one window: counters and histogram buckets
 * add (histogram quantiles recomputed), gauges pool over every scrape, the series is the last
 * trial's. The cache check keeps the first trial's, and a later trial whose first request found a
 * warm cache is named (the trial before it sent the same prompts). Without metrics in every
 * trial, the last trial's side is kept as it is.
 *
 * @param clientTtftMs the merged client TTFT, for the client-minus-server difference.
 */
export function mergeServerSides(
  sides: ReadonlyArray<ServerSide | undefined>,
  clientTtftMs: MetricSummary | undefined,
): ServerSide | undefined {
  const last = sides[sides.length - 1]
  const all = sides.map((s) => s?.metrics)
  if (sides.length < 2 || all.every((m) => m === undefined)) return last
  const missing = all.filter((m) => m === undefined).length
  // One trial's figures beside every trial's client counts would read as a mismatch: say why there are none.
  if (missing > 0)
    return {
      note: `Server metrics came from ${all.length - missing} of ${all.length} trials only (${sides.find((s) => s?.note)?.note ?? 'a scrape failed'}): not merged.`,
    }
  const list = all as ServerMetrics[]
  const first = list[0] as ServerMetrics
  const lastMetrics = list[list.length - 1] as ServerMetrics
  // Each trial's figures are deltas over its own window, so trials on restarted servers (another port each) add up too.
  if (list.some((m) => m.dialect !== first.dialect)) return last

  const scrapes = list.reduce((t, m) => t + m.scrapes, 0)
  const merged: ServerMetrics = {
    ...lastMetrics,
    scrapes,
    failedScrapes: list.reduce((t, m) => t + m.failedScrapes, 0),
    scrapeMeanMs: scrapes === 0 ? 0 : list.reduce((t, m) => t + m.scrapeMeanMs * m.scrapes, 0) / scrapes,
    windowMs: list.reduce((t, m) => t + m.windowMs, 0),
    // Per-trial notes on the cache and the client overhead are replaced by the merged ones below.
    notes: [...new Set(list.flatMap((m) => m.notes.filter((note) => !TRIAL_NOTE.test(note))))],
  }
  for (const key of COUNTERS) {
    const value = sumAll(list.map((m) => m[key]))
    if (value === undefined) delete merged[key]
    else merged[key] = value
  }
  const queried = sumAll(list.map((m) => m.prefixCache?.queriedTokens))
  const hits = sumAll(list.map((m) => m.prefixCache?.hitTokens))
  if (queried !== undefined && hits !== undefined && queried > 0)
    merged.prefixCache = { queriedTokens: queried, hitTokens: hits, hitRate: hits / queried }
  else delete merged.prefixCache
  for (const key of GAUGES) {
    const gauge = mergeGauges(list.map((m) => m[key]))
    if (gauge === undefined) delete merged[key]
    else merged[key] = gauge
  }
  for (const key of HISTOGRAMS) {
    const histogram = mergeHistograms(list.map((m) => m[key]))
    if (histogram === undefined) delete merged[key]
    else merged[key] = histogram
  }
  const spec = mergeSpec(list.map((m) => m.specDecode))
  if (spec === undefined) delete merged.specDecode
  else merged.specDecode = spec
  const overhead = clientOverhead(clientTtftMs, merged.ttftMs)
  if (overhead === undefined) delete merged.clientOverheadTtftMs
  else merged.clientOverheadTtftMs = overhead
  const overheadLine = overhead ? overheadNote(overhead, clientTtftMs?.p50, OVERHEAD_NOTE_SHARE) : undefined
  if (overheadLine)
    merged.notes.push(`${overheadLine}: the client and the network are a large part of what a TTFT gate measures.`)
  if (first.firstRequestCache) merged.firstRequestCache = first.firstRequestCache
  else delete merged.firstRequestCache
  const firstWarm = first.notes.find((note) => note.startsWith(WARM_NOTE_START))
  if (firstWarm) merged.notes.push(firstWarm)
  const warmLater = list.slice(1).findIndex((m) => m.firstRequestCache?.warm === true)
  if (warmLater >= 0 && first.firstRequestCache?.warm !== true) {
    merged.notes.push(
      `Trial ${warmLater + 2}'s first request found its prompt cached: the trial before it sent the same prompts, so later trials ran on a warm prefix cache.`,
    )
  }
  return { metrics: merged }
}
