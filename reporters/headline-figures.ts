import type { LatencyMetric, ThroughputMetric } from '../src/core/baseline/index.ts'
import type { Check } from '../src/core/verdict/index.ts'
import type { BenchmarkResult, MetricSummary } from '../src/core/contract/result.ts'
import {
  LATENCIES,
  METRIC_CATALOG,
  THROUGHPUTS,
  type LatencyName,
  type ThroughputName,
} from '../src/core/contract/metric-catalog.ts'
import { figureOrDash, formatWithUnit } from './format-figures.ts'

/** A headline figure of a result: what the console, CSV, Markdown and dashboards show. */
export interface HeadlineFigure {
  /** Stable identifier, e.g. `ttft_p99_ms` (CSV column, dashboard series). */
  id: string
  /** Short label for tables, e.g. `TTFT p99`. */
  label: string
  /** Unit of {@link value}. */
  unit: string
  /** `smaller` when a lower value is better (latencies, errors), `bigger` otherwise. */
  better: 'smaller' | 'bigger'
  /** The figure; undefined when the run did not measure it (no GPU, no streamed token). */
  value(result: BenchmarkResult): number | undefined
  /** The baseline check that compares this figure, if one can. */
  check?: { metric: LatencyMetric | ThroughputMetric; statistic: Check['statistic'] }
}

/** One latency a result reports (count > 0), with its label; `judged` when a baseline can check it. */
export interface ReportedLatency {
  metric: LatencyName
  label: string
  summary: MetricSummary
  judged: boolean
}

/**
 * Every latency the result reports, in the catalog's order: TTFT, TTFO, TPOT, ITL, ITL per token, E2E (those
 * measured). ITL per token only where it says more than ITL.
 */
export function reportedLatencies(result: BenchmarkResult): ReportedLatency[] {
  const out: ReportedLatency[] = []
  for (const metric of LATENCIES) {
    const summary = result.metrics[metric]
    if (summary === undefined || summary.count === 0) continue
    if (metric === 'itlPerTokenMs' && !perTokenDiffers(result)) continue
    const { label, gateable } = METRIC_CATALOG[metric]
    out.push({ metric, label, summary, judged: gateable })
  }
  return out
}

/**
 * True when ITL per token says more than ITL: some chunk carried several tokens. Where every chunk
 * is one token (llama.cpp, the simulator) the two are the same intervals, and one row says it.
 */
function perTokenDiffers(result: BenchmarkResult): boolean {
  const { itlMs, itlPerTokenMs } = result.metrics
  if (itlPerTokenMs === undefined) return false
  return (
    itlPerTokenMs.count !== itlMs.count ||
    itlPerTokenMs.mean !== itlMs.mean ||
    itlPerTokenMs.p50 !== itlMs.p50 ||
    itlPerTokenMs.p99 !== itlMs.p99
  )
}

/**
 * One line on reasoning, tool calls and per-token timing, or undefined when the result has none: TTFO
 * beside TTFT (their difference is the thinking time), reasoning tokens, the replies that called a
 * tool, per-token ITL beside per-chunk ITL.
 */
export function tokenTimingLine(result: BenchmarkResult): string | undefined {
  const m = result.metrics
  const parts: string[] = []
  if (m.ttfoMs !== undefined && m.ttfoMs.count > 0) {
    parts.push(
      `TTFO p50 ${formatWithUnit(m.ttfoMs.p50, 'ms')}, p99 ${formatWithUnit(m.ttfoMs.p99, 'ms')} (TTFT p50 ${formatWithUnit(m.ttftMs.p50, 'ms')}: reasoning counts in TTFT, not in TTFO)`,
    )
  }
  if (m.reasoningTokens !== undefined && m.reasoningTokens.count > 0)
    parts.push(
      `reasoning tokens mean ${formatWithUnit(m.reasoningTokens.mean, 'tok')} of ${formatWithUnit(m.outputTokens.mean, 'tok')} output`,
    )
  if (m.itlPerTokenMs !== undefined && m.itlPerTokenMs.count > 0 && perTokenDiffers(result)) {
    parts.push(
      `ITL per token p50 ${formatWithUnit(m.itlPerTokenMs.p50, 'ms')}, p99 ${formatWithUnit(m.itlPerTokenMs.p99, 'ms')} (per chunk p50 ${formatWithUnit(m.itlMs.p50, 'ms')})`,
    )
  }
  const structured = result.streaming.structuredOutput
  if (structured !== undefined)
    parts.push(
      `structured output valid in ${structured.valid} of ${structured.checked} replies (${structured.notJson} not JSON, ${structured.schemaMismatch} breaking the schema)`,
    )
  const toolCalls = result.streaming.toolCallRequests
  if (toolCalls !== undefined && toolCalls > 0)
    parts.push(`tool calls in ${toolCalls} of ${result.counts.completed} replies (their arguments are output)`)
  return parts.length > 0 ? parts.join('; ') : undefined
}

/** Throughputs in report order, with their display names and units. */
export const THROUGHPUT_LABELS: ReadonlyArray<{ metric: ThroughputName; label: string; unit: string }> =
  THROUGHPUTS.map((metric) => ({ metric, label: METRIC_CATALOG[metric].label, unit: METRIC_CATALOG[metric].unit }))

/**
 * The throughput a bench is read by: output tokens/s, or for the embeddings and rerank APIs (no
 * output) their tokens/s, all input (`totalTokensPerSec`, what their default gates judge).
 */
export function mainThroughput(result: BenchmarkResult): {
  metric: ThroughputMetric
  label: string
  value: number
  /** The figure for an `output tok/s` column: marked `input` for embeddings and rerank. */
  columnText: string
} {
  if (result.throughput.inputsPerSec !== undefined) {
    const value = result.throughput.totalTokensPerSec
    return { metric: 'totalTokensPerSec', label: 'input tokens/s', value, columnText: `${figureOrDash(value)} input` }
  }
  const value = result.throughput.outputTokensPerSec
  return { metric: 'outputTokensPerSec', label: 'output tokens/s', value, columnText: figureOrDash(value) }
}

function latencyFigure(metric: LatencyName, statistic: 'p50' | 'p90' | 'p99' | 'mean'): HeadlineFigure {
  const { id, label, gateable } = METRIC_CATALOG[metric]
  return {
    id: `${id}_${statistic}_ms`,
    label: `${label} ${statistic}`,
    unit: 'ms',
    better: 'smaller',
    value: (result) => {
      const summary = result.metrics[metric]
      return summary !== undefined && summary.count > 0 ? summary[statistic] : undefined
    },
    ...(gateable ? { check: { metric, statistic } } : {}),
  }
}

/** Largest value of a GPU field over the GPUs, or undefined when none sampled it. */
function gpuMax(
  result: BenchmarkResult,
  field: 'memoryPeakMiB' | 'powerPeakW' | 'powerMeanW' | 'utilizationMeanPct',
): number | undefined {
  const values = (result.gpu?.gpus ?? [])
    .map((gpu) => gpu[field])
    .filter((value): value is number => typeof value === 'number')
  return values.length > 0 ? Math.max(...values) : undefined
}

/** Energy per output token over all GPUs, joules: the sum of each GPU's share. */
function energyPerToken(result: BenchmarkResult): number | undefined {
  const values = (result.gpu?.gpus ?? [])
    .map((gpu) => gpu.energyPerOutputTokenJ)
    .filter((value): value is number => typeof value === 'number')
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) : undefined
}

/** Every headline figure, in the order the CSV and dashboards list them. */
export const HEADLINE_FIGURES: readonly HeadlineFigure[] = [
  // The latencies every result reports (those reported only where measured would leave columns empty).
  ...LATENCIES.filter((metric) => METRIC_CATALOG[metric].reported === 'always').flatMap((metric) =>
    (['p50', 'p90', 'p99', 'mean'] as const).map((statistic) => latencyFigure(metric, statistic)),
  ),
  ...THROUGHPUTS.map((metric): HeadlineFigure => {
    const { id, label, unit, gateable } = METRIC_CATALOG[metric]
    return {
      id,
      label,
      unit,
      better: 'bigger',
      value: (result) => result.throughput[metric],
      ...(gateable ? { check: { metric, statistic: 'value' as const } } : {}),
    }
  }),
  // The embeddings and rerank APIs (undefined for the generation APIs).
  {
    id: 'inputs_per_s',
    label: 'texts/s',
    unit: 'texts/s',
    better: 'bigger',
    value: (result) => result.throughput.inputsPerSec,
  },
  {
    id: 'input_tokens_per_s',
    label: 'input tokens/s',
    unit: 'tok/s',
    better: 'bigger',
    value: (result) => result.throughput.inputTokensPerSec,
  },
  {
    id: 'goodput_requests_per_s',
    label: 'goodput req/s',
    unit: 'req/s',
    better: 'bigger',
    value: (result) => result.goodput?.requestsPerSec,
  },
  {
    id: 'error_rate',
    label: 'error rate',
    unit: 'share',
    better: 'smaller',
    value: (result) => (result.counts.total > 0 ? result.counts.failed / result.counts.total : 0),
  },
  {
    id: 'gpu_memory_peak_mib',
    label: 'GPU peak memory',
    unit: 'MiB',
    better: 'smaller',
    value: (result) => gpuMax(result, 'memoryPeakMiB'),
  },
  {
    id: 'gpu_power_peak_w',
    label: 'GPU peak power',
    unit: 'W',
    better: 'smaller',
    value: (result) => gpuMax(result, 'powerPeakW'),
  },
  { id: 'gpu_energy_per_output_token_j', label: 'energy/token', unit: 'J', better: 'smaller', value: energyPerToken },
]

/** The verdict's check of one metric and statistic, if the bench compared it. */
export function checkOf(checks: readonly Check[] | undefined, metric: string, statistic: string): Check | undefined {
  return checks?.find((check) => check.metric === metric && check.statistic === statistic)
}

/** GPU peak memory (MiB, largest over GPUs) and energy per output token (J, all GPUs), when sampled. */
export function gpuHeadline(result: BenchmarkResult): {
  memoryPeakMiB?: number
  energyPerOutputTokenJ?: number
  powerPeakW?: number
} {
  const out: { memoryPeakMiB?: number; energyPerOutputTokenJ?: number; powerPeakW?: number } = {}
  const memory = gpuMax(result, 'memoryPeakMiB')
  if (memory !== undefined) out.memoryPeakMiB = memory
  const energy = energyPerToken(result)
  if (energy !== undefined) out.energyPerOutputTokenJ = energy
  const power = gpuMax(result, 'powerPeakW')
  if (power !== undefined) out.powerPeakW = power
  return out
}

/** Label of a verdict check for tables: `TTFT p99`, `output tokens/s`. */
export function checkLabel(check: Pick<Check, 'metric' | 'statistic'>): string {
  const { label } = METRIC_CATALOG[check.metric]
  return check.statistic === 'value' ? label : `${label} ${check.statistic}`
}
