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
  /** One sentence naming the metric, limit, measured value and sample size. */
  message: string
}
