import { launchOf, type StoredLaunch } from './software-changes.ts'
import type { BenchmarkResult, MetricSummary, SelfCheck, TrialFigures } from '../contract/result.ts'
import {
  GATEABLE_LATENCIES,
  GATEABLE_THROUGHPUTS,
  METRIC_CATALOG,
  type GateableLatency,
  type GateableThroughput,
  type HistogramKey,
  type PerMetric,
} from '../contract/metric-catalog.ts'
import { trialFiguresOf, trialsOf } from '../trials/index.ts'
import type { BaselineConfig } from './config-hash.ts'
import { baselineConfigOf, hashConfig } from './config-hash.ts'
import type { Fingerprint } from './fingerprint.ts'
import { fingerprintOf } from './fingerprint.ts'
import { stableStringify } from '../platform/stable-stringify.ts'
import { roundFigures } from './stable-json.ts'
import { serverContextOf } from './server-context.ts'
import type { ServerContext } from './server-context.ts'
import type { ThroughputSeries } from './throughput-noise.ts'
import { throughputNoiseOfSeries, throughputSeriesOf } from './throughput-noise.ts'

/** Latency metrics a baseline keeps and a regression policy gates, ms (`METRIC_CATALOG`'s gateable latencies). */
export type LatencyMetric = GateableLatency

/** Throughputs a baseline keeps and a regression policy gates, per second. */
export type ThroughputMetric = GateableThroughput

/** Summary of one latency distribution in a baseline, milliseconds (count in samples): a summary without min and max. */
export type LatencyBaseline = Omit<MetricSummary, 'min' | 'max'>

/** One run-level throughput in a baseline, with its noise when the run allowed an estimate. */
export interface ThroughputBaseline {
  /** The figure, per second. */
  value: number
  /** Standard error divided by the figure, from per-window batch means; absent when not estimated. */
  relativeStdError?: number
  /** Windows behind {@link relativeStdError}. */
  windows?: number
  /** Batches behind {@link relativeStdError} (degrees of freedom + 1). */
  batches?: number
}

/** What a baseline file stores for one bench. */
export interface BaselineEntry {
  /** When it was recorded, ISO 8601 (for humans). */
  recordedAt: string
  /** SHA-256 of {@link config} (see `hashConfig`). */
  configHash: string
  /** The workload, load and target kind that were measured; left out when large (e.g. inline prompt lists). */
  config?: BaselineConfig
  fingerprint: Fingerprint
  /** Measured requests that completed and failed. */
  counts: { completed: number; failed: number }
  /** Measured duration, milliseconds. */
  durationMs: number
  /** Each gateable latency the run reported (one reported only where measured, such as `ttfoMs`, may be absent). */
  metrics: PerMetric<LatencyMetric, LatencyBaseline>
  throughput: Record<ThroughputMetric, ThroughputBaseline>
  /** Compressed base64 HDR histograms in microseconds, as in `BenchmarkResult.histograms` (gateable latencies). */
  histograms: Partial<Record<HistogramKey, string>>
  /** Each recorded trial's figures (at most 10): the between-run spread a verdict allows for. Absent in entries of older versions. */
  trials?: TrialFigures[]
  /**
   * The figures of the last sessions on this machine (at most {@link MAX_SESSIONS}, oldest first): the recording
   * that started the window (`-u`), then judged runs counted as sessions (`LLM_BENCH_ADD_SESSION=1`). A stored
   * verdict allows for how far they move between sessions. Absent in entries of older versions (the recording alone).
   */
  sessions?: SessionFigures[]
  /** The self-check of the run the entry came from: was the client or the machine disturbed while it was measured? */
  selfCheck?: SelfCheck
  /** The server's own figures when it was recorded (context for a verdict, never judged). */
  server?: ServerContext
  /**
   * How the server was launched (command, arguments with the port written `{port}`, the environment
   * the spec set), so a verdict names a changed flag (`llama.cpp args: added -ub 1`). Absent for a
   * connected server and in entries of older versions.
   */
  launch?: StoredLaunch
  /**
   * Present when the run was measured on a disturbed machine: what disturbed it (as its self-check
   * named it). A verdict against such an entry never passes (a slowed baseline can hide a slowdown);
   * a quiet local run replaces it (see `BaselineStore.match`). Absent for a quiet or forced recording.
   */
  provisional?: string[]
  /**
   * The same bench recorded on other machines (another GPU model or count, driver, CPU or runtime major),
   * each judged only on its own machine: a team running its benches on two GPU types keeps a baseline for
   * each. Absent while the bench was recorded on one machine only.
   */
  otherMachines?: BaselineEntry[]
}

/** One session of a bench on one machine, as a stored verdict reads how far the machine moves between sessions. */
export interface SessionFigures {
  /** When it ran, ISO 8601. */
  at: string
  /** `recorded`: the recording that started the window; `added`: a judged run counted as a session. */
  source: 'recorded' | 'added'
  /** Its figures, its trials merged. */
  figures: TrialFigures
}

/** Sessions an entry keeps at most (the most recent). */
export const MAX_SESSIONS = 10

/** The sessions of a stored entry: its own list, or its recording as the only one (entries of older versions). */
export function sessionsOf(entry: BaselineEntry): SessionFigures[] {
  if (entry.sessions !== undefined && entry.sessions.length > 0) return entry.sessions
  const latency = Object.fromEntries(
    Object.entries(entry.metrics).map(([metric, m]) => [
      metric,
      { count: m.count, mean: m.mean, p50: m.p50, p90: m.p90, p95: m.p95, p99: m.p99, p999: m.p999 },
    ]),
  ) as TrialFigures['latency']
  const throughput = {
    outputTokensPerSec: entry.throughput.outputTokensPerSec.value,
    requestsPerSec: entry.throughput.requestsPerSec.value,
    totalTokensPerSec: entry.throughput.totalTokensPerSec.value,
  }
  return [{ at: entry.recordedAt, source: 'recorded', figures: { durationMs: entry.durationMs, latency, throughput } }]
}

/** Largest config (as compact JSON, characters) kept verbatim in an entry; larger ones keep only the hash. */
export const MAX_STORED_CONFIG_CHARS = 4096

export interface BaselineEntryOptions {
  /** Recording time, ISO 8601. Default: now. */
  recordedAt?: string
  /** Per-window totals for the throughput noise. Default: `throughputSeriesOf(result)` (the timeline, or recorded requests). */
  throughputSeries?: ThroughputSeries
  /** The resolved options the entry is keyed by (see `baselineConfigOf`). Default: `result.config`; a sweep passes its own. */
  config?: Record<string, unknown>
}

function latencyOf(summary: MetricSummary): LatencyBaseline {
  const { count, mean, stddev, p50, p90, p95, p99, p999 } = summary
  return { count, mean, stddev, p50, p90, p95, p99, p999 }
}

/**
 * The baseline entry for a result. Figures are rounded to 4 significant digits (integers kept),
 * exactly as the file will hold them, so an entry written and read back compares equal. The
 * config is stored as given (it must agree with its hash).
 */
export function baselineEntryFrom(result: BenchmarkResult, options: BaselineEntryOptions = {}): BaselineEntry {
  const config = baselineConfigOf(options.config ?? result.config)
  const series = options.throughputSeries ?? throughputSeriesOf(result)
  const noise = series ? throughputNoiseOfSeries(series) : {}
  const throughput = {} as Record<ThroughputMetric, ThroughputBaseline>
  for (const metric of GATEABLE_THROUGHPUTS) {
    const figure: ThroughputBaseline = { value: result.throughput[metric] }
    const estimate = noise[metric]
    if (estimate) {
      figure.relativeStdError = estimate.relativeStdError
      figure.windows = estimate.windows
      figure.batches = estimate.batches
    }
    throughput[metric] = figure
  }
  const metrics: Partial<Record<LatencyMetric, LatencyBaseline>> = {}
  const histograms: BaselineEntry['histograms'] = {}
  for (const metric of GATEABLE_LATENCIES) {
    const summary = result.metrics[metric]
    if (summary === undefined) continue
    metrics[metric] = latencyOf(summary)
    const key = METRIC_CATALOG[metric].histogram
    const encoded = result.histograms[key]
    if (encoded !== undefined) histograms[key] = encoded
  }
  const recordedAt = options.recordedAt ?? new Date().toISOString()
  const entry: BaselineEntry = {
    recordedAt,
    configHash: hashConfig(config),
    fingerprint: fingerprintOf(result.environment),
    counts: { completed: result.counts.completed, failed: result.counts.failed },
    durationMs: result.durationMs,
    // Every latency reported always is there (the result has it): only those reported where measured may be missing.
    metrics: metrics as BaselineEntry['metrics'],
    throughput,
    histograms,
    trials: trialsOf(result),
    sessions: [{ at: recordedAt, source: 'recorded', figures: trialFiguresOf(result) }],
    ...(result.client.selfCheck ? { selfCheck: result.client.selfCheck } : {}),
    ...((result.client.selfCheck?.disturbed.length ?? 0) > 0
      ? { provisional: [...(result.client.selfCheck?.disturbed ?? [])] }
      : {}),
  }
  const server = serverContextOf(result)
  if (server) entry.server = server
  const launch = launchOf(result)
  if (launch) entry.launch = launch
  const rounded = roundFigures(entry)
  // Kept unrounded (rounding would make it disagree with its own hash), in its JSON-safe form:
  // `rate: Infinity` becomes the string "Infinity", which hashes the same.
  const configText = stableStringify(config)
  if (configText.length <= MAX_STORED_CONFIG_CHARS) rounded.config = JSON.parse(configText) as BaselineConfig
  return rounded
}
