import type { CapacityLimits, ScenarioName } from '../sweep/sweep-result.ts'

/**
 * MLPerf LoadGen's Server scenario: Poisson arrivals; the metric is the highest Poisson rate
 * (requests per second) at which the run is valid, i.e. TTFT and TPOT at the percentile (p99 by
 * default) stay within their limits and LoadGen's early-stopping check passes for both.
 */
export interface ServerScenario {
  name: 'Server'
  /** TTFT limit at {@link percentile}, ms (LoadGen `server_ttft_latency`). */
  ttftMs: number
  /** TPOT limit at {@link percentile}, ms (LoadGen `server_tpot_latency`). */
  tpotMs: number
  /** Percentile of both limits, as a share. Default 0.99 (LoadGen's Server target percentile). */
  percentile?: number
  /** Rates searched, requests per second. */
  rate: { min: number; max: number; start?: number }
  /** Relative precision of the search. Default 0.05. */
  precision?: number
  /**
   * Measured requests per rate tried. Default 662: the fewest with which LoadGen's early stopping
   * at p99 still passes with one request over a limit (459 pass only with none over).
   */
  requests?: number
  /** Or stop each rate after this many milliseconds (whichever first with `requests`). */
  durationMs?: number
}

/** MLPerf LoadGen's Offline scenario: every request sent at once; the metric is the measured throughput. */
export interface OfflineScenario {
  name: 'Offline'
  /** Requests sent together (LoadGen's samples in its one query). */
  requests: number
}

/**
 * MLPerf LoadGen's SingleStream scenario: one request after another; the metric is LoadGen's
 * early-stopping estimate of the 90th-percentile end-to-end latency (the sample latency LoadGen
 * measures: issue to complete response).
 */
export interface SingleStreamScenario {
  name: 'SingleStream'
  /** Measured requests. Default 64: LoadGen's minimum for a 90th-percentile early-stopping estimate. */
  requests?: number
  /** Or stop after this many milliseconds (whichever first with `requests`). */
  durationMs?: number
  /** Percentile of the estimate, as a share. Default 0.9. */
  percentile?: number
}

/** One of LoadGen's scenarios as a preset. */
export type ScenarioSpec = ServerScenario | OfflineScenario | SingleStreamScenario

/** Defaults of the scenario presets. */
export const SCENARIO_DEFAULTS = {
  serverPercentile: 0.99,
  serverRequests: 662,
  singleStreamRequests: 64,
  singleStreamPercentile: 0.9,
} as const

/** The Server scenario preset; see {@link ServerScenario}. */
export function serverScenario(options: Omit<ServerScenario, 'name'>): ServerScenario {
  return { name: 'Server', ...options }
}

/** The Offline scenario preset; see {@link OfflineScenario}. */
export function offlineScenario(options: Omit<OfflineScenario, 'name'>): OfflineScenario {
  return { name: 'Offline', ...options }
}

/** The SingleStream scenario preset; see {@link SingleStreamScenario}. */
export function singleStreamScenario(options: Omit<SingleStreamScenario, 'name'> = {}): SingleStreamScenario {
  return { name: 'SingleStream', ...options }
}

/** The limits of a Server scenario as a capacity search sees them. */
export function serverLimits(spec: ServerScenario): CapacityLimits {
  return { ttftMs: spec.ttftMs, tpotMs: spec.tpotMs }
}

/** The names LoadGen uses. */
export const SCENARIO_NAMES: readonly ScenarioName[] = ['Server', 'Offline', 'SingleStream']
