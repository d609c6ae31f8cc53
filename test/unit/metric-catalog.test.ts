/**
 * The metric catalog is the one list of client-side metrics: what a policy gates, what an SLO limits,
 * what a baseline keeps, the schemas and the docs all follow it. TTFO and per-token ITL, which only
 * some runs measure, are gated and limited like TTFT.
 */
import { readFile } from 'node:fs/promises'
import { describe, expect, expectTypeOf, test } from 'vitest'
import { baselineEntryFrom, formatBaselineFile, parseBaselineFile } from '../../src/core/baseline/index.ts'
import { parseRegressionPolicy } from '../../src/core/verdict/index.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import {
  METRIC_CATALOG,
  type DistributionName,
  type HistogramKey,
  type MetricName,
  type MetricsWhere,
  type ThroughputName,
} from '../../src/core/contract/metric-catalog.ts'
import { BENCHMARK_RESULT_SCHEMA, REPORT_SCHEMA } from '../../src/core/contract/json-schema/index.ts'
import type { BenchmarkMetrics, BenchmarkResult, Throughput } from '../../src/core/contract/result.ts'
import { checkSlo, validateSloOptions } from '../../src/core/slo/index.ts'
import { trialsOf } from '../../src/core/trials/index.ts'
import { lognormalSamples, makeResult, seededRandom, summaryOf } from '../helpers/baseline-fixtures.ts'
import { compare } from '../helpers/compare-given.ts'

const NAMES = Object.keys(METRIC_CATALOG) as MetricName[]
/** The keys of `T` that are not optional. */
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T]
const named = (flag: 'gateable' | 'slo', value: boolean): MetricName[] =>
  NAMES.filter((name) => METRIC_CATALOG[name][flag] === value)

/** The smallest policy or SLO that names `metric`, in the shape its kind takes. */
const gateOn = (metric: MetricName): Record<string, unknown> => ({
  [metric]: METRIC_CATALOG[metric].kind === 'throughput' ? '-5%' : { p50: '+10%' },
})
const limitOn = (metric: MetricName): Record<string, unknown> => ({
  [metric]: METRIC_CATALOG[metric].kind === 'throughput' ? { min: 1 } : { p99: 500 },
})

describe('every catalog entry is accepted exactly where its flags say', () => {
  test.each(named('gateable', true))('the policy parser gates %s', (metric) => {
    const parsed = parseRegressionPolicy(gateOn(metric))
    const rules = [...parsed.latency, ...parsed.throughput]
    expect(rules.map((rule) => rule.metric)).toEqual([metric])
  })

  test.each(named('gateable', false))('the policy parser refuses %s, naming the valid keys', (metric) => {
    expect(() => parseRegressionPolicy(gateOn(metric))).toThrow(OptionsError)
    expect(() => parseRegressionPolicy(gateOn(metric))).toThrow(/Use one of: ttftMs, ttfoMs, tpotMs/)
  })

  test.each(named('slo', true))('the SLO parser limits %s, and checkSlo checks it', (metric) => {
    expect(() => validateSloOptions(limitOn(metric))).not.toThrow()
    const checks = checkSlo(makeResult({ ttftMs: [100], ttfoMs: [100], itlPerTokenMs: [5] }), limitOn(metric))
    expect(checks.map((check) => check.metric)).toEqual([metric])
  })

  test.each(named('slo', false))('the SLO parser refuses %s', (metric) => {
    expect(() => validateSloOptions(limitOn(metric))).toThrow(OptionsError)
  })

  test('a gateable latency keeps a histogram: its percentile intervals are read from it', () => {
    for (const name of named('gateable', true)) {
      const info = METRIC_CATALOG[name]
      if (info.kind === 'latency') expect(info.histogram, name).toMatch(/Us$/)
    }
  })

  test('ttfoMs and itlPerTokenMs are gateable and SLO-able', () => {
    expect(named('gateable', true)).toEqual(expect.arrayContaining(['ttfoMs', 'itlPerTokenMs']))
    expect(named('slo', true)).toEqual(expect.arrayContaining(['ttfoMs', 'itlPerTokenMs']))
  })
})

describe('the contract follows the catalog', () => {
  test('its types: each distribution a result field (required where always reported), each throughput a number', () => {
    expectTypeOf<DistributionName>().toEqualTypeOf<keyof BenchmarkMetrics>()
    expectTypeOf<RequiredKeys<BenchmarkMetrics>>().toEqualTypeOf<
      MetricsWhere<{ kind: 'latency' | 'tokens'; reported: 'always' }>
    >()
    expectTypeOf<ThroughputName>().toExtend<keyof Throughput>()
    expectTypeOf<Throughput[ThroughputName]>().toEqualTypeOf<number>()
    expectTypeOf<HistogramKey>().toEqualTypeOf<keyof BenchmarkResult['histograms']>()
    // At run time too: the required fields of the result are those the catalog reports always.
    const always = NAMES.filter((name) => METRIC_CATALOG[name].kind !== 'throughput')
      .filter((name) => METRIC_CATALOG[name].reported === 'always')
      .sort()
    expect(Object.keys(makeResult().metrics).sort()).toEqual(always)
  })

  test("the result schema's metrics and histograms, and the report schema's check metrics", () => {
    const properties = (schema: unknown, ...path: string[]): Record<string, unknown> =>
      path.reduce((node, key) => (node as Record<string, unknown>)[key], schema) as Record<string, unknown>
    const metrics = properties(BENCHMARK_RESULT_SCHEMA, 'properties', 'metrics')
    const distributions = NAMES.filter((name) => METRIC_CATALOG[name].kind !== 'throughput')
    expect(Object.keys(metrics.properties as object).sort()).toEqual([...distributions].sort())
    expect([...(metrics.required as string[])].sort()).toEqual(
      distributions.filter((name) => METRIC_CATALOG[name].reported === 'always').sort(),
    )
    const histograms = properties(BENCHMARK_RESULT_SCHEMA, 'properties', 'histograms', 'properties')
    const keys = NAMES.flatMap((name) => METRIC_CATALOG[name].histogram ?? [])
    expect(Object.keys(histograms).sort()).toEqual([...keys].sort())
    const check = properties(REPORT_SCHEMA, '$defs', 'verdict', 'properties', 'checks', 'items', 'properties')
    expect((check.metric as { enum: string[] }).enum).toEqual(named('gateable', true))
  })

  test("docs/verdicts.md's table of metrics says what the catalog says", async () => {
    const text = await readFile(new URL('../../docs/verdicts.md', import.meta.url), 'utf8')
    const rows = new Map<string, { gate: string; slo: string }>()
    for (const line of text.split('\n')) {
      const cells = /^\| (`[^|]+`) \| [^|]+ \| (yes|no) \| (yes|no) \|$/.exec(line)
      if (!cells?.[1]) continue
      for (const [, name] of cells[1].matchAll(/`([^`]+)`/g))
        rows.set(name as string, { gate: cells[2] as string, slo: cells[3] as string })
    }
    expect([...rows.keys()].sort()).toEqual([...NAMES].sort())
    for (const name of NAMES) {
      const yes = (flag: boolean): string => (flag ? 'yes' : 'no')
      expect(rows.get(name), name).toEqual({
        gate: yes(METRIC_CATALOG[name].gateable),
        slo: yes(METRIC_CATALOG[name].slo),
      })
    }
  })
})

describe('TTFO is gated against a baseline', () => {
  const random = seededRandom(26)
  const ttft = lognormalSamples(random, 1000, 120, 0.2)
  const ttfo = lognormalSamples(random, 1000, 400, 0.2)
  const baseline = baselineEntryFrom(makeResult({ ttftMs: ttft, ttfoMs: ttfo }), {
    recordedAt: '2025-06-01T12:00:00.000Z',
  })
  const policy = { ttfoMs: { p50: '+10%' } } as const

  test('the entry keeps its figures and histogram, and a baseline file with it reads back', () => {
    expect(baseline.metrics.ttfoMs?.count).toBe(1000)
    expect(baseline.histograms.ttfoUs).toEqual(expect.any(String))
    expect(trialsOf(makeResult({ ttftMs: ttft, ttfoMs: ttfo }))[0]?.latency.ttfoMs?.count).toBe(1000)
    const text = formatBaselineFile({ schemaVersion: 1, entries: { chat: baseline } })
    expect(parseBaselineFile(text, 'chat.json').entries.chat).toEqual(baseline)
    // An entry of a run that measured no TTFO (no reasoning) has none, and is a valid entry still.
    const plain = baselineEntryFrom(makeResult({ ttftMs: ttft }), { recordedAt: '2025-06-01T12:00:00.000Z' })
    expect(plain.metrics.ttfoMs).toBeUndefined()
    const plainText = formatBaselineFile({ schemaVersion: 1, entries: { chat: plain } })
    expect(parseBaselineFile(plainText, 'chat.json').entries.chat).toEqual(plain)
  })

  test('the same TTFO passes, 1.5x slower fails: a verdict check on ttfoMs p50', () => {
    const same = compare(
      baseline,
      makeResult({ ttftMs: ttft, ttfoMs: lognormalSamples(random, 1000, 400, 0.2) }),
      policy,
    )
    expect(same.checks.map((check) => [check.metric, check.statistic, check.unit])).toEqual([['ttfoMs', 'p50', 'ms']])
    expect(same.checks[0]?.status).toBe('pass')
    const slower = compare(baseline, makeResult({ ttftMs: ttft, ttfoMs: ttfo.map((ms) => ms * 1.5) }), policy)
    expect(slower.checks[0]).toMatchObject({ metric: 'ttfoMs', statistic: 'p50', status: 'fail' })
    expect(slower.checks[0]?.ciLow).toBeGreaterThan(1.1)
  })

  test('a run without TTFO is inconclusive and says why, never a pass or a fail', () => {
    const verdict = compare(baseline, makeResult({ ttftMs: ttft }), policy)
    expect(verdict.checks[0]).toMatchObject({ metric: 'ttfoMs', status: 'inconclusive' })
    expect(verdict.checks[0]?.reason).toMatch(/no ttfoMs samples in this run \(no streamed reply carried reasoning/)
  })

  test('per-token ITL is gated the same way', () => {
    const itl = lognormalSamples(random, 2000, 20, 0.2)
    const entry = baselineEntryFrom(makeResult({ ttftMs: ttft, itlPerTokenMs: itl }))
    const verdict = compare(entry, makeResult({ ttftMs: ttft, itlPerTokenMs: itl.map((ms) => ms * 2) }), {
      itlPerTokenMs: { p50: '+10%' },
    })
    expect(verdict.checks[0]).toMatchObject({ metric: 'itlPerTokenMs', statistic: 'p50', status: 'fail' })
  })
})

describe('TTFO is limited by an SLO', () => {
  const ttfo = lognormalSamples(seededRandom(27), 1000, 200, 0.3)
  const p99 = summaryOf(ttfo).p99

  test('slo: { ttfoMs: { p99 } } passes on its upper bound and fails on its lower bound', () => {
    const result = makeResult({ ttftMs: ttfo.map((ms) => ms / 2), ttfoMs: ttfo })
    expect(p99).toBeLessThan(500)
    const [pass] = checkSlo(result, { ttfoMs: { p99: 500 } })
    expect(pass).toMatchObject({ metric: 'ttfoMs', statistic: 'p99', unit: 'ms', n: 1000, status: 'pass' })
    expect(pass?.interval?.upper).toBeLessThanOrEqual(500)
    const [fail] = checkSlo(result, { ttfoMs: { p99: p99 / 2 } })
    expect(fail).toMatchObject({ metric: 'ttfoMs', statistic: 'p99', status: 'fail' })
    expect(fail?.message).toMatch(/^ttfoMs p99 = [\d.]+ ms exceeds the SLO maximum of [\d.]+ ms: its 95% lower bound/)
  })

  test('a run that measured no TTFO is inconclusive, saying why', () => {
    const [check] = checkSlo(makeResult({ ttftMs: ttfo }), { ttfoMs: { p99: 500 } })
    expect(check).toMatchObject({ metric: 'ttfoMs', status: 'inconclusive', measured: null })
    expect(check?.message).toMatch(/^ttfoMs p99: not measured \(no streamed reply carried reasoning/)
  })
})
