/** Outcome of one SLO limit: `inconclusive` when the figure was not measured (no GPU telemetry, no goodput option). */
export type SloStatus = 'pass' | 'fail' | 'inconclusive'

/** One limit of an SLO checked against a run. */
export interface SloCheck {
  /** What was limited: a metric (`ttftMs`), a throughput, `errors`, `goodput` or `gpu.<field>`. */
  metric: string
  /** The statistic (`p99`, `mean`), or the bound's name for throughputs, errors, GPU and goodput (`min`, `max`, `maxRate`). */
  statistic: string
  /** Whether the limit is an upper (`max`) or lower (`min`) bound. */
  bound: 'max' | 'min'
  limit: number
  /** The measured figure; `null` when it could not be measured. */
  measured: number | null
  /** Unit of `limit` and `measured`: `ms`, `tokens`, `tok/s`, `req/s`, `share`, `requests`, `MiB`, `W`, `%`, `J`. */
  unit: string
  /** Sample size behind `measured`: samples of the distribution, requests, or GPUs. */
  n: number
  status: SloStatus
  /**
   * A percentile of a latency: its distribution-free bounds at `confidence` (order statistics of the
   * run's samples), which decide the check: pass when `upper` is within the limit, fail when
   * `lower` is beyond it. A bound is null when the samples are too few to give one.
   */
  interval?: { lower: number | null; upper: number | null; confidence: number }
  /** When a percentile check is inconclusive: the samples a run like this one would need to decide. */
  needed?: number
  /** One sentence naming the metric, limit, measured value and sample size. */
  message: string
}
