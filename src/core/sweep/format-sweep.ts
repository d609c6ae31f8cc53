import { THROUGHPUT_LABEL } from './check-sweep.ts'
import { axisLabelOf, type SweepResult } from './sweep-result.ts'

function cell(value: number): string {
  const abs = Math.abs(value)
  return abs >= 1000 ? value.toFixed(0) : abs >= 100 ? value.toFixed(1) : value.toFixed(2)
}

const KNEE_LEGEND = '<- knee: where output throughput stops rising (no later point gains more than the minimum gain)'
const RISING_KNEE_LEGEND =
  '<- knee (still rising): the last point; throughput still rose there, so the knee lies at or beyond it'
const INVALID_LEGEND =
  '(invalid): the point missed a latency limit or had too many failed requests (see the checks); it does not count as capacity'

const CAPACITY_LEGEND = '<- capacity: the highest rate tried that met the limits (the capacity headline)'

/** The latency quantile a sweep's tables show beside p50: a capacity search's limits' own (p90 or p99), else p99. */
export function shownTailOf(result: Pick<SweepResult, 'kind' | 'capacity'>): 'p90' | 'p99' {
  return result.kind === 'capacity' && result.capacity?.percentile === 0.9 ? 'p90' : 'p99'
}

/**
 * The curve as a plain-text table, one row per point (throughputs per second, latencies in ms): p50 and p99 of
 * each latency, or p90 where a capacity search's limits are at p90. A sweep marks its knee `<- knee`, a capacity
 * search its capacity `<- capacity` (its knee is not its answer); invalid points `(invalid)`. For assertion
 * messages and logs.
 */
export function formatSweepTable(result: SweepResult): string {
  const tail = shownTailOf(result)
  const header = [
    result.axis === 'rate' ? 'rate/s' : result.axis === 'concurrency' ? 'conc' : axisLabelOf(result),
    'out tok/s',
    'req/s',
    'TTFT p50',
    `TTFT ${tail}`,
    'TPOT p50',
    `TPOT ${tail}`,
    'E2E p50',
    `E2E ${tail}`,
    'ok',
    'failed',
  ]
  const rows = result.curve.map((point) => [
    Number.isInteger(point.value) ? String(point.value) : cell(point.value),
    cell(point.outputTokensPerSec),
    cell(point.requestsPerSec),
    cell(point.ttftMs.p50),
    cell(point.ttftMs[tail]),
    cell(point.tpotMs.p50),
    cell(point.tpotMs[tail]),
    cell(point.e2eMs.p50),
    cell(point.e2eMs[tail]),
    String(point.completed),
    String(point.failed),
  ])
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)))
  const line = (cells: string[]) => cells.map((text, i) => text.padStart(widths[i] ?? 0)).join('  ')
  const lines = [line(header)]
  const legend = new Set<string>()
  const capacityRate = result.kind === 'capacity' ? result.capacity?.rate : undefined
  result.curve.forEach((point, i) => {
    const marks: string[] = []
    if (result.kind === 'capacity') {
      if (capacityRate !== undefined && point.value === capacityRate) {
        marks.push('<- capacity')
        legend.add(CAPACITY_LEGEND)
      }
    } else if (result.knee && point.value === result.knee.value) {
      marks.push(result.knee.saturated ? '<- knee' : '<- knee (still rising)')
      legend.add(result.knee.saturated ? KNEE_LEGEND : RISING_KNEE_LEGEND)
    }
    if (point.valid === false) {
      marks.push('(invalid)')
      legend.add(INVALID_LEGEND)
    }
    lines.push(`${line(rows[i] ?? [])}${marks.length ? `  ${marks.join(' ')}` : ''}`)
  })
  // What the marks mean, under the table, for the marks it uses.
  return [...lines, ...legend].join('\n')
}

/** One line per headline: knee, capacity, scenario. */
export function formatSweepHeadlines(result: SweepResult): string[] {
  const lines: string[] = []
  if (result.scenario) lines.push(result.scenario.summary)
  if (result.capacity && result.kind === 'capacity') {
    const { rate, failedRate, constraint } = result.capacity
    lines.push(
      rate === undefined
        ? `capacity: no rate tried met ${constraint}`
        : `capacity: ${cell(rate)} req/s with ${constraint}${failedRate === undefined ? ' (every rate tried met it)' : `; ${cell(failedRate)} req/s did not`}`,
    )
  }
  if (result.knee && result.kind === 'sweep') {
    const { value, throughput, saturated, minGain, metric } = result.knee
    lines.push(
      saturated
        ? `knee: ${axisLabelOf(result)} ${value} (${cell(throughput)} ${THROUGHPUT_LABEL[metric]}; no later point gains more than ${(minGain * 100).toFixed(0)} %)`
        : `knee: not reached; throughput still rising at ${axisLabelOf(result)} ${value}`,
    )
  }
  return lines
}
