import type { LatencyMetric, ThroughputMetric } from '../baseline/baseline-entry.ts'
import type { LatencyStatistic } from './regression-policy.ts'

/**
 * Outcome of a comparison: `fail` only when the whole confidence interval lies beyond the
 * tolerance, `pass` only when it lies entirely within, `inconclusive` otherwise (too few samples,
 * an interval straddling the limit, a client that could not keep up).
 */
export type VerdictStatus = 'pass' | 'fail' | 'inconclusive'

/** One compared figure. */
export interface Check {
  metric: LatencyMetric | ThroughputMetric
  /** The latency statistic, or `value` for a run-level throughput. */
  statistic: LatencyStatistic | 'value'
  /** Unit of `baseline` and `current`: `ms`, `tok/s` or `req/s`. */
  unit: 'ms' | 'tok/s' | 'req/s'
  /** The baseline's figure. */
  baseline: number
  /** This run's figure. */
  current: number
  /** current / baseline; `null` when the baseline figure is 0. */
  ratio: number | null
  /** Lower bound of the confidence interval of the ratio; `null` when no interval could be computed (see `reason`). */
  ciLow: number | null
  /** Upper bound of the confidence interval of the ratio; `null` when no interval could be computed. */
  ciHigh: number | null
  /**
   * Tolerance as a signed fraction of the baseline: +0.1 allows 10 % more (latency), -0.05 allows
   * 5 % less (throughput). The limit on the ratio is 1 + tolerance.
   */
  tolerance: number
  /** Samples behind each side: requests (or tokens, for TPOT and ITL) for latency, windows for throughput (1 when no series). */
  n: { baseline: number; current: number }
  /**
   * Trials behind each side when the check treated each trial as one observation (several
   * recorded or run); `baseline` and `current` are then the geometric means of the trials' figures.
   */
  trials?: { baseline: number; current: number }
  /**
   * Against a stored baseline: the sessions stored on this machine and how far they move from one to the next
   * (`spread`, relative: 0.05 = 5 %; assumed while fewer than 3 are stored). The interval allows for one more session.
   */
  sessions?: {
    count: number
    spread: number
    assumed: boolean
    /**
     * The allowance for one more session contains the limit by itself: more trials of this run narrow the trials'
     * part of the interval, never this one, so they cannot decide the check (see `beyondMoreTrials`).
     */
    containsLimit: boolean
  }
  status: VerdictStatus
  /** Why the check is inconclusive, or what it assumed. */
  reason?: string
}

/** The result of `compare`. */
export interface Verdict {
  /** `fail` when any check fails, else `inconclusive` when any is, else `pass` (also with no checks). */
  status: VerdictStatus
  checks: Check[]
  /** Confidence level of every interval (0.95 is 95 %). */
  confidence: number
  /** Remarks on the whole comparison, e.g. that the client could not keep up. */
  notes: string[]
  /** What the server's own metrics say moved between the baseline and this run (context, never judged); absent when either side has no server metrics. */
  server?: string
  /**
   * What changed in the software under test between the baseline and this run, e.g. `vllm 0.10.1 -> 0.11.0`
   * or `llama.cpp b7000-aaaa -> b7001-bbbb` (see `diffSoftware`); absent when it is the same software.
   */
  changed?: string[]
}
