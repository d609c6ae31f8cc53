/**
 * The catalog of the client's metrics: one entry per figure of `BenchmarkResult.metrics` and of the
 * run-level throughputs a verdict reads, with its unit, histogram, label, direction and what may
 * judge it (AIPerf's metric classes: one entry per metric, its tag, unit and flags). Every list of
 * metrics is derived from it: what a baseline keeps, what a regression policy (`baseline: { ... }`)
 * and an SLO (`slo: { ... }`) accept, the histograms a result carries and a merge adds, the labels
 * of the reports. An entry added here is stored, gated and limited with no other list touched.
 *
 * The server's own figures (`ServerMetrics`) have their own table (`server/metrics/server-figures.ts`).
 */

/** Latencies are recorded in integer microseconds, so 1 µs is the finest step. */
export const LATENCY_UNITS_PER_MS = 1000

/** What the catalog says of one metric. */
export interface MetricInfo {
  /**
   * `latency`: a per-request distribution, ms (its histogram in µs); `tokens`: a per-request token
   * count; `throughput`: a run-level rate, per second.
   */
  readonly kind: 'latency' | 'tokens' | 'throughput'
  /** Unit of its figures. */
  readonly unit: 'ms' | 'tokens' | 'tok/s' | 'req/s'
  /** Its name for people (tables, verdict lines), e.g. `TTFT`, `output tokens/s`. */
  readonly label: string
  /** Stem of its stable identifiers (CSV columns, dashboard series), e.g. `ttft` of `ttft_p99_ms`. */
  readonly id: string
  /** Which way is better: `lower` (latencies), `higher` (throughputs), `neither` (token counts: the workload's). */
  readonly better: 'lower' | 'higher' | 'neither'
  /** Key of its encoded histogram in `BenchmarkResult.histograms` and `BaselineEntry.histograms`; null: none kept. */
  readonly histogram: `${string}Us` | null
  /**
   * Integer units its distribution records per unit of the figure: {@link LATENCY_UNITS_PER_MS} for a
   * latency (histograms in µs), 1 for a token count; null for a throughput (one figure per run).
   */
  readonly unitsPerValue: number | null
  /** What one sample is (the `n` of its checks): a request, a gap between events, a token; null for a throughput. */
  readonly samples: 'requests' | 'gaps' | 'tokens' | null
  /** `always`: every result has it; `measured`: only a run that could measure it has it (an optional field). */
  readonly reported: 'always' | 'measured'
  /** For a `measured` metric: why a result lacks it and what to do, for the checks that find it absent. */
  readonly whenAbsent?: string
  /** Whether a regression policy (`baseline: { ... }`) may gate it, relative to a stored baseline or a control. */
  readonly gateable: boolean
  /** Whether an SLO (`slo: { ... }`) may limit it (a maximum per statistic, or a throughput's min and max). */
  readonly slo: boolean
}

const latency = {
  kind: 'latency',
  unit: 'ms',
  better: 'lower',
  unitsPerValue: LATENCY_UNITS_PER_MS,
  gateable: true,
  slo: true,
} as const

const tokenCount = {
  kind: 'tokens',
  unit: 'tokens',
  better: 'neither',
  histogram: null,
  unitsPerValue: 1,
  samples: 'requests',
  gateable: false,
} as const

const throughput = {
  kind: 'throughput',
  better: 'higher',
  histogram: null,
  unitsPerValue: null,
  samples: null,
  reported: 'always',
  gateable: true,
  slo: true,
} as const

/**
 * Every client-side metric, in report order (a verdict's checks and a report's rows follow it).
 * Each entry's comment is the documentation of its option in `baseline` and `slo`.
 */
export const METRIC_CATALOG = {
  /** Time to first token, ms: send to the first event with output, reasoning included. */
  ttftMs: {
    ...latency,
    label: 'TTFT',
    id: 'ttft',
    histogram: 'ttftUs',
    samples: 'requests',
    reported: 'always',
  },
  /**
   * Time to first output, ms: send to the first event with output that is not reasoning (for a
   * reasoning model, TTFO − TTFT is its thinking time). Reported only when some stream carried
   * reasoning; otherwise it equals TTFT.
   */
  ttfoMs: {
    ...latency,
    label: 'TTFO',
    id: 'ttfo',
    histogram: 'ttfoUs',
    samples: 'requests',
    reported: 'measured',
    whenAbsent:
      'no streamed reply carried reasoning, so TTFO equals TTFT and is not reported (for such a model, use ttftMs)',
  },
  /** Time per output token after the first, ms: (E2E − TTFT) / (output tokens − 1). */
  tpotMs: {
    ...latency,
    label: 'TPOT',
    id: 'tpot',
    histogram: 'tpotUs',
    samples: 'requests',
    reported: 'always',
  },
  /** Inter-token latency, ms: the gaps between consecutive content-bearing events (per chunk). */
  itlMs: {
    ...latency,
    label: 'ITL',
    id: 'itl',
    histogram: 'itlUs',
    samples: 'gaps',
    reported: 'always',
  },
  /**
   * Inter-token latency per token, ms: each chunk's gap divided among the tokens it carried, counted
   * exactly from usage in every chunk. Reported only when the server sent that usage.
   */
  itlPerTokenMs: {
    ...latency,
    label: 'ITL per token',
    id: 'itl_per_token',
    histogram: 'itlPerTokenUs',
    samples: 'tokens',
    reported: 'measured',
    whenAbsent: 'it needs usage in every chunk (target.continuousUsageStats), which no streamed reply carried',
  },
  /** End-to-end latency, ms: send to the last content-bearing event. */
  e2eMs: {
    ...latency,
    label: 'E2E',
    id: 'e2e',
    histogram: 'e2eUs',
    samples: 'requests',
    reported: 'always',
  },
  /** Output tokens per request. */
  outputTokens: { ...tokenCount, label: 'output tokens', id: 'output_tokens', reported: 'always', slo: true },
  /** Input tokens per request. */
  inputTokens: { ...tokenCount, label: 'input tokens', id: 'input_tokens', reported: 'always', slo: true },
  /** Reasoning tokens per request (part of the output tokens), where the server reported them. */
  reasoningTokens: {
    ...tokenCount,
    label: 'reasoning tokens',
    id: 'reasoning_tokens',
    reported: 'measured',
    whenAbsent: 'the server reported no reasoning tokens (usage.completion_tokens_details.reasoning_tokens)',
    slo: false,
  },
  /** Output tokens of completed requests per second of the run (run level). */
  outputTokensPerSec: { ...throughput, unit: 'tok/s', label: 'output tokens/s', id: 'output_tokens_per_s' },
  /** Completed requests per second of the run (run level). */
  requestsPerSec: { ...throughput, unit: 'req/s', label: 'requests/s', id: 'requests_per_s' },
  /** Input plus output tokens of completed requests per second of the run (run level). */
  totalTokensPerSec: { ...throughput, unit: 'tok/s', label: 'total tokens/s', id: 'total_tokens_per_s' },
} as const satisfies Record<string, MetricInfo>

type Catalog = typeof METRIC_CATALOG

/** The name of a catalog metric, e.g. `ttftMs`. */
export type MetricName = keyof Catalog

/** The names of the catalog's metrics whose entry has the fields of `Where`, e.g. `{ kind: 'latency' }`. */
export type MetricsWhere<Where> = { [M in MetricName]: Catalog[M] extends Where ? M : never }[MetricName]

/** Every latency, ms. */
export type LatencyName = MetricsWhere<{ kind: 'latency' }>
/** The per-request distributions: latencies and token counts. */
export type DistributionName = MetricsWhere<{ kind: 'latency' | 'tokens' }>
/** Every run-level throughput, per second. */
export type ThroughputName = MetricsWhere<{ kind: 'throughput' }>
/** Latencies a regression policy may gate (and a baseline keeps), ms. */
export type GateableLatency = MetricsWhere<{ kind: 'latency'; gateable: true }>
/** Throughputs a regression policy may gate, per second. */
export type GateableThroughput = MetricsWhere<{ kind: 'throughput'; gateable: true }>
/** Distributions an SLO may limit. */
export type SloDistribution = MetricsWhere<{ kind: 'latency' | 'tokens'; slo: true }>
/** Throughputs an SLO may bound, per second. */
export type SloThroughput = MetricsWhere<{ kind: 'throughput'; slo: true }>
/** A key of `BenchmarkResult.histograms`: an encoded HDR histogram of a latency, µs. */
export type HistogramKey = NonNullable<Catalog[MetricName]['histogram']>

/**
 * One `Value` per metric of `Names`, with the catalog's documentation: required for a metric every
 * result reports, optional for one reported only where measured.
 */
export type PerMetric<Names extends MetricName, Value> = {
  [M in keyof Catalog as M extends Names ? (Catalog[M] extends { reported: 'always' } ? M : never) : never]: Value
} & {
  [M in keyof Catalog as M extends Names ? (Catalog[M] extends { reported: 'measured' } ? M : never) : never]?: Value
}

/** One optional `Value` per metric of `Names`, with the catalog's documentation (an option per metric). */
export type OptionPerMetric<Names extends MetricName, Value> = {
  [M in keyof Catalog as M extends Names ? M : never]?: Value
}

/** Why a result lacks `metric` (one reported only where measured), for a check that finds it absent. */
export function whyAbsent(metric: MetricName): string {
  return (METRIC_CATALOG[metric] as MetricInfo).whenAbsent ?? 'the run did not report it'
}

/** The catalog's metrics whose entry has the fields of `where`, in catalog order. */
function metricsWhere<const Where extends Partial<MetricInfo>>(where: Where): ReadonlyArray<MetricsWhere<Where>> {
  const wanted = Object.entries(where)
  return (Object.keys(METRIC_CATALOG) as MetricName[]).filter((name): name is MetricsWhere<Where> =>
    wanted.every(([field, value]) => (METRIC_CATALOG[name] as MetricInfo)[field as keyof MetricInfo] === value),
  )
}

/** Every latency, in catalog order. */
export const LATENCIES = metricsWhere({ kind: 'latency' })
/** Every per-request token count, in catalog order. */
export const TOKEN_COUNTS = metricsWhere({ kind: 'tokens' })
/** Every run-level throughput, in catalog order. */
export const THROUGHPUTS = metricsWhere({ kind: 'throughput' })
/** The latencies a regression policy accepts and a baseline keeps, in catalog order. */
export const GATEABLE_LATENCIES = metricsWhere({ kind: 'latency', gateable: true })
/** The throughputs a regression policy accepts, in catalog order. */
export const GATEABLE_THROUGHPUTS = metricsWhere({ kind: 'throughput', gateable: true })
/** The distributions an SLO accepts: latencies, then token counts, each in catalog order. */
export const SLO_DISTRIBUTIONS: ReadonlyArray<SloDistribution> = [
  ...metricsWhere({ kind: 'latency', slo: true }),
  ...metricsWhere({ kind: 'tokens', slo: true }),
]
/** The throughputs an SLO accepts, in catalog order. */
export const SLO_THROUGHPUTS = metricsWhere({ kind: 'throughput', slo: true })
