import type { LatencyOrigin } from './latency-limits.ts'
import type { SweepOptions } from './sweep-options.ts'
import type { CapacityLimits } from './sweep-result.ts'

/** What a capacity search looks for: the highest Poisson request rate that keeps latencies within limits. */
export interface CapacitySearch {
  /** Limits at {@link percentile}, ms; at least one. */
  limits: CapacityLimits
  /** Percentile the limits apply to, as a share (0.99 is p99), computed as LoadGen does. Default 0.99. */
  percentile?: number
  /** Range searched, requests per second; `start` is the first rate tried. Default start: the geometric mean of min and max. */
  rate: { min: number; max: number; start?: number }
  /** Stop when the highest passing and lowest failing rate are within this share of each other. Default 0.05. */
  precision?: number
  /** Also require LoadGen's Server early-stopping check at every point (the Server scenario does). Default false. */
  earlyStopping?: boolean
  /** Measure TTFT and E2E from the planned send time (`scheduled`, as LoadGen) or the actual send (`sent`). Default `scheduled`. */
  from?: LatencyOrigin
  /** Largest share of a point's requests that may fail, 0..1. Default 0. */
  maxFailedShare?: number
  /** Most points to run before giving up on the precision (a warning says so). Default 16. */
  maxPoints?: number
}

/** Options of {@link searchCapacity}: a sweep's options with a search instead of a list of values. */
export interface CapacitySearchOptions extends Omit<SweepOptions, 'over'> {
  capacity: CapacitySearch
}

/** Defaults of {@link CapacitySearch}. */
export const CAPACITY_DEFAULTS = {
  percentile: 0.99,
  precision: 0.05,
  earlyStopping: false,
  from: 'scheduled',
  maxFailedShare: 0,
  maxPoints: 16,
} as const
