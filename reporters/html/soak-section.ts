import type { BenchmarkResult, SoakResult, SoakWindow } from '../../src/core/contract/result.ts'
import { formatTrend, soakFigureLabel } from '../../src/core/soak/index.ts'
import { escapeHtml } from './escape-html.ts'
import { htmlTable } from './html-table.ts'
import { renderLineChart, type ChartPoint } from './svg-chart.ts'

const MS_PER_MINUTE = 60_000

/** A window's figure at its middle, in minutes from the start; windows without the figure are left out. */
function points(windows: readonly SoakWindow[], read: (w: SoakWindow) => number | undefined): ChartPoint[] {
  const out: ChartPoint[] = []
  for (const w of windows) {
    const y = read(w)
    if (y !== undefined && Number.isFinite(y)) out.push({ x: (w.startMs + w.endMs) / 2 / MS_PER_MINUTE, y })
  }
  return out
}

function checksTable(soak: SoakResult): string {
  const rows = soak.checks.map((check) => [
    escapeHtml(soakFigureLabel(check.figure)),
    escapeHtml(check.limit),
    escapeHtml(check.reason),
    `<span class="status-${check.verdict}">${escapeHtml(check.verdict)}</span>`,
  ])
  for (const failure of soak.recovery?.failures ?? []) {
    rows.push(['after the load', '', escapeHtml(failure), '<span class="status-fail">fail</span>'])
  }
  const judged = new Set(soak.checks.map((c) => c.figure))
  for (const trend of soak.trends.filter((t) => !judged.has(t.figure))) {
    rows.push([escapeHtml(soakFigureLabel(trend.figure)), '-', escapeHtml(formatTrend(trend)), 'not judged'])
  }
  return htmlTable(['figure', 'limit', 'trend per hour [95 % interval]', 'verdict'], rows)
}

/**
 * A soak's section: its limits and trends, then its windows over time (latencies, throughput, and
 * what other work and GPU memory did), so a trend can be seen, not only read.
 */
export function soakSection(result: BenchmarkResult): string {
  const soak = result.soak
  if (!soak) return ''
  const { windows } = soak
  const window = `one point per ${(soak.windowMs / 1000).toFixed(0)} s window`
  const charts = [
    renderLineChart(
      [
        { name: 'TTFT p50', points: points(windows, (w) => w.ttftMs?.p50) },
        { name: 'TTFT p99', points: points(windows, (w) => w.ttftMs?.p99), dashed: true },
        { name: 'E2E p50', points: points(windows, (w) => w.e2eMs?.p50) },
      ],
      { id: 'soak-latency', title: 'Latency per soak window', xLabel: 'minutes', yLabel: 'ms', xMin: 0, note: window },
    ),
    renderLineChart([{ name: 'output tokens/s', points: points(windows, (w) => w.outputTokensPerSec) }], {
      id: 'soak-throughput',
      title: 'Output tokens per second per soak window',
      xLabel: 'minutes',
      yLabel: 'tokens/s',
      xMin: 0,
      note: window,
    }),
  ]
  const otherWork = points(windows, (w) => w.otherCores)
  if (otherWork.length > 0) {
    charts.push(
      renderLineChart([{ name: 'cores used by other work', points: otherWork, step: true }], {
        id: 'soak-other-work',
        title: 'Other work on the machine per soak window',
        xLabel: 'minutes',
        yLabel: 'cores',
        xMin: 0,
        note: soak.machineChange ?? 'the same in both halves of the soak',
      }),
    )
  }
  const memory = points(windows, (w) => w.gpuMemoryMiB)
  if (memory.length > 0) {
    charts.push(
      renderLineChart([{ name: 'GPU memory (largest)', points: memory }], {
        id: 'soak-gpu-memory',
        title: 'GPU memory per soak window',
        xLabel: 'minutes',
        yLabel: 'MiB',
        xMin: 0,
        note: 'the largest sample of each window, summed over GPUs',
      }),
    )
  }
  return [
    `<h3>Soak: <span class="status-${soak.verdict}">${escapeHtml(soak.verdict)}</span></h3>`,
    `<p class="facts">${escapeHtml(`${windows.length} windows of ${(soak.windowMs / 1000).toFixed(0)} s; trends by Theil-Sen's slope with Sen's 95 % interval, per hour`)}</p>`,
    checksTable(soak),
    `<div class="charts">${charts.join('')}</div>`,
  ].join('')
}
