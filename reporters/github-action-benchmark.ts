import { formatWithUnit } from './format-figures.ts'
import { checkOf, HEADLINE_FIGURES, type HeadlineFigure } from './headline-figures.ts'
import type { ReportEntry } from './report-entry.ts'
import { configSummary, environmentSummary } from './inventory.ts'

/** One data point in github-action-benchmark's `customSmallerIsBetter` / `customBiggerIsBetter` format. */
export interface GithubActionBenchmarkPoint {
  /** Series name, unique per bench and figure: `chat > steady load - TTFT p99`. */
  name: string
  unit: string
  value: number
  /** Tooltip text: sample size and the baseline comparison. */
  extra?: string
}

/** The two files github-action-benchmark reads (one `tool` each). */
export interface GithubActionBenchmarkOutput {
  /** For `tool: 'customSmallerIsBetter'`: latencies (ms), error rate, GPU memory and energy. */
  smallerIsBetter: GithubActionBenchmarkPoint[]
  /** For `tool: 'customBiggerIsBetter'`: throughputs. */
  biggerIsBetter: GithubActionBenchmarkPoint[]
}

/** Figures sent to dashboards: the ones a regression shows in, not every percentile. */
const DASHBOARD_FIGURES = new Set([
  'ttft_p50_ms',
  'ttft_p99_ms',
  'tpot_p50_ms',
  'tpot_p99_ms',
  'itl_p50_ms',
  'itl_p99_ms',
  'e2e_p50_ms',
  'e2e_p99_ms',
  'output_tokens_per_s',
  'requests_per_s',
  'total_tokens_per_s',
  'goodput_requests_per_s',
  'error_rate',
  'gpu_memory_peak_mib',
  'gpu_energy_per_output_token_j',
])

function pointOf(entry: ReportEntry, figure: HeadlineFigure, value: number): GithubActionBenchmarkPoint {
  const point: GithubActionBenchmarkPoint = { name: `${entry.name} - ${figure.label}`, unit: figure.unit, value }
  const extra: string[] = []
  const metric = figure.check?.metric
  if (metric && metric in entry.result.metrics) {
    const summary = entry.result.metrics[metric as keyof typeof entry.result.metrics]
    extra.push(`n=${summary?.count ?? 0}`)
  } else {
    extra.push(`n=${entry.result.counts.completed} requests`)
  }
  const check = figure.check ? checkOf(entry.verdict?.checks, figure.check.metric, figure.check.statistic) : undefined
  if (check) extra.push(`baseline ${formatWithUnit(check.baseline, check.unit)}, ${check.status}`)
  // The dashboard shows `extra` beside each point: what was measured, and on what, as every report carries.
  extra.push(configSummary(entry.result.config), environmentSummary(entry.result.environment))
  point.extra = extra.join('; ')
  return point
}

/**
 * The headline figures of every bench in github-action-benchmark's custom formats, so existing
 * dashboards take the numbers: write `smallerIsBetter` to one file (`tool: customSmallerIsBetter`)
 * and `biggerIsBetter` to another (`tool: customBiggerIsBetter`). Unmeasured figures are left out.
 */
export function toGithubActionBenchmark(entries: readonly ReportEntry[]): GithubActionBenchmarkOutput {
  const out: GithubActionBenchmarkOutput = { smallerIsBetter: [], biggerIsBetter: [] }
  for (const entry of entries) {
    for (const figure of HEADLINE_FIGURES) {
      if (!DASHBOARD_FIGURES.has(figure.id)) continue
      const value = figure.value(entry.result)
      if (value === undefined || !Number.isFinite(value)) continue
      ;(figure.better === 'smaller' ? out.smallerIsBetter : out.biggerIsBetter).push(pointOf(entry, figure, value))
    }
  }
  return out
}
