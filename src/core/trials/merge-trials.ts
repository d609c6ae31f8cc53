import { pooledThroughput } from './pooled-throughput.ts'
import type { BenchmarkResult, ErrorCount, SelfCheck } from '../contract/result.ts'
import { MAX_KEPT_TRIALS, trialsOf } from '../contract/trial-figures.ts'
import { mergeMetrics, mergeStreaming } from './pooled-summary.ts'
import { mergeSessions } from './merge-sessions.ts'
import { mergeServerSides, SERVER_NOTE_PREFIX } from '../server/metrics/index.ts'

/** The self-checks of all trials: the worst figure of each, and every trial's disturbances, named by trial. */
function mergeSelfChecks(results: readonly BenchmarkResult[]): SelfCheck {
  const checks = results.map((r) => r.client.selfCheck)
  const present = checks.filter((c): c is SelfCheck => c !== undefined)
  const worst = (pick: (c: SelfCheck) => number | undefined): number | undefined => {
    const values = present.map(pick).filter((v): v is number => v !== undefined)
    return values.length > 0 ? Math.max(...values) : undefined
  }
  const last = present[present.length - 1] as SelfCheck
  const merged: SelfCheck = {
    cores: last.cores,
    loadAverage1m: last.loadAverage1m,
    disturbed: checks.flatMap((c, i) => (c?.disturbed ?? []).map((why) => `trial ${i + 1}: ${why}`)),
  }
  const calibrations = present
    .map((c) => c.cpuCalibrationMs)
    .filter((v): v is number => v !== undefined)
    .sort((a, b) => a - b)
  if (calibrations.length > 0) merged.cpuCalibrationMs = calibrations[Math.floor(calibrations.length / 2)] as number
  const figures = {
    otherCores: worst((c) => c.otherCores),
    stealShare: worst((c) => c.stealShare),
    eventLoopDelayP99Ms: worst((c) => c.eventLoopDelayP99Ms),
    lateShare: worst((c) => c.lateShare),
  }
  for (const [key, value] of Object.entries(figures))
    if (value !== undefined) merged[key as keyof typeof figures] = value
  // The processes named are those of the trial where other work was heaviest.
  const busiest = present.filter((c) => c.otherCores === merged.otherCores && c.busiestOthers)[0]?.busiestOthers
  if (busiest) merged.busiestOthers = busiest
  return merged
}

export function mergeErrors(lists: readonly ErrorCount[][]): ErrorCount[] {
  const merged = new Map<string, ErrorCount>()
  for (const list of lists) {
    for (const error of list) {
      const key = `${error.kind}\u0000${error.message}`
      const seen = merged.get(key)
      if (seen) seen.count += error.count
      else merged.set(key, { ...error })
    }
  }
  return [...merged.values()].sort((a, b) => b.count - a.count)
}

/**
 * One result for several trials of the same bench, as if their measured requests had been one
 * run: counts, durations and token totals add; latency histograms add bucket by bucket
 * (percentiles of all requests together) and min, max, mean and stddev pool exactly; throughputs
 * divide the totals by the summed durations; `trials` keeps each trial's own figures for the
 * verdict. Server metrics merge as one window (see `mergeServerSides`). Token-count percentiles,
 * the timeline, GPU telemetry, the client's health and the environment are the last trial's
 * (warnings of every trial are kept, each once).
 */
export function mergeTrials(results: readonly BenchmarkResult[]): BenchmarkResult {
  const last = results[results.length - 1]
  if (last === undefined) throw new RangeError('mergeTrials needs at least one result')
  const trials = results.flatMap(trialsOf).slice(-MAX_KEPT_TRIALS)
  if (results.length === 1) return { ...last, trials }

  const durationMs = results.reduce((sum, r) => sum + r.durationMs, 0)
  const sum = (pick: (r: BenchmarkResult) => number): number => results.reduce((total, r) => total + pick(r), 0)
  const completed = sum((r) => r.counts.completed)

  const { metrics, histograms } = mergeMetrics(results, last)

  const merged: BenchmarkResult = {
    ...last,
    startedAt: (results[0] as BenchmarkResult).startedAt,
    durationMs,
    counts: { total: sum((r) => r.counts.total), completed, failed: sum((r) => r.counts.failed) },
    metrics,
    throughput: pooledThroughput(results, durationMs),
    errors: mergeErrors(results.map((r) => r.errors)),
    streaming: mergeStreaming(results, last),
    client: {
      ...last.client,
      keptUp: results.every((r) => r.client.keptUp),
      warnings: [...new Set(results.flatMap((r) => r.client.warnings))],
      ...(last.client.selfCheck ? { selfCheck: mergeSelfChecks(results) } : {}),
    },
    histograms,
    trials,
    warnings: [...new Set(results.flatMap((r) => r.warnings))],
  }
  const server = mergeServerSides(
    results.map((r) => r.server),
    metrics.ttftMs,
  )
  if (server) {
    merged.server = server
    // Each trial's server notes are replaced by the merged ones (a later trial's "warm cache" was the trial before it).
    merged.warnings = [
      ...merged.warnings.filter((w) => !w.startsWith(SERVER_NOTE_PREFIX)),
      ...(server.metrics?.notes ?? []).map((note) => `${SERVER_NOTE_PREFIX}${note}`),
    ]
  }
  const sessions = mergeSessions(results, durationMs)
  if (sessions) merged.sessions = sessions
  if (last.goodput) {
    const good = sum((r) => r.goodput?.goodRequests ?? 0)
    merged.goodput = {
      ...last.goodput,
      goodRequests: good,
      share: completed > 0 ? good / completed : 0,
      requestsPerSec: durationMs > 0 ? good / (durationMs / 1000) : 0,
    }
  }
  const requests = results.flatMap((r) => r.requests ?? [])
  if (requests.length > 0) merged.requests = requests
  else delete merged.requests
  return merged
}
