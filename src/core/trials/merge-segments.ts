import { pooledThroughput } from './pooled-throughput.ts'
import type { BenchmarkResult, SegmentInfo, Timeline } from '../contract/result.ts'
import { formatFigure } from '../platform/format-figure.ts'
import { stableStringify } from '../platform/stable-stringify.ts'
import { mergeErrors } from './merge-trials.ts'
import { mergeSessions } from './merge-sessions.ts'
import { mergeMetrics, mergeStreaming } from './pooled-summary.ts'

/** A segment that started more than this many ms after the shared start fell behind its schedule. */
export const SEGMENT_START_LAG_LIMIT_MS = 250

/** The merge of the segments of one bench: one result as if one client had run the whole load, and why it may not be judged. */
export interface MergedSegments {
  result: BenchmarkResult
  /** Why no verdict may be drawn from `result`, one line each (a missing segment, one that fell behind, one that disagrees); empty when it may. */
  refusals: string[]
}

/** What every segment of one plan shares: the workload, the global load, the endpoint and model (not the segment, the URL or secrets). */
function planOf(result: BenchmarkResult): string {
  const config = result.config as { workload?: unknown; load?: unknown; target?: { api?: unknown; model?: unknown } }
  return stableStringify({
    workload: config.workload,
    load: config.load,
    api: config.target?.api,
    model: config.target?.model,
  })
}

/** Checks that the results are the N segments of one plan, each on schedule; one line per problem. */
function refusalsOf(results: readonly BenchmarkResult[]): string[] {
  const refusals: string[] = []
  const segments = results.map((r) => r.segment)
  if (segments.some((s) => s === undefined))
    return [
      'a result without a segment is among them: merge only the results of one segmented run (LLM_BENCH_SEGMENT).',
    ]
  const infos = segments as SegmentInfo[]
  const first = infos[0] as SegmentInfo
  const count = first.count
  if (infos.some((s) => s.count !== count))
    refusals.push(
      `the segments disagree on how many there are (${[...new Set(infos.map((s) => s.count))].join(' vs ')}).`,
    )
  const seen = new Map<number, number>()
  for (const s of infos) seen.set(s.index, (seen.get(s.index) ?? 0) + 1)
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i))
  if (missing.length > 0) {
    refusals.push(
      `segment${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count} ${missing.length > 1 ? 'are' : 'is'} missing: no result came from ${missing.length > 1 ? 'those hosts' : 'that host'} (failed or killed), so the merged load is not the planned one. Rerun the run, all segments together.`,
    )
  }
  for (const [index, n] of seen)
    if (n > 1) refusals.push(`segment ${index} of ${count} appears ${n} times: merge one result per segment.`)
  if (infos.some((s) => s.seed !== first.seed))
    refusals.push(
      `the segments disagree on the seed (${[...new Set(infos.map((s) => s.seed))].join(' vs ')}): they ran different global plans.`,
    )
  if (infos.some((s) => s.startAtMs !== first.startAtMs)) {
    refusals.push(
      `the segments disagree on the start time LLM_BENCH_START_AT (${[...new Set(infos.map((s) => String(s.startAtMs)))].join(' vs ')}): set one value on every host.`,
    )
  }
  const plan = planOf(results[0] as BenchmarkResult)
  results.forEach((r, i) => {
    if (planOf(r) !== plan)
      refusals.push(
        `segment ${infos[i]?.index} disagrees on the configuration (workload, load, API or model) with segment ${first.index}: every host must run the same bench.`,
      )
  })
  results.forEach((r, i) => {
    const s = infos[i] as SegmentInfo
    if (s.startLagMs !== null && s.startLagMs > SEGMENT_START_LAG_LIMIT_MS) {
      refusals.push(
        `segment ${s.index} fell behind its schedule: it started ${Math.round(s.startLagMs)} ms after LLM_BENCH_START_AT (limit ${SEGMENT_START_LAG_LIMIT_MS} ms). Set the start further ahead, after every host is ready.`,
      )
    }
    // A client that fell behind on a busy host is a disturbance its self-check names, and the merged result carries:
    // judged then as any bench measured on a disturbed machine (recorded provisionally, a slowdown inconclusive), as
    // one rule for benches, sweeps and segments. Without a self-check nothing would say so: refused.
    if (!r.client.keptUp && (r.client.selfCheck?.disturbed.length ?? 0) === 0) {
      const lag = r.client.generatorLagMs?.p99
      refusals.push(
        `segment ${s.index} fell behind its schedule: its load generator did not keep up${lag !== undefined ? ` (send lag p99 ${lag.toFixed(1)} ms)` : ''}. Give that host more CPU or a smaller share.`,
      )
    }
  })
  return refusals
}

function alignTimelines(
  parts: ReadonlyArray<{ timeline: Timeline | undefined; shiftMs: number }>,
): Timeline | undefined {
  const present = parts.filter((p): p is { timeline: Timeline; shiftMs: number } => p.timeline !== undefined)
  const first = present[0]?.timeline
  if (first === undefined || present.some((p) => p.timeline.windowMs !== first.windowMs)) return undefined
  const shifts = present.map((p) => Math.max(0, Math.round(p.shiftMs / first.windowMs)))
  const windows = Math.max(...present.map((p, i) => p.timeline.requests.length + (shifts[i] as number)))
  const sum = (pick: (t: Timeline) => number[]): number[] => {
    const out = new Array<number>(windows).fill(0)
    present.forEach((p, i) =>
      pick(p.timeline).forEach(
        (v, w) => (out[w + (shifts[i] as number)] = (out[w + (shifts[i] as number)] as number) + v),
      ),
    )
    return out
  }
  return {
    windowMs: first.windowMs,
    requests: sum((t) => t.requests),
    outputTokens: sum((t) => t.outputTokens),
    totalTokens: sum((t) => t.totalTokens),
    inFlightMax: sum((t) => t.inFlightMax),
    lastWindowPartial: true,
  }
}

/**
 * Merges the segment results of one bench (each host's slice of one global plan) into one result:
 * counts and tokens add, latency histograms add bucket by bucket (percentiles equal those of one
 * client that saw every request, to histogram precision), token statistics pool exactly, the
 * duration spans the earliest origin to the latest end on the hosts' wall clocks, and timeline
 * windows are aligned by the origins. Latencies need no clock agreement (each is measured on one
 * host's monotonic clock); the duration and the windows rely on the hosts' clocks agreeing (NTP).
 * Server metrics, GPU telemetry and the environment are the first segment's: every host sees the
 * same server. `refusals` says why no verdict may be drawn.
 */
export function mergeSegments(results: readonly BenchmarkResult[]): MergedSegments {
  const ordered = [...results].sort((a, b) => (a.segment?.index ?? 0) - (b.segment?.index ?? 0))
  // The first segment's self-check, or any host's: a segment that has one makes the merged result carry it.
  const checked = ordered.find((r) => r.client.selfCheck !== undefined)?.client.selfCheck
  const first = ordered[0]
  if (first === undefined) throw new RangeError('mergeSegments needs at least one result')
  const refusals = refusalsOf(ordered)
  // On the server's clock when every host measured its offset to it, else on the hosts' own clocks.
  const clocks = ordered.map((r) => r.segment?.clock ?? null)
  const onServerClock = clocks.every((c) => c !== null)
  const origins = ordered.map(
    (r, i) => (r.segment?.originEpochMs ?? Date.parse(r.startedAt)) + (onServerClock ? (clocks[i]?.offsetMs ?? 0) : 0),
  )
  const alignment = onServerClock
    ? `segments placed on the server's clock (its Date headers): their origins agree within ±${formatFigure(2 * Math.max(...clocks.map((c) => c?.accuracyMs ?? 0)))} ms`
    : `segments placed on the hosts' own clocks (${[...new Set(ordered.map((r) => r.segment?.clockNote ?? 'not measured'))].join('; ')}): the merged duration and windows are as good as their NTP sync`
  const start = Math.min(...origins)
  const end = Math.max(...ordered.map((r, i) => (origins[i] as number) + r.durationMs))
  const durationMs = Math.max(0, end - start)
  const sum = (pick: (r: BenchmarkResult) => number): number => ordered.reduce((total, r) => total + pick(r), 0)
  const perSecond = (amount: number): number => (durationMs > 0 ? amount / (durationMs / 1000) : 0)
  const completed = sum((r) => r.counts.completed)

  const { metrics, histograms } = mergeMetrics(ordered, first)

  const timeline = alignTimelines(
    ordered.map((r, i) => ({ timeline: r.timeline, shiftMs: (origins[i] as number) - start })),
  )
  const sessions = mergeSessions(ordered, durationMs)
  const { segment: _segment, trials: _trials, requests: _requests, timeline: _timeline, ...rest } = first
  const merged: BenchmarkResult = {
    ...rest,
    startedAt: new Date(start).toISOString(),
    durationMs,
    counts: { total: sum((r) => r.counts.total), completed, failed: sum((r) => r.counts.failed) },
    metrics,
    throughput: pooledThroughput(ordered, durationMs),
    errors: mergeErrors(ordered.map((r) => r.errors)),
    streaming: mergeStreaming(ordered, first),
    client: {
      ...first.client,
      keptUp: ordered.every((r) => r.client.keptUp),
      warnings: [...new Set(ordered.flatMap((r) => r.client.warnings.map((w) => `segment ${r.segment?.index}: ${w}`)))],
      // Every host's disturbances, named by segment: the baseline quality gate and the verdict read them.
      ...(checked
        ? {
            selfCheck: {
              ...checked,
              disturbed: ordered.flatMap((r) =>
                (r.client.selfCheck?.disturbed ?? []).map((why) => `segment ${r.segment?.index}: ${why}`),
              ),
            },
          }
        : {}),
    },
    histograms,
    ...(timeline ? { timeline } : {}),
    ...(sessions ? { sessions } : {}),
    warnings: [
      `merged from ${ordered.length} segments of ${first.segment?.count ?? '?'}`,
      alignment,
      ...new Set(ordered.flatMap((r) => r.warnings.map((w) => `segment ${r.segment?.index}: ${w}`))),
    ],
  }
  if (first.goodput) {
    const good = sum((r) => r.goodput?.goodRequests ?? 0)
    merged.goodput = {
      ...first.goodput,
      goodRequests: good,
      share: completed > 0 ? good / completed : 0,
      requestsPerSec: perSecond(good),
    }
  }
  return { result: merged, refusals }
}
