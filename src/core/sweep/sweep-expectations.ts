import type { SweepThroughputMetric } from './sweep-axis.ts'

/** A throughput floor at one swept value. */
export interface ThroughputExpectation {
  /** The swept value (must be one of the sweep's values). */
  at: number
  /** Default `outputTokensPerSec`. */
  metric?: SweepThroughputMetric
  /** Absolute floor, per second. */
  min?: number
  /** Floor relative to the baseline at the same value: 0.9 means at least 0.9 x baseline. */
  minVsBaseline?: number
}

/** A latency ceiling at one swept value. */
export interface LatencyExpectation {
  at: number
  metric: 'ttftMs' | 'tpotMs' | 'e2eMs'
  /** Default `p99`. */
  statistic?: 'p50' | 'p90' | 'p99'
  /** Absolute ceiling, ms. */
  max?: number
  /** Ceiling relative to the baseline at the same value: 1.1 means at most 1.1 x baseline. */
  maxVsBaseline?: number
}

/** Assertions on a sweep's curve, knee, capacity or scenario metric. Baseline-relative ones are skipped while no baseline exists. */
export interface SweepExpectations {
  throughput?: ThroughputExpectation[]
  latency?: LatencyExpectation[]
  knee?: {
    /** The knee must come at this swept value or later. */
    atLeast?: number
    /** The knee must not come at a smaller swept value than the baseline's. */
    notEarlierThanBaseline?: boolean
  }
  /** Capacity searches and the Server scenario: the highest valid rate. */
  capacity?: {
    /** Requests per second. */
    atLeast?: number
    /** Ratio to the baseline's capacity, e.g. 0.9. */
    minVsBaseline?: number
  }
  /** A scenario's metric (Server: req/s and Offline: tokens/s, higher is better; SingleStream: ms, lower is better). */
  scenarioMetric?: {
    atLeast?: number
    atMost?: number
    /** Higher-is-better metrics: at least this ratio of the baseline's. */
    minVsBaseline?: number
    /** SingleStream: at most this ratio of the baseline's. */
    maxVsBaseline?: number
  }
}
