import type { BenchmarkOptions, LoadOptions, Progress, TargetOptions } from '../contract/options.ts'
import type { RunContext } from '../run.ts'
import type { SweepPoint } from './sweep-result.ts'
import type { SweepAxis, SweepThroughputMetric } from './sweep-axis.ts'

/**
 * The load of every point apart from the swept value: the stop rule (`requests` and/or
 * `durationMs`, required), and for rate sweeps the arrival process (default `poisson`) and an
 * optional `concurrency` cap. `rampUp` is not allowed: each point measures one steady load. `rate`
 * only in a sweep over a server argument, whose every point runs this load as it is.
 */
export type SweepPointLoad = Omit<LoadOptions, 'rampUp'>

/** How the saturation point (the knee) of a curve is found. */
export interface SaturationOptions {
  /** Throughput the knee is read from. Default `outputTokensPerSec`. */
  metric?: SweepThroughputMetric
  /**
   * The knee is the first point (in swept order) beyond which no point's throughput exceeds its
   * own by more than this share: 0.1 means "going further never buys more than 10 %". Default 0.1.
   */
  minGain?: number
}

/** What happens between two points of a sweep. */
export interface BetweenPoints {
  /**
   * Empty the server's prefix cache before each point (vLLM `POST /reset_prefix_cache`, SGLang
   * `POST /flush_cache`); a server without either gets a warning once. Each point already sends a
   * fresh prompt salt, so this only matters for workloads with a shared prefix. Default false.
   */
  resetPrefixCache?: boolean
}

/** A point about to run. */
export interface SweepPointStart {
  /** Position in run order, from 0. */
  order: number
  /** The swept value (concurrency, requests per second, or the server argument's value). */
  value: number
}

/** Where a point sends its load, when a hook moved it: a server restarted, or started with other arguments. */
export interface PointTarget {
  /** Target fields that replace the current ones (the new server's address, model, key). */
  target: Partial<TargetOptions>
  /** The new server's run context (its name, launch and process group), replacing the sweep's. */
  context: RunContext
}

/**
 * Options of {@link runSweep}: a benchmark's options with the load split into the swept value
 * (`over`) and the rest (`load`).
 */
export interface SweepOptions extends Omit<BenchmarkOptions, 'load' | 'onProgress'> {
  /** The values to run, e.g. `{ concurrency: [1, 2, 4, 8, 16, 32] }` or `{ rate: [2, 4, 8] }` (requests per second). */
  over: SweepAxis
  /** Load of every point besides the swept value; needs `requests` or `durationMs`. */
  load: SweepPointLoad
  saturation?: SaturationOptions
  between?: BetweenPoints
  /**
   * Called before each point; may return the target and run context that replace the current ones (a server
   * restarted on another port, or started with the point's argument). The bench harness starts servers with it.
   */
  beforePoint?: (point: SweepPointStart) => Promise<PointTarget | undefined>
  /** Live progress of the running point (requests done, elapsed, tokens), as `BenchmarkOptions.onProgress` gives it. */
  onPointProgress?: (point: SweepPointStart, progress: Progress) => void
  /** Called after each point with its outcome (progress reporting). */
  onPoint?: (point: SweepPoint) => void
}
