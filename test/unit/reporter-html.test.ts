import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { collectReport, LlmHtmlReporter, renderHtml, type ReportEntry } from '../../reporters/index.ts'
import { cdfPoints, timelineInFlight, timelineRate } from '../../reporters/html/chart-data.ts'
import { loadBaselines } from '../../reporters/html-reporter.ts'
import { niceTicks, renderCurveChart, renderLineChart } from '../../reporters/html/svg-chart.ts'
import { sweepReportOf } from '../../reporters/sweep-entry.ts'
import { formatBaselineFile } from '../../src/core/baseline/index.ts'
import { decodeHistogram } from '../../src/core/metrics/index.ts'
import { baselinesFor, moduleOf, reportEntries } from '../helpers/reporter-fixtures.ts'

/** `data-points` of every chart figure, by chart id, in page order. */
function chartPoints(html: string): Array<[string, number]> {
  return [...html.matchAll(/<figure class="chart" data-chart="([^"]+)" data-points="(\d+)">/g)].map((match) => [
    match[1]!,
    Number(match[2]),
  ])
}

/** Series of every chart: name and point count. */
function seriesOf(html: string): Array<[string, number, string]> {
  return [...html.matchAll(/<path class="series" data-series="([^"]+)" data-points="(\d+)" d="([^"]*)"/g)].map(
    (match) => [match[1]!, Number(match[2]), match[3]!],
  )
}

describe('cdfPoints', () => {
  test('follows the histogram: monotone, ends at 1, hits its percentiles', () => {
    const [steady] = reportEntries()
    const encoded = steady!.result.histograms.ttftUs!
    const points = cdfPoints(encoded)
    expect(points.length).toBeGreaterThan(50)
    for (let i = 1; i < points.length; i++) {
      expect(points[i]!.x).toBeGreaterThan(points[i - 1]!.x)
      expect(points[i]!.y).toBeGreaterThanOrEqual(points[i - 1]!.y)
    }
    expect(points[points.length - 1]!.y).toBe(1)
    const histogram = decodeHistogram(encoded)
    const median = points.find((point) => point.x === histogram.getValueAtPercentile(50) / 1000)
    expect(median?.y).toBeGreaterThanOrEqual(0.5)
    expect(points[points.length - 1]!.x).toBeCloseTo(histogram.maxValue / 1000, 0)
    expect(cdfPoints(undefined)).toEqual([])
  })
})

describe('timeline series', () => {
  const timeline = {
    windowMs: 1000,
    requests: [1, 2, 1],
    outputTokens: [100, 200, 40],
    totalTokens: [300, 600, 120],
    inFlightMax: [2, 4, 3],
    lastWindowPartial: true,
  }

  test('rates per window, with the partial last window over its own length', () => {
    const points = timelineRate(timeline, timeline.outputTokens, 2600)
    expect(points.slice(0, 2)).toEqual([
      { x: 1, y: 100 },
      { x: 2, y: 200 },
    ])
    expect(points[2]!.x).toBeCloseTo(2.6, 9)
    expect(points[2]!.y).toBeCloseTo(40 / 0.6, 9)
  })

  test('drops a partial last window shorter than half a window', () => {
    expect(timelineRate(timeline, timeline.outputTokens, 2400)).toHaveLength(2)
  })

  test('in-flight as steps from 0 s to the end', () => {
    const points = timelineInFlight(timeline, 2400)
    expect(points.map((point) => point.y)).toEqual([2, 4, 3, 3])
    expect(points[0]!.x).toBe(0)
    expect(points[3]!.x).toBeCloseTo(2.4, 9)
  })
})

describe('svg charts', () => {
  test('niceTicks are round and cover the range', () => {
    expect(niceTicks(0, 100)).toEqual([0, 20, 40, 60, 80, 100])
    expect(niceTicks(0.2, 1.1)).toEqual([0.2, 0.4, 0.6, 0.8, 1])
    expect(niceTicks(5, 5)).toEqual([5])
  })

  test('a line chart draws every point of every series', () => {
    const html = renderLineChart(
      [
        {
          name: 'a',
          points: [
            { x: 0, y: 1 },
            { x: 1, y: 3 },
            { x: 2, y: 2 },
          ],
        },
        {
          name: 'b',
          points: [
            { x: 0, y: 0 },
            { x: 2, y: 5 },
          ],
          dashed: true,
          step: true,
        },
      ],
      { id: 't', title: 'T', xLabel: 's', yLabel: 'v' },
    )
    expect(chartPoints(html)).toEqual([['t', 5]])
    const series = seriesOf(html)
    expect(series.map(([name, count]) => [name, count])).toEqual([
      ['a', 3],
      ['b', 2],
    ])
    expect(series[0]![2].match(/[ML]/g)).toHaveLength(3)
    expect(series[1]![2]).toMatch(/^M[\d.]+ [\d.]+H[\d.]+V[\d.]+$/)
    expect(html).toContain('stroke-dasharray="6 4"')
  })

  test('a chart without data says so', () => {
    const html = renderLineChart([{ name: 'a', points: [] }], { id: 'empty', title: 'E', xLabel: 'x', yLabel: 'y' })
    expect(chartPoints(html)).toEqual([['empty', 0]])
    expect(html).toContain('no data')
  })

  test('a curve chart (sweeps) puts a labelled marker on every point', () => {
    const html = renderCurveChart(
      [
        { x: 50, y: 500, label: 'c=4' },
        { x: 90, y: 900, label: 'c=8' },
        { x: 400, y: 1400, label: 'c=32' },
      ],
      { title: 'Throughput against TTFT p99', xLabel: 'ms', yLabel: 'tok/s' },
    )
    expect(html.match(/<circle class="marker"/g)).toHaveLength(3)
    expect(html).toContain('>c=8</text>')
    // The rightmost label is drawn to the left of its point, inside the plot.
    expect(html).toMatch(/text-anchor="end">c=32<\/text>/)
    expect(html).toContain('<title>c=4: 50 ms, 500 tok/s</title>')
  })
})

describe('renderHtml', () => {
  const entries = reportEntries()
  const html = renderHtml(entries, { baselines: baselinesFor(entries), generatedAt: '2025-01-01T12:03:00.000Z' })

  test('is self-contained: no script, no external resource, loading forbidden by CSP', () => {
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/\b(src|href)="(?!#)/)
    expect(html).not.toMatch(/url\(/)
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`)
  })

  test('draws every chart with data, and the baseline CDFs where a baseline was compared', () => {
    const charts = chartPoints(html)
    // First bench: everything; second: no GPU; third: neither timeline nor GPU.
    expect(charts.map(([id]) => id)).toEqual([
      ...['ttft-cdf', 'e2e-cdf', 'tokens-over-time', 'in-flight-over-time', 'gpu-memory', 'gpu-power'],
      ...['ttft-cdf', 'e2e-cdf', 'tokens-over-time', 'in-flight-over-time'],
      ...['ttft-cdf', 'e2e-cdf'],
    ])
    expect(charts.every(([, points]) => points > 0)).toBe(true)
    const series = seriesOf(html)
    expect(series.filter(([name]) => name === 'baseline')).toHaveLength(4)
    expect(series.filter(([name]) => name === 'GPU 0' || name === 'GPU 1')).toHaveLength(4)
    // GPU memory: one point per sample of each GPU.
    const gpuSamples = entries[0]!.result.gpu!.samples.filter((sample) => sample.index === 0).length
    expect(series.find(([name]) => name === 'GPU 0')?.[1]).toBe(gpuSamples)
  })

  test('carries figures, verdicts, configuration and environment for each bench', () => {
    expect(html).toContain('<span class="badge fail">fail</span>chat &gt; poisson arrivals, 20 req/s')
    expect(html).toContain('+73.8% vs baseline · fail')
    expect(html).toContain('<td>load.concurrency</td><td>16</td>')
    expect(html).toContain('<td>gpus</td><td>2x NVIDIA H100 80GB HBM3 (driver 550.54.15)</td>')
    expect(html).toContain('No baseline existed: this run was recorded as the baseline.')
    expect(html).toContain('No GPU telemetry (no NVIDIA driver found): no GPU charts.')
  })

  test('escapes names and messages', () => {
    const [entry] = reportEntries()
    const page = renderHtml([{ ...entry!, name: '<script>alert(1)</script>' }])
    expect(page).not.toContain('<script>alert(1)')
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })
})

describe('LlmHtmlReporter', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'llm-html-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test('reads the compared baselines from the baseline files and draws them', async () => {
    const entries = reportEntries()
    const baselines = baselinesFor(entries)
    const path = join(dir, '__llm_baselines__', 'chat.bench.ts.json')
    await mkdir(join(dir, '__llm_baselines__'), { recursive: true })
    await writeFile(
      path,
      formatBaselineFile({ schemaVersion: 1, entries: { [entries[0]!.name]: baselines.get(entries[0]!)! } }),
    )
    const withPaths: ReportEntry[] = entries.map((entry) => ({
      ...entry,
      baselinePath: entry.baselinePath?.includes('chat') ? path : join(dir, 'missing.json'),
    }))

    const loaded = await loadBaselines(withPaths)
    // Only the first bench has an entry in the file; the third was just written (nothing to draw).
    expect([...loaded.keys()].map((entry) => entry.name)).toEqual([entries[0]!.name])
    expect(loaded.get(withPaths[0]!)?.histograms.ttftUs).toBe(baselines.get(entries[0]!)!.histograms.ttftUs)

    await new LlmHtmlReporter({ outputFile: join(dir, 'report.html') }).onTestRunEnd([moduleOf(withPaths)])
    const html = await readFile(join(dir, 'report.html'), 'utf8')
    expect(seriesOf(html).filter(([name]) => name === 'baseline')).toHaveLength(2)
  })
})

describe('sweeps', () => {
  test('a sweep gives one entry per point and a throughput-latency curve drawn in the report', async () => {
    const entries = reportEntries()
    const points = [4, 8, 16].map((value, index) => ({ value, order: index, result: entries[index % 2]!.result }))
    const sweepCase = {
      fullName: 'chat > concurrency sweep',
      module: { moduleId: '/repo/benches/sweep.bench.ts', relativeModuleId: 'benches/sweep.bench.ts' },
      meta: () => ({ llmBenchSweep: { result: { axis: 'concurrency', points }, checks: [] } }),
      result: () => ({ state: 'passed' }),
    }
    const collected = collectReport([
      {
        children: {
          *allTests() {
            yield sweepCase
          },
        },
      } as never,
    ])
    expect(collected.entries.map((entry) => entry.name)).toEqual([
      'chat > concurrency sweep [concurrency=4]',
      'chat > concurrency sweep [concurrency=8]',
      'chat > concurrency sweep [concurrency=16]',
    ])
    expect(collected.curves).toHaveLength(1)
    expect(collected.curves[0]!.points.map((point) => [point.label, point.y])).toEqual([
      ['concurrency 4', entries[0]!.result.throughput.outputTokensPerSec],
      ['concurrency 8', entries[1]!.result.throughput.outputTokensPerSec],
      ['concurrency 16', entries[0]!.result.throughput.outputTokensPerSec],
    ])
    const html = renderHtml(collected.entries, { curves: collected.curves })
    // Drawn in the sweep's own section (an older result: no summary, the points and curve still shown).
    expect(chartPoints(html)[0]).toEqual(['sweep-1-curve', 3])
    expect(html.match(/<section class="bench sweep"/g)).toHaveLength(1)
    expect(html.match(/<circle class="marker"/g)).toHaveLength(3)
    expect(sweepReportOf({ ...sweepCase, meta: () => ({}) })).toBeUndefined()
  })
})

describe('a capacity search with limits at p90', () => {
  test('its curve is drawn against TTFT p90, the tail it is judged at, as its table shows', () => {
    const entries = reportEntries()
    const points = [40, 80].map((value, index) => ({ value, order: index, result: entries[index]!.result }))
    const meta = { axis: 'rate', kind: 'capacity', capacity: { percentile: 0.9 }, points }
    const report = sweepReportOf({
      fullName: 'chat > capacity',
      module: { moduleId: '/repo/benches/sweep.bench.ts', relativeModuleId: 'benches/sweep.bench.ts' },
      meta: () => ({ llmBenchSweep: { result: meta, checks: [] } }),
      result: () => ({ state: 'passed' }),
    } as never)
    expect(report?.curve.xLabel).toBe('TTFT p90 (ms)')
    expect(report?.curve.title).toBe('chat > capacity: output tokens/s against TTFT p90')
    expect(report?.curve.points.map((point) => point.x)).toEqual(
      entries.slice(0, 2).map((e) => e.result.metrics.ttftMs.p90),
    )
    // At p99 (the default limits), as before.
    const p99 = { ...meta, capacity: { percentile: 0.99 } }
    expect(
      sweepReportOf({
        fullName: 'chat > capacity',
        module: { moduleId: '/repo/benches/sweep.bench.ts', relativeModuleId: 'benches/sweep.bench.ts' },
        meta: () => ({ llmBenchSweep: { result: p99, checks: [] } }),
        result: () => ({ state: 'passed' }),
      } as never)?.curve.xLabel,
    ).toBe('TTFT p99 (ms)')
  })
})

describe('an interrupted run', () => {
  test('says so under the title, once; a run that ended does not', () => {
    const html = renderHtml(reportEntries(), { interrupted: 'SIGINT' })
    expect(html.split('Interrupted by SIGINT: the run was stopped before it ended.')).toHaveLength(2)
    expect(renderHtml(reportEntries())).not.toContain('Interrupted by')
  })
})

describe("the baseline file's path", () => {
  test('is shown relative to the working directory, as the console names it', () => {
    const [entry] = reportEntries()
    const html = renderHtml([
      {
        ...entry!,
        verdict: undefined,
        baselineState: 'provisional',
        file: 'benches/chat.bench.ts',
        baselinePath: join(process.cwd(), 'benches', '__llm_baselines__', 'chat.bench.ts.json'),
      },
    ])
    expect(html).toContain('<span class="file">benches/__llm_baselines__/chat.bench.ts.json</span>')
    expect(html).not.toContain(process.cwd())
  })
})
