// The HTML report's charts and sweep sections say what the data says (issue 31, item 6): a timeline
// over the span it covers, the sweep's answer, one section per sweep, round distinct ticks on a
// one-point chart, labels that do not overlap, a small share on an axis scaled to it.
import { describe, expect, test } from 'vitest'
import { renderHtml, type ReportEntry } from '../../reporters/index.ts'
import { timelineSpan } from '../../reporters/html/html-report.ts'
import { renderCurveChart, type ChartPoint } from '../../reporters/html/svg-chart.ts'
import { sweepStatus, type SweepSummary } from '../../reporters/sweep-entry.ts'
import { renderConsoleSweep } from '../../reporters/console-table.ts'
import { runCounts, runTallyLine } from '../../reporters/run-counts.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { ServerMetrics } from '../../src/core/contract/server-metrics.ts'
import { reportEntries } from '../helpers/reporter-fixtures.ts'

/** The `<figure>` of chart `id` in `html`. */
function figure(html: string, id: string): string {
  const start = html.indexOf(`<figure class="chart" data-chart="${id}"`)
  expect(start, `chart ${id}`).toBeGreaterThanOrEqual(0)
  return html.slice(start, html.indexOf('</figure>', start))
}

/** Tick labels of a chart: the y axis (text-anchor end) or the x axis (middle, under the plot). */
function ticks(chart: string, axis: 'x' | 'y'): string[] {
  const anchor = axis === 'y' ? 'end" dominant-baseline="middle' : 'middle'
  return [
    ...chart.matchAll(
      new RegExp(`<text class="tick" x="[\\d.]+" y="[\\d.]+" text-anchor="${anchor}">([^<]*)</text>`, 'g'),
    ),
  ].map((match) => match[1]!)
}

/** The points of the first series of a chart, in SVG pixels. */
function pathPoints(chart: string): Array<[number, number]> {
  const d = /<path class="series"[^>]* d="([^"]*)"/.exec(chart)?.[1] ?? ''
  return [...d.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((match) => [Number(match[1]), Number(match[2])])
}

function steady(): ReportEntry {
  return reportEntries()[0]!
}

/** `result` as five trials of equal length: the summed duration, the last trial's timeline (as mergeTrials keeps). */
function fiveTrials(result: BenchmarkResult): BenchmarkResult {
  const trial = {
    durationMs: result.durationMs,
    latency: result.metrics,
    throughput: result.throughput,
  } as unknown as NonNullable<BenchmarkResult['trials']>[number]
  return { ...result, durationMs: result.durationMs * 5, trials: [trial, trial, trial, trial, trial] }
}

/** Server metrics whose only series of note is the KV-cache usage `kv` (shares), one scrape a second. */
function kvMetrics(kv: number[]): ServerMetrics {
  return {
    dialect: 'vllm',
    url: 'http://127.0.0.1:8000/metrics',
    intervalMs: 1000,
    scrapes: kv.length,
    failedScrapes: 0,
    series: {
      t: kv.map((_, index) => index * 1000),
      requestsRunning: kv.map(() => 1),
      requestsWaiting: kv.map(() => 0),
      kvCacheUsage: kv,
    },
    notes: [],
  } as unknown as ServerMetrics
}

describe('tokens over time of a bench of several trials', () => {
  test("charts the last trial's windows over that trial's own duration, labelled so", () => {
    const entry = steady()
    const result = fiveTrials(entry.result)
    const one = figure(renderHtml([entry]), 'tokens-over-time')
    const five = figure(renderHtml([{ ...entry, result }]), 'tokens-over-time')
    // The same windows over the same span: the last trial's, not stretched over the five trials' sum.
    expect(ticks(five, 'x')).toEqual(ticks(one, 'x'))
    expect(pathPoints(five)).toEqual(pathPoints(one))
    expect(five).toContain('Output tokens per second over time (last trial)')
    expect(five).toContain('the last of 5 trials')
    expect(figure(renderHtml([{ ...entry, result }]), 'in-flight-over-time')).toContain('(last trial)')
    // The server's gauges over time are the last trial's too (mergeServerSides), and say so.
    const metrics = kvMetrics([0.2, 0.3])
    const withServer = renderHtml([{ ...entry, result: { ...result, server: { metrics } } }])
    expect(figure(withServer, 'server-kv-cache')).toContain('KV-cache usage over time (last trial)')
    expect(timelineSpan(result).durationMs).toBe(entry.result.durationMs)
    expect(timelineSpan(entry.result)).toMatchObject({ durationMs: entry.result.durationMs, title: '' })
  })
})

/** A sweep of `values` (each point a copy of the steady bench with its own throughput) and its summary. */
function sweepOf(
  name: string,
  kind: SweepSummary['kind'],
  axis: string,
  values: readonly number[],
  extra: Partial<SweepSummary>,
): { points: ReportEntry[]; summary: SweepSummary } {
  const base = steady()
  const points = values.map((value, index) => ({
    ...base,
    name: `${name} [${axis}=${value}]`,
    state: 'passed' as const,
    result: {
      ...base.result,
      throughput: { ...base.result.throughput, outputTokensPerSec: 100 * (index + 1) },
      metrics: { ...base.result.metrics, ttftMs: { ...base.result.metrics.ttftMs, p99: 40 + index } },
    },
    sweep: { name, axis, value },
  }))
  const summary: SweepSummary = {
    name,
    file: 'benches/sweep.bench.ts',
    state: 'passed',
    kind,
    axis,
    headlines: [],
    checks: [],
    table: '',
    warnings: [],
    ...extra,
  }
  return { points, summary }
}

describe('sweeps in the HTML report', () => {
  const concurrency = Array.from({ length: 15 }, (_, index) => index + 1)
  const knee = sweepOf('chat > concurrency sweep', 'sweep', 'concurrency', concurrency, {
    headlines: ['knee: concurrency 8 (1234 output tokens/s; no later point gains more than 10 %)'],
    knee: {
      value: 8,
      throughput: 1234,
      metric: 'outputTokensPerSec',
      minGain: 0.1,
      saturated: true,
      peak: { value: 8, throughput: 1234 },
    },
    checks: [{ name: 'knee at concurrency >= 4', status: 'pass', message: 'knee at 8 >= 4' }],
  })
  const capacity = sweepOf('chat > capacity', 'capacity', 'rate', [4, 8, 6, 7], {
    headlines: ['capacity: 7 req/s with p99 TTFT <= 500 ms; 8 req/s did not'],
    capacity: { rate: 7, failedRate: 8, percentile: 0.9 } as SweepSummary['capacity'],
  })
  const scenario = sweepOf('chat > server scenario', 'scenario', 'rate', [5], {
    headlines: ['Server: 5 req/s max Poisson rate with p99 TTFT <= 500 ms (INVALID)'],
    scenario: { reasons: ['fewer than 459 queries: early stopping cannot decide'] } as SweepSummary['scenario'],
  })
  const entries = [steady(), ...knee.points, ...capacity.points, ...scenario.points]
  const html = renderHtml(entries, { sweeps: [knee.summary, capacity.summary, scenario.summary] })

  test("each sweep's answer is on the page: the knee, the capacity, the scenario's verdict and metric", () => {
    for (const headline of [knee, capacity, scenario].flatMap((sweep) => sweep.summary.headlines))
      // In the sweeps table at the top and in the sweep's own section.
      expect(html.split(headline.replace('<=', '&lt;='))).toHaveLength(3)
    expect(html).toContain('INVALID')
    expect(html).toContain('fewer than 459 queries: early stopping cannot decide')
    expect(html).toContain('knee at 8 &gt;= 4')
  })

  test('a sweep is one section, its points the rows of one table: not a card per point', () => {
    expect(html.match(/<section class="bench sweep"/g)).toHaveLength(3)
    // The one bench keeps its section and cards; no point has either.
    expect(html.match(/<section class="bench"/g)).toHaveLength(1)
    expect(html.match(/<div class="cards">/g)).toHaveLength(1)
    const section = html.slice(html.indexOf('id="sweep-1"'), html.indexOf('id="sweep-2"'))
    expect(section.match(/<tr><td class="num">\d+( <span class="answer-mark">← knee<\/span>)?<\/td>/g)).toHaveLength(15)
    expect(section).toContain('8 <span class="answer-mark">← knee</span>')
    const capacitySection = html.slice(html.indexOf('id="sweep-2"'), html.indexOf('id="sweep-3"'))
    expect(capacitySection).toContain('7 <span class="answer-mark">← capacity</span>')
    // The rate above the capacity missed the limits; those at or below it did not.
    expect(capacitySection.match(/<span class="missed">missed the limits<\/span>/g)).toHaveLength(1)
    expect(capacitySection).toContain('8 <span class="missed">missed the limits</span>')
    // Its limits are at p90: its table shows p90, where a sweep's shows p99.
    expect(capacitySection).toContain('<th class="num">TTFT p90</th>')
    expect(capacitySection).not.toContain('TTFT p99</th>')
    expect(section).toContain('<th class="num">TTFT p99</th>')
  })
})

describe("a sweep curve's caption", () => {
  test('names the point drawn in bold: the knee, the capacity; a sweep with neither names none', () => {
    const captionOf = (summary: SweepSummary, points: ReportEntry[]): string | undefined => {
      const curve = {
        sweep: summary.name,
        title: `${summary.name}: output tokens/s against TTFT p99`,
        xLabel: 'TTFT p99 (ms)',
        yLabel: 'output tokens/s',
        points: points.map((entry) => ({ x: 1, y: 2, label: `${entry.sweep?.axis} ${entry.sweep?.value}` })),
      }
      return /one marker per point[^<]*/.exec(renderHtml(points, { sweeps: [summary], curves: [curve] }))?.[0]
    }
    const knee = sweepOf('chat > knee', 'sweep', 'concurrency', [1, 2], {
      knee: {
        value: 2,
        throughput: 9,
        metric: 'outputTokensPerSec',
        minGain: 0.1,
        saturated: true,
        peak: { value: 2, throughput: 9 },
      },
    })
    const scenario = sweepOf('chat > single stream', 'scenario', 'concurrency', [1], {})
    expect(captionOf(knee.summary, knee.points)).toBe('one marker per point; the knee in bold')
    expect(captionOf(scenario.summary, scenario.points)).toBe('one marker per point')
  })
})

describe('a sweep recorded provisionally', () => {
  test('is inconclusive in every report, as a bench recorded so is; not a pass', () => {
    const recorded = sweepOf('chat > curve', 'sweep', 'concurrency', [1, 2], {
      checks: [
        { name: 'baseline', status: 'skip', message: 'recorded provisionally: the machine was disturbed (steal)' },
      ],
    })
    const provisional = { ...recorded.summary, baselineState: 'provisional' }
    expect(sweepStatus(recorded.summary)).toBe('pass')
    expect(sweepStatus(provisional)).toBe('inconclusive')
    expect(renderConsoleSweep(provisional).split('\n')[0]).toMatch(/^\? chat > curve/)
    expect(runTallyLine(runCounts([], [provisional, recorded.summary]), 0)).toBe(
      'LLM benches: none measured; sweeps: 1 inconclusive, 1 pass',
    )
    const html = renderHtml(recorded.points, { sweeps: [provisional] })
    expect(html).toContain('data-status="inconclusive"')
  })
})

describe('chart axes and labels', () => {
  test('a one-point chart has distinct round ticks around its point', () => {
    const chart = renderCurveChart([{ x: 1234.5, y: 987.6, label: 'rate 5' }], {
      title: 'One point',
      xLabel: 'TTFT p99 (ms)',
      yLabel: 'tok/s',
    })
    for (const axis of ['x', 'y'] as const) {
      const labels = ticks(chart, axis)
      expect(labels.length, axis).toBeGreaterThanOrEqual(3)
      expect(new Set(labels).size, `${axis}: ${labels.join(' ')}`).toBe(labels.length)
    }
    // The point is inside the plot, not on its edge.
    const [x] = /<circle class="marker" cx="([\d.]+)"/.exec(chart)!.slice(1).map(Number)
    expect(x).toBeGreaterThan(64 + 20)
    expect(x).toBeLessThan(540 - 20)
  })

  test("a capacity search's close points get labels that do not overlap; the capacity's is kept", () => {
    // A bisection: the last rates tried lie close together on the curve.
    const points: ChartPoint[] = [4, 8, 6, 7, 6.5, 6.75, 6.875].map((rate, index) => ({
      x: 100 + rate * 10 + index,
      y: 500 + rate * 20,
      label: `rate ${rate}`,
      ...(rate === 6.875 ? { emphasis: true } : {}),
    }))
    const chart = renderCurveChart(points, { title: 'Capacity', xLabel: 'ms', yLabel: 'tok/s' })
    const labels = [
      ...chart.matchAll(
        /<text class="marker-label[^"]*" x="([\d.]+)" y="([\d.]+)" text-anchor="(start|end)">([^<]*)</g,
      ),
    ].map((match) => {
      const width = match[4]!.length * 6.4
      const left = match[3] === 'start' ? Number(match[1]) : Number(match[1]) - width
      return { text: match[4]!, left, right: left + width, top: Number(match[2]) - 10, bottom: Number(match[2]) + 2 }
    })
    expect(labels.map((label) => label.text)).toContain('rate 6.875')
    for (const [i, a] of labels.entries())
      for (const b of labels.slice(i + 1))
        expect(
          a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom,
          `${a.text} / ${b.text}`,
        ).toBe(false)
    // Every point keeps its marker and tooltip; the labels left out are said.
    expect(chart.match(/<circle class="marker"/g)).toHaveLength(points.length)
    const left = points.length - labels.length
    expect(left).toBeGreaterThan(0)
    expect(chart).toContain(`${left} label${left === 1 ? '' : 's'} left out where points crowd`)
  })

  test('a KV cache 0.1 % in use is drawn on an axis scaled to it, with distinct ticks', () => {
    const entry = steady()
    const metrics = kvMetrics([0.0004, 0.001, 0.0009, 0.0006])
    const html = renderHtml([{ ...entry, result: { ...entry.result, server: { metrics } } }])
    const chart = figure(html, 'server-kv-cache')
    const labels = ticks(chart, 'y')
    expect(new Set(labels).size).toBe(labels.length)
    expect(labels[0]).toBe('0%')
    // The top of the axis is near the peak (0.1 %), not 100 %.
    const top = Number(labels[labels.length - 1]!.replace('%', ''))
    expect(top).toBeGreaterThanOrEqual(0.1)
    expect(top).toBeLessThanOrEqual(0.2)
    expect(chart).toContain('peak 0.1%')
    // The line fills the plot's height, not its bottom pixel row.
    const ys = pathPoints(chart).map(([, y]) => y)
    expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(100)
  })
})

describe("the judge's lines", () => {
  test('are in the bench section, as in the console: a provisional baseline, a merge without verdict', () => {
    const notes = [
      'baseline recorded provisionally: the machine was disturbed',
      'no verdict: segment 4 of 4 is missing',
    ]
    const html = renderHtml([{ ...steady(), notes }])
    for (const note of notes) expect(html).toContain(`<p class="judge-note">${note}</p>`)
  })
})
