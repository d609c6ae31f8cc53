import type { Check, LatencyMetric, ThroughputMetric } from '../src/core/baseline/index.ts'
import type { BenchmarkResult, MetricSummary } from '../src/core/contract/types.ts'
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

/** Latency metrics in report order, with their display names. */
export const LATENCY_LABELS: ReadonlyArray<{ metric: LatencyMetric; label: string }> = [
  { metric: 'ttftMs', label: 'TTFT' },
  { metric: 'tpotMs', label: 'TPOT' },
  { metric: 'itlMs', label: 'ITL' },
  { metric: 'e2eMs', label: 'E2E' },
]

/** Latencies a result has only where measured, each shown after the metric it refines; no baseline judges them. */
const MEASURED_LATENCY_LABELS: ReadonlyArray<{
  metric: 'ttfoMs' | 'itlPerTokenMs'
  label: string
  after: LatencyMetric
}> = [
  // Streams with reasoning: time to the first answer token.
  { metric: 'ttfoMs', label: 'TTFO', after: 'ttftMs' },
  // Usage in every chunk: exact tokens per chunk.
  { metric: 'itlPerTokenMs', label: 'ITL per token', after: 'itlMs' },
]

/** One latency a result reports (count > 0), with its label; `judged` when a baseline can check it. */
export interface ReportedLatency {
  metric: LatencyMetric | 'ttfoMs' | 'itlPerTokenMs'
  label: string
  summary: MetricSummary
  judged: boolean
}

/** Every latency the result reports, in report order: TTFT, TTFO, TPOT, ITL, ITL per token, E2E (those measured). */
export function reportedLatencies(result: BenchmarkResult): ReportedLatency[] {
  const out: ReportedLatency[] = []
  for (const { metric, label } of LATENCY_LABELS) {
    const summary = result.metrics[metric]
    if (summary.count > 0) out.push({ metric, label, summary, judged: true })
    for (const extra of MEASURED_LATENCY_LABELS) {
      const measured = extra.after === metric ? result.metrics[extra.metric] : undefined
      if (measured !== undefined && measured.count > 0 && (extra.metric !== 'itlPerTokenMs' || perTokenDiffers(result)))
        out.push({ metric: extra.metric, label: extra.label, summary: measured, judged: false })
    }
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
export const THROUGHPUT_LABELS: ReadonlyArray<{ metric: ThroughputMetric; label: string; unit: string }> = [
  { metric: 'outputTokensPerSec', label: 'output tokens/s', unit: 'tok/s' },
  { metric: 'requestsPerSec', label: 'requests/s', unit: 'req/s' },
  { metric: 'totalTokensPerSec', label: 'total tokens/s', unit: 'tok/s' },
]

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

const LATENCY_IDS: Record<LatencyMetric, string> = { ttftMs: 'ttft', tpotMs: 'tpot', itlMs: 'itl', e2eMs: 'e2e' }
const THROUGHPUT_IDS: Record<ThroughputMetric, string> = {
  outputTokensPerSec: 'output_tokens_per_s',
  requestsPerSec: 'requests_per_s',
  totalTokensPerSec: 'total_tokens_per_s',
}

function latencyFigure(
  metric: LatencyMetric,
  label: string,
  statistic: 'p50' | 'p90' | 'p99' | 'mean',
): HeadlineFigure {
  return {
    id: `${LATENCY_IDS[metric]}_${statistic}_ms`,
    label: `${label} ${statistic}`,
    unit: 'ms',
    better: 'smaller',
    value: (result) => (result.metrics[metric].count > 0 ? result.metrics[metric][statistic] : undefined),
    check: { metric, statistic },
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
  ...LATENCY_LABELS.flatMap(({ metric, label }) =>
    (['p50', 'p90', 'p99', 'mean'] as const).map((statistic) => latencyFigure(metric, label, statistic)),
  ),
  ...THROUGHPUT_LABELS.map(({ metric, label, unit }): HeadlineFigure => ({
    id: THROUGHPUT_IDS[metric],
    label,
    unit,
    better: 'bigger',
    value: (result) => result.throughput[metric],
    check: { metric, statistic: 'value' },
  })),
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
  const latency = LATENCY_LABELS.find((candidate) => candidate.metric === check.metric)
  if (latency) return check.statistic === 'value' ? latency.label : `${latency.label} ${check.statistic}`
  const throughput = THROUGHPUT_LABELS.find((candidate) => candidate.metric === check.metric)
  const label = throughput?.label ?? check.metric
  return check.statistic === 'value' ? label : `${label} ${check.statistic}`
}
