import type { BenchmarkResult } from '../contract/result.ts'
import type { SweepAxisName, SweepThroughputMetric } from './sweep-axis.ts'

/** Version of the {@link SweepResult} shape. */
export const SWEEP_SCHEMA_VERSION = 1

/** One point of a sweep or capacity search. */
export interface SweepPoint {
  /** The swept value: concurrency, or requests per second. */
  value: number
  /** Position in run order, from 0 (a capacity search runs its points out of value order). */
  order: number
  /** Capacity searches and scenarios: whether the point met the latency limits. */
  valid?: boolean
  /** Why the point is invalid, one line each; empty when valid. */
  reasons?: string[]
  /** The run at this value, without per-request records unless `recordRequests` was set. */
  result: BenchmarkResult
}

/** Quantiles of one latency metric at a point, milliseconds. */
export interface CurveLatency {
  p50: number
  p90: number
  p99: number
}

/** A point's headline figures, for tables and charts (all taken from its `result`). */
export interface SweepCurvePoint {
  /** The swept value. */
  value: number
  /** Output tokens per second. */
  outputTokensPerSec: number
  /** Completed requests per second. */
  requestsPerSec: number
  /** Input plus output tokens per second. */
  totalTokensPerSec: number
  /** Time to first token, ms. */
  ttftMs: CurveLatency
  /** Time per output token, ms. */
  tpotMs: CurveLatency
  /** End-to-end latency, ms. */
  e2eMs: CurveLatency
  completed: number
  failed: number
  /** Capacity searches and scenarios: whether the point met the limits. */
  valid?: boolean
}

/** Where throughput stops rising: see `SaturationOptions`. */
export interface SaturationPoint {
  /** The swept value of the knee. */
  value: number
  /** Throughput at the knee, per second, of {@link metric}. */
  throughput: number
  metric: SweepThroughputMetric
  /** The share used (see `SaturationOptions.minGain`). */
  minGain: number
  /**
   * False when the knee is the last point: throughput was still rising (or there was nothing
   * beyond it), so the real knee lies at or beyond {@link value}.
   */
  saturated: boolean
  /** The highest throughput seen, and where. */
  peak: { value: number; throughput: number }
}

/** The latency limits a capacity search holds, at one percentile. */
export interface CapacityLimits {
  /** Time to first token at the percentile, at most this many ms. */
  ttftMs?: number
  /** Time per output token at the percentile, at most this many ms. */
  tpotMs?: number
  /** End-to-end latency at the percentile, at most this many ms. */
  e2eMs?: number
}

/** Outcome of a capacity search. */
export interface CapacityResult {
  /** Highest request rate tried that met the limits, requests per second; absent when none did. */
  rate?: number
  /** Lowest request rate tried that missed them; absent when every rate tried met them. */
  failedRate?: number
  /** True when both {@link rate} and {@link failedRate} were found, so the capacity lies between them. */
  bracketed: boolean
  /** Relative width the search stopped at: (failedRate − rate) / rate <= precision. */
  precision: number
  limits: CapacityLimits
  /** Percentile the limits apply to, as a share (0.99). */
  percentile: number
  /** True when LoadGen's Server early-stopping check was part of each point's validity. */
  earlyStopping: boolean
  /** Rates in the order tried, requests per second. */
  tried: number[]
  /** The limits for humans, e.g. `p99 TTFT <= 500 ms and p99 TPOT <= 50 ms`. */
  constraint: string
}

/** MLPerf LoadGen scenarios offered as presets. */
export type ScenarioName = 'Server' | 'Offline' | 'SingleStream'

/** The headline figure of a scenario. */
export interface ScenarioMetric {
  /** What it is, e.g. `max Poisson rate`, `output tokens/s`, `p90 E2E latency (early-stopping estimate)`. */
  name: string
  /** The figure; absent when the run gave none (no valid rate, too few queries). */
  value?: number
  /** `req/s`, `tokens/s` or `ms`. */
  unit: string
}

/** A scenario's result: the scenario, its constraint and its metric, stated together. */
export interface ScenarioOutcome {
  name: ScenarioName
  /** The constraint the metric holds under, e.g. `p99 TTFT <= 500 ms and p99 TPOT <= 50 ms`; `none` for Offline. */
  constraint: string
  metric: ScenarioMetric
  /** True when the run met the scenario's rules (limits held, enough queries for early stopping, no failed request). */
  valid: boolean
  /** Why it is invalid, one line each; empty when valid. */
  reasons: string[]
  /** SingleStream: LoadGen's early-stopping estimate details. */
  earlyStopping?: {
    /** Queries the estimate used. */
    queries: number
    /** Least queries LoadGen needs for an estimate at this percentile. */
    minQueries: number
    /** Highest latencies LoadGen would leave out; absent when there were too few queries. */
    discarded?: number
    /** Percentile as a share (0.9). */
    percentile: number
  }
  /** One line for humans, e.g. `Server: 54.2 req/s max Poisson rate with p99 TTFT <= 500 ms and p99 TPOT <= 50 ms (VALID)`. */
  summary: string
}

/**
 * The outcome of a sweep, capacity search or scenario (`llmBenchSweep` in task meta).
 * JSON-serialisable; figures per second and in milliseconds as named.
 */
export interface SweepResult {
  schemaVersion: typeof SWEEP_SCHEMA_VERSION
  /** `sweep`: a curve over given values; `capacity`: a search for the highest rate within limits; `scenario`: an MLPerf scenario. */
  kind: 'sweep' | 'capacity' | 'scenario'
  /** What the points' `value` is. */
  axis: SweepAxisName
  /** The launch argument a `serverArg` sweep varied, as written on the command line (`-np`); absent otherwise. */
  serverArg?: string
  /** Wall-clock start, ISO 8601. */
  startedAt: string
  /** From the first point's start to the last point's end, ms. */
  durationMs: number
  /** Every point run, sorted by value (see `order` for run order). */
  points: SweepPoint[]
  /** Headline figures of each point, in the same order as {@link points}. */
  curve: SweepCurvePoint[]
  /** The saturation point (sweeps, and capacity searches with at least two points). */
  knee?: SaturationPoint
  /** Capacity searches and the Server scenario. */
  capacity?: CapacityResult
  /** Scenarios: the scenario, its constraint and its metric, together. */
  scenario?: ScenarioOutcome
  /** What was measured (workload, base load, swept values, limits, scenario): the baseline's config hash covers it. */
  config: Record<string, unknown>
  /** For humans: prefix cache not reset, client lag at some point, invalid points. */
  warnings: string[]
}

/** What a sweep's values are, for people: `concurrency`, `rate`, or the swept server argument (`-np`). */
export function axisLabelOf(result: Pick<SweepResult, 'axis' | 'serverArg'>): string {
  return result.serverArg ?? result.axis
}
