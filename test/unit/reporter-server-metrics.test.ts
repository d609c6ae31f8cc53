/**
 * The server's own metrics (`result.server`) in every report: the shared facts, the console's
 * server line, the Markdown section line and shared note, the HTML server section with its
 * charts and cards, the CSV columns; and a result without `server` rendered as before.
 */
import { describe, expect, test } from 'vitest'
import { renderHtml, renderMarkdown, toCsv, toJsonReport, type ReportEntry } from '../../reporters/index.ts'
import { renderConsoleEntry } from '../../reporters/console-table.ts'
import { serverFacts, serverFactsLine } from '../../reporters/server-metrics-facts.ts'
import {
  BENCHMARK_RESULT_SCHEMA,
  JsonSchemaValidator,
  REPORT_SCHEMA,
  REPORT_SCHEMA_ID,
} from '../../src/core/contract/json-schema/index.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { ServerMetrics, ServerSide } from '../../src/core/contract/server-metrics.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'
import { SIMULATOR_SERVER_NAME } from '../../src/core/contract/simulator-name.ts'

const NOTE =
  'No server metrics: http://127.0.0.1:8080/metrics (HTTP 404). Start llama-server with `--metrics`, or give the endpoint as `serverMetrics: { url }` (`serverMetrics: false` turns this off).'
const METRICS_NOTE = '1 of 5 scrapes failed (timeout after 500 ms).'

/** A histogram summary with the figures the reports read (the buckets do not matter to them). */
function histogram(p50: number, p99: number): NonNullable<ServerMetrics['ttftMs']> {
  return {
    count: 32,
    mean: p50,
    p50,
    p90: p99,
    p99,
    buckets: [
      { leMs: 10, count: 2 },
      { leMs: 100, count: 30 },
    ],
  }
}

function serverMetrics(): ServerMetrics {
  return {
    dialect: 'vllm',
    url: 'http://127.0.0.1:8000/metrics',
    intervalMs: 1000,
    scrapes: 5,
    failedScrapes: 1,
    scrapeMeanMs: 3.5,
    windowMs: 4000,
    promptTokens: 16_384,
    generatedTokens: 4096,
    finishedRequests: 32,
    prefixCache: { queriedTokens: 10_000, hitTokens: 6200, hitRate: 0.62 },
    preemptions: 2,
    requestsRunning: { mean: 3.1, peak: 4, stddev: 0, samples: 4 },
    requestsWaiting: { mean: 1.2, peak: 6, stddev: 0, samples: 4 },
    kvCacheUsage: { mean: 0.41, peak: 0.78, stddev: 0, samples: 4 },
    ttftMs: histogram(38.2, 120),
    queueTimeMs: histogram(2, 14.5),
    specDecode: { drafts: 1000, draftTokens: 3000, acceptedTokens: 1800, acceptanceRate: 0.6, meanAcceptedLength: 2.8 },
    clientOverheadTtftMs: { p50: 3.2, p90: 4, p99: 6, shareOfP50: 0.08, p50PrecisionMs: 10 },
    // The second scrape failed: null in every gauge there.
    series: {
      t: [0, 1000, 2000, 3000, 4000],
      requestsRunning: [1, null, 4, 4, 3],
      requestsWaiting: [0, null, 6, 2, 0],
      kvCacheUsage: [0.2, null, 0.5, 0.78, 0.3],
    },
    notes: [METRICS_NOTE],
  }
}

/** 32 completed requests of 128 output tokens each: the client counted 4096. */
function resultWith(server: ServerSide | undefined): BenchmarkResult {
  const result = makeResult({
    ttftMs: lognormalSamples(seededRandom(5), 32, 40, 0.2),
    tpotMs: lognormalSamples(seededRandom(6), 32, 10, 0.05),
    durationMs: 4000,
  })
  if (server === undefined) return result
  // As run.ts does: the metrics' notes go to the warnings, prefixed.
  if (server.metrics) result.warnings = server.metrics.notes.map((note) => `Server metrics: ${note}`)
  return { ...result, server }
}

function entryOf(result: BenchmarkResult, name = 'chat > steady'): ReportEntry {
  return { name, file: 'benches/chat.bench.ts', state: 'passed', result, baselineState: 'written' }
}

/** The same entry with `server` (and the warnings it brought) removed. */
function withoutServer(entry: ReportEntry): ReportEntry {
  const { server: _server, ...result } = entry.result
  return { ...entry, result: { ...result, warnings: [] } }
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1
}

const FACTS_LINE =
  'vLLM · prefix cache 62% hit (6200 of 10000 prompt tokens) · waiting mean 1.2 / peak 6 · running mean 3.1 / peak 4 · KV cache mean 41% / peak 78% · preemptions 2 · server TTFT p50 38.2 ms / p99 120 ms · queue time p99 14.5 ms · spec accept 60%, 2.8 tokens/step · client − server TTFT p50 +3.2 ms (±10 ms bucket) · server generated 4096 tokens (client counted 4096)'

describe('serverFacts', () => {
  test('every fact the server gave, in report order, with the client count beside the server count', () => {
    const facts = serverFacts(resultWith({ metrics: serverMetrics() }))
    expect(facts.map((fact) => fact.key)).toEqual([
      'server',
      'prefixCache',
      'waiting',
      'running',
      'kvCache',
      'preemptions',
      'serverTtft',
      'queueTime',
      'specDecode',
      'clientOverheadTtft',
      'generatedTokens',
    ])
    expect(serverFactsLine(facts)).toBe(FACTS_LINE)
    expect(facts.find((fact) => fact.key === 'prefixCache')).toEqual({
      key: 'prefixCache',
      label: 'prefix cache',
      value: '62% hit (6200 of 10000 prompt tokens)',
      text: 'prefix cache 62% hit (6200 of 10000 prompt tokens)',
    })
  })

  test('the simulator is named for what it is, with the metric names it speaks', () => {
    const result = resultWith({ metrics: serverMetrics() })
    const simulated = { ...result.environment, server: { ...result.environment.server, name: SIMULATOR_SERVER_NAME } }
    expect(serverFacts({ ...result, environment: simulated })[0]?.text).toBe('simulator (vLLM metrics)')
    expect(serverFacts(result)[0]?.text).toBe('vLLM')
  })

  test("one host's segment: the shared server's count is every segment's, said beside this host's count", () => {
    const result = resultWith({ metrics: { ...serverMetrics(), generatedTokens: 8192 } })
    const segment = { index: 2, count: 2, seed: 1, startAtMs: null, originEpochMs: 0, startLagMs: null, clock: null }
    const facts = serverFacts({ ...result, segment })
    expect(facts.find((fact) => fact.key === 'generatedTokens')?.value).toBe(
      "8192 tokens (all 2 segments; this host's segment 2, client counted 4096)",
    )
    // A whole run (one segment of one) is compared as before.
    expect(
      serverFacts({ ...result, segment: { ...segment, index: 1, count: 1 } }).find(
        (fact) => fact.key === 'generatedTokens',
      )?.value,
    ).toBe('8192 tokens (client counted 4096)')
  })

  test('only what the server gave; a negative overhead keeps its sign, an unbounded bucket (null after JSON) no precision', () => {
    const {
      prefixCache: _p,
      preemptions: _e,
      specDecode: _s,
      queueTimeMs: _q,
      requestsRunning: _r,
      requestsWaiting: _w,
      ...rest
    } = serverMetrics()
    const metrics = {
      ...rest,
      dialect: 'llamacpp',
      clientOverheadTtftMs: { ...rest.clientOverheadTtftMs!, p50: -1.5, p50PrecisionMs: null as unknown as number },
    } satisfies ServerMetrics
    const result = resultWith({ metrics })
    result.streaming.tokenCountEstimated = true
    expect(serverFactsLine(serverFacts(result))).toBe(
      'llama.cpp · KV cache mean 41% / peak 78% · server TTFT p50 38.2 ms / p99 120 ms · client − server TTFT p50 -1.5 ms · server generated 4096 tokens (client estimated 4096)',
    )
  })

  test('nothing without metrics', () => {
    expect(serverFacts(resultWith({ note: NOTE }))).toEqual([])
    expect(serverFacts(resultWith(undefined))).toEqual([])
    expect(serverFactsLine([])).toBeUndefined()
  })
})

describe('console', () => {
  test('one server line after the environment; the metrics notes only as the warning', () => {
    const entry = entryOf(resultWith({ metrics: serverMetrics() }))
    const text = renderConsoleEntry(entry)
    const lines = text.split('\n')
    const server = lines.findIndex((line) => line.startsWith('  server  '))
    expect(lines[server]).toBe(`  server  ${FACTS_LINE}`)
    expect(lines[server - 1]!.startsWith('  env     ')).toBe(true)
    expect(lines.filter((line) => line.trimStart().startsWith('server'))).toHaveLength(1)
    expect(occurrences(text, METRICS_NOTE)).toBe(1)
    expect(text).toContain(`  warning Server metrics: ${METRICS_NOTE}`)
  })

  test('the note when the server gave no metrics', () => {
    const text = renderConsoleEntry(entryOf(resultWith({ note: NOTE })))
    expect(text.split('\n').filter((line) => line.includes('server  '))).toEqual([`  server  ${NOTE}`])
  })

  test('without `server` the table is the one with server minus its server line (and the warning it brought)', () => {
    const entry = entryOf(resultWith({ metrics: serverMetrics() }))
    const expected = renderConsoleEntry(entry)
      .split('\n')
      .filter((line) => !line.startsWith('  server  ') && !line.includes(METRICS_NOTE))
      .join('\n')
    const plain = renderConsoleEntry(withoutServer(entry))
    expect(plain).toBe(expected)
    expect(plain).not.toMatch(/^\s*server\b/m)
  })
})

describe('Markdown', () => {
  test('the facts line in the bench section, under its figures; the metrics notes only as the warning', () => {
    const markdown = renderMarkdown([entryOf(resultWith({ metrics: serverMetrics() }))])
    expect(markdown).toContain(
      `### ✅ chat > steady\n\n\`benches/chat.bench.ts\` · 32/32 requests in 4.0 s · baseline written\n\nServer: ${FACTS_LINE}\n\n`,
    )
    expect(occurrences(markdown, METRICS_NOTE)).toBe(1)
    expect(markdown).toContain(`> ⚠️ Server metrics: ${METRICS_NOTE}`)
  })

  test('a note every bench shares is said once for the run; a bench of its own says its own', () => {
    const other = NOTE.replace('8080', '9090')
    const shared = renderMarkdown([entryOf(resultWith({ note: NOTE }), 'a'), entryOf(resultWith({ note: NOTE }), 'b')])
    expect(occurrences(shared, NOTE)).toBe(1)
    expect(shared).toContain(`> ⚠️ ${NOTE} (every bench)`)
    const apart = renderMarkdown([entryOf(resultWith({ note: NOTE }), 'a'), entryOf(resultWith({ note: other }), 'b')])
    expect(occurrences(apart, `> ⚠️ ${NOTE}\n`)).toBe(1)
    expect(occurrences(apart, `> ⚠️ ${other}\n`)).toBe(1)
    expect(apart).not.toContain('(every bench)')
    // A lone bench is never "every bench".
    expect(renderMarkdown([entryOf(resultWith({ note: NOTE }))])).toContain(`\n> ⚠️ ${NOTE}\n`)
  })

  test('without `server` the summary is the one with server minus its server paragraph and warning', () => {
    const entry = entryOf(resultWith({ metrics: serverMetrics() }))
    const expected = renderMarkdown([entry])
      .replace(`Server: ${FACTS_LINE}\n\n`, '')
      .replace(`> ⚠️ Server metrics: ${METRICS_NOTE}\n\n`, '')
    const plain = renderMarkdown([withoutServer(entry)])
    expect(plain).toBe(expected)
    expect(plain).not.toContain('Server')
  })
})

describe('HTML', () => {
  const generatedAt = '2025-01-01T00:00:00.000Z'
  const sectionOf = (html: string): string =>
    html.slice(html.indexOf('<h3>Server</h3>'), html.indexOf('<h3>Configuration and environment</h3>'))

  test('a Server section: cards for prefix cache and preemptions, the other facts, KV-cache and queue charts without the failed scrape', () => {
    const html = renderHtml([entryOf(resultWith({ metrics: serverMetrics() }))], { generatedAt })
    const section = sectionOf(html)
    expect(section.startsWith('<h3>Server</h3>')).toBe(true)
    expect(section).toContain(
      '<div class="card"><div class="label">prefix-cache hit rate</div><div class="value">62%</div></div>',
    )
    expect(section).toContain('<div class="card"><div class="label">preemptions</div><div class="value">2</div></div>')
    // Cards are not repeated in the line of facts.
    expect(section).toContain(
      '<p class="facts">vLLM · waiting mean 1.2 / peak 6 · running mean 3.1 / peak 4 · KV cache mean 41% / peak 78% · server TTFT',
    )
    expect(section).not.toContain('prefix cache 62% hit')
    const charts = [...section.matchAll(/<figure class="chart" data-chart="([^"]+)" data-points="(\d+)">/g)].map(
      (match) => [match[1], Number(match[2])],
    )
    // Five scrapes, one failed: four points per gauge.
    expect(charts).toEqual([
      ['server-kv-cache', 4],
      ['server-requests', 8],
    ])
    const series = [...section.matchAll(/<path class="series" data-series="([^"]+)" data-points="(\d+)"/g)].map(
      (match) => [match[1], Number(match[2])],
    )
    expect(series).toEqual([
      ['KV cache in use', 4],
      ['running', 4],
      ['waiting', 4],
    ])
    // KV cache on an axis scaled to its peak (78 %), never past 100 %.
    expect(section).toContain('>80%</text>')
    expect(section).not.toContain('>100%</text>')
    expect(section).toContain('5 scrapes of http://127.0.0.1:8000/metrics every 1000 ms, 1 failed')
    expect(occurrences(html, METRICS_NOTE)).toBe(1)
  })

  test('a gauge the server lacks gives no chart but says so', () => {
    const metrics = serverMetrics()
    delete metrics.kvCacheUsage
    metrics.series.kvCacheUsage = metrics.series.kvCacheUsage.map(() => null)
    const section = sectionOf(renderHtml([entryOf(resultWith({ metrics }))], { generatedAt }))
    expect(section).not.toContain('data-chart="server-kv-cache"')
    expect(section).toContain('data-chart="server-requests"')
    expect(section).toContain('<p class="note">The vLLM metrics have no KV-cache usage gauge: no KV-cache chart.</p>')
  })

  test('the note when the server gave no metrics', () => {
    const html = renderHtml([entryOf(resultWith({ note: NOTE }))], { generatedAt })
    expect(sectionOf(html)).toBe(
      '<h3>Server</h3><p class="note">No server metrics: http://127.0.0.1:8080/metrics (HTTP 404). Start llama-server with `--metrics`, or give the endpoint as `serverMetrics: { url }` (`serverMetrics: false` turns this off).</p>',
    )
  })

  test('without `server` the page is the one with server minus its Server section and warning', () => {
    const entry = entryOf(resultWith({ metrics: serverMetrics() }))
    const html = renderHtml([entry], { generatedAt })
    const expected = html
      .replace(sectionOf(html), '')
      .replace(`<div class="warning">Server metrics: ${METRICS_NOTE}</div>`, '')
    const plain = renderHtml([withoutServer(entry)], { generatedAt })
    expect(plain).toBe(expected)
    expect(plain).not.toContain('<h3>Server</h3>')
  })
})

describe('CSV and JSON', () => {
  test('server columns filled from the metrics, empty without them', () => {
    const entries = [
      entryOf(resultWith({ metrics: serverMetrics() }), 'metrics'),
      entryOf(resultWith({ note: NOTE }), 'note'),
      entryOf(resultWith(undefined), 'none'),
    ]
    const [header, ...rows] = toCsv(entries)
      .split('\r\n')
      .filter(Boolean)
      .map((line) => line.split(','))
    const columns = [
      'server_prefix_cache_hit_rate',
      'server_preemptions',
      'server_kv_cache_usage_peak',
      'server_requests_waiting_peak',
      'server_ttft_p99_ms',
    ]
    const at = columns.map((name) => header!.indexOf(name))
    expect(at.every((index) => index >= 0)).toBe(true)
    expect(rows.map((row) => at.map((index) => row[index]))).toEqual([
      ['0.62', '2', '0.78', '6', '120'],
      ['', '', '', '', ''],
      ['', '', '', '', ''],
    ])
  })

  test('a report with server metrics and a note validates against the report schema', () => {
    const report = toJsonReport(
      [entryOf(resultWith({ metrics: serverMetrics() })), entryOf(resultWith({ note: NOTE }))],
      { generatedAt: '2025-01-01T00:00:00.000Z' },
    )
    const validator = new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA])
    expect(validator.validate(REPORT_SCHEMA_ID, JSON.parse(JSON.stringify(report)))).toEqual([])
  })
})
