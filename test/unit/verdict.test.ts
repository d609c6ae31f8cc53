import { formatFigure } from '../../src/core/platform/format-figure.ts'
import { describe, expect, test } from 'vitest'
import type { ThroughputSeries } from '../../src/core/baseline/index.ts'
import type { Verdict } from '../../src/core/verdict/index.ts'
import {
  baselineEntryFrom,
  throughputNoiseOf,
  throughputSeriesFromRequests,
  throughputSeriesOf,
} from '../../src/core/baseline/index.ts'
import { DEFAULT_REGRESSION_POLICY, formatVerdict, parseRegressionPolicy } from '../../src/core/verdict/index.ts'
import { compare } from '../helpers/compare-given.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'

const TRIALS = 50

function entryOf(samples: number[]) {
  return baselineEntryFrom(makeResult({ ttftMs: samples }), { recordedAt: '2025-06-01T12:00:00.000Z' })
}

describe('latency verdicts on distributions', () => {
  test('A/A: two samples of 500 from one distribution never fail in 50 seeded trials', () => {
    const policy = { ttftMs: { p50: '+10%', p90: '+10%', p99: '+10%', mean: '+10%' } } as const
    let fails = 0
    let passes = 0
    for (let trial = 0; trial < TRIALS; trial++) {
      const random = seededRandom(100 + trial)
      const baseline = entryOf(lognormalSamples(random, 500, 120, 0.3))
      const verdict = compare(baseline, makeResult({ ttftMs: lognormalSamples(random, 500, 120, 0.3) }), policy)
      fails += verdict.checks.filter((check) => check.status === 'fail').length
      passes += verdict.checks.filter((check) => check.status === 'pass').length
    }
    expect(fails).toBe(0)
    // Not vacuous: most checks reach a pass (p99 at n = 500 often stays inconclusive).
    expect(passes).toBeGreaterThan(TRIALS * 2)
  })

  test('the default gates medians and throughput; the p99 it does not gate is shown in a note, never failed', () => {
    const random = seededRandom(31)
    const baseline = entryOf(lognormalSamples(random, 500, 120, 0.2))
    // The same median, a tail twice as long: no gate moves, the note shows the tail.
    const samples = lognormalSamples(random, 500, 120, 0.2).map((ms, i) => (i % 50 === 0 ? ms * 4 : ms))
    const verdict = compare(baseline, makeResult({ ttftMs: samples }), DEFAULT_REGRESSION_POLICY)
    expect(verdict.checks.map((check) => `${check.metric} ${check.statistic}`)).not.toContain('ttftMs p99')
    expect(verdict.checks.some((check) => check.status === 'fail')).toBe(false)
    const note = verdict.notes.find((line) => line.startsWith('Tails, shown and not gated: '))
    expect(note).toMatch(/ttftMs p99 (\d+\.\d\d)x \([\d.]+ -> [\d.]+ ms\)/)
    expect(Number(/ttftMs p99 ([\d.]+)x/.exec(note ?? '')?.[1])).toBeGreaterThan(1.5)
    // A policy that gates the p99 shows no such note for it.
    const gated = compare(baseline, makeResult({ ttftMs: samples }), { ttftMs: { p50: '+10%', p99: '+10%' } })
    expect(gated.notes.some((line) => line.includes('ttftMs p99') && line.startsWith('Tails'))).toBe(false)
  })

  test('30 % slower at p99 with n = 500 fails in at least 48 of 50 seeded trials', () => {
    let fails = 0
    for (let trial = 0; trial < TRIALS; trial++) {
      const random = seededRandom(900 + trial)
      const baseline = entryOf(lognormalSamples(random, 500, 120, 0.15))
      const slower = lognormalSamples(random, 500, 120, 0.15).map((ms) => ms * 1.3)
      const verdict = compare(baseline, makeResult({ ttftMs: slower }), { ttftMs: { p99: '+10%' } })
      const [check] = verdict.checks
      if (check?.status === 'fail') {
        fails++
        expect(check.ciLow).toBeGreaterThan(1.1)
      }
    }
    expect(fails).toBeGreaterThanOrEqual(48)
  })

  test('p99 from 50 samples is inconclusive and says how many it needs, even when 3x slower', () => {
    const random = seededRandom(7)
    const baseline = entryOf(lognormalSamples(random, 500, 120, 0.3))
    const verdict = compare(baseline, makeResult({ ttftMs: lognormalSamples(random, 50, 360, 0.3) }), {
      ttftMs: { p99: '+10%', p50: '+10%' },
    })
    const p99 = verdict.checks.find((check) => check.statistic === 'p99')
    expect(p99?.status).toBe('inconclusive')
    expect(p99?.reason).toBe('p99 needs at least 368 samples for a 95% interval, got 50 (baseline 500, current 50)')
    expect(p99?.ciLow).toBeNull()
    // p50 needs 6 samples: 3x slower at the median is a clear fail.
    expect(verdict.checks.find((check) => check.statistic === 'p50')?.status).toBe('fail')
    expect(verdict.status).toBe('fail')
  })

  test('a check without histograms or samples is inconclusive with the reason', () => {
    const random = seededRandom(8)
    const baseline = entryOf(lognormalSamples(random, 500, 120, 0.3))
    delete baseline.histograms.ttftUs
    const verdict = compare(baseline, makeResult({ ttftMs: lognormalSamples(random, 500, 120, 0.3) }), {
      ttftMs: { p90: '+10%' },
      tpotMs: { p50: '+10%' },
    })
    expect(verdict.checks.map((check) => [check.status, check.reason])).toEqual([
      ['inconclusive', 'no ttftUs histogram in the baseline, so the noise of p90 cannot be estimated'],
      ['inconclusive', 'no tpotMs samples in the baseline'],
    ])
  })

  test('a client that could not keep up turns a fail into inconclusive', () => {
    const random = seededRandom(9)
    const baseline = entryOf(lognormalSamples(random, 500, 120, 0.2))
    const slow = lognormalSamples(random, 500, 240, 0.2)
    expect(compare(baseline, makeResult({ ttftMs: slow }), { ttftMs: { p50: '+10%' } }).status).toBe('fail')
    const verdict = compare(baseline, makeResult({ ttftMs: slow, keptUp: false }), { ttftMs: { p50: '+10%' } })
    expect(verdict.status).toBe('inconclusive')
    expect(verdict.checks[0]?.reason).toBe('the client could not keep up')
    expect(verdict.notes[0]).toContain('The client could not keep up with the planned load (schedule lag p99 850 ms)')
  })
})

describe('throughput verdicts', () => {
  function series(random: () => number, windows: number, mean: number, spread: number): ThroughputSeries {
    const outputTokens = Array.from(
      { length: windows },
      () => mean + spread * (random() + random() + random() - 1.5) * 2,
    )
    return {
      windowMs: 1000,
      outputTokens,
      requests: outputTokens.map((t) => t / 128),
      totalTokens: outputTokens.map((t) => t * 5),
    }
  }
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length

  test('without per-window series, an assumed 2 % noise: a 20 % drop fails, 2 % is inconclusive, +5 % passes', () => {
    const baseline = entryOf(lognormalSamples(seededRandom(1), 100, 120, 0.3))
    expect(baseline.throughput.outputTokensPerSec).toEqual({ value: 1067 })
    const run = (value: number) =>
      compare(baseline, makeResult({ throughput: { outputTokensPerSec: value } }), { outputTokensPerSec: '-5%' })
    const drop = run(1067 * 0.8)
    expect(drop.checks[0]).toMatchObject({
      status: 'fail',
      unit: 'tok/s',
      tolerance: -0.05,
      n: { baseline: 1, current: 1 },
    })
    expect(drop.checks[0]?.reason).toContain('assumed 2% relative noise for the baseline and this run')
    expect(drop.checks[0]?.ratio).toBeCloseTo(0.8, 6)
    expect(drop.checks[0]?.ciHigh).toBeLessThan(0.95)
    const small = run(1067 * 0.98)
    expect(small.checks[0]?.status).toBe('inconclusive')
    expect(small.checks[0]?.reason).toMatch(
      /^the 95% interval \[0\.92\d, 1\.03\d\] contains the limit 0\.950: more samples would narrow it/,
    )
    expect(run(1067 * 1.05).checks[0]?.status).toBe('pass')
    expect(run(0).checks[0]).toMatchObject({ status: 'fail', ratio: 0, reason: "this run's outputTokensPerSec is 0" })
  })

  test('measured per-window noise narrows the interval: a 9 % drop fails that the assumed noise leaves inconclusive', () => {
    const random = seededRandom(11)
    const before = series(random, 60, 1000, 30)
    const after = series(random, 60, 910, 30)
    const baseline = baselineEntryFrom(makeResult({ throughput: { outputTokensPerSec: mean(before.outputTokens) } }), {
      throughputSeries: before,
      recordedAt: 'x',
    })
    expect(baseline.throughput.outputTokensPerSec.windows).toBe(60)
    expect(baseline.throughput.outputTokensPerSec.relativeStdError).toBeGreaterThan(0)
    expect(baseline.throughput.outputTokensPerSec.relativeStdError).toBeLessThan(0.01)
    const result = makeResult({ throughput: { outputTokensPerSec: mean(after.outputTokens) } })
    const measured = compare(baseline, result, { outputTokensPerSec: '-5%' }, { throughputSeries: after })
    expect(measured.checks[0]).toMatchObject({ status: 'fail', n: { baseline: 60, current: 60 } })
    expect(measured.checks[0]?.reason).toBeUndefined()
    const withoutSeries = {
      ...baseline,
      throughput: {
        ...baseline.throughput,
        outputTokensPerSec: { value: baseline.throughput.outputTokensPerSec.value },
      },
    }
    expect(compare(withoutSeries, result, { outputTokensPerSec: '-5%' }).checks[0]?.status).toBe('inconclusive')
  })

  test("a result's timeline is its series, without a partial last window; recorded requests are the fallback", () => {
    const result = makeResult()
    expect(throughputSeriesOf(result)).toBeUndefined()
    result.timeline = {
      windowMs: 1000,
      requests: [8, 9, 3],
      outputTokens: [1000, 1100, 300],
      totalTokens: [5000, 5500, 1500],
      inFlightMax: [16, 16, 4],
      lastWindowPartial: true,
    }
    expect(throughputSeriesOf(result)).toEqual({
      windowMs: 1000,
      requests: [8, 9],
      outputTokens: [1000, 1100],
      totalTokens: [5000, 5500],
    })
    // The entry and the comparison pick it up by default: 60 steady windows give a measured noise.
    result.timeline = {
      windowMs: 1000,
      requests: new Array(60).fill(8),
      outputTokens: new Array(60).fill(1000),
      totalTokens: new Array(60).fill(5000),
      inFlightMax: new Array(60).fill(16),
      lastWindowPartial: false,
    }
    const entry = baselineEntryFrom(result, { recordedAt: 'x' })
    expect(entry.throughput.outputTokensPerSec).toEqual({ value: 1067, relativeStdError: 0, windows: 60, batches: 10 })
    expect(compare(entry, result, { outputTokensPerSec: '-5%' }).checks[0]).toMatchObject({
      status: 'pass',
      n: { baseline: 60, current: 60 },
    })
  })

  test('batch means: too few windows give no estimate; alternating windows average out', () => {
    expect(throughputNoiseOf([1, 2, 3])).toBeUndefined()
    const steady = throughputNoiseOf(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 900 : 1100)))
    expect(steady).toEqual({ relativeStdError: 0, windows: 100, batches: 10 })
    const trending = throughputNoiseOf(Array.from({ length: 100 }, (_, i) => 500 + 10 * i))
    expect(trending?.relativeStdError).toBeGreaterThan(0.05)
  })

  test('series from recorded requests: tokens spread over chunks, whole windows only, failures and warm-up left out', () => {
    const request = (
      index: number,
      sentAt: number,
      chunkTimes: number[],
      outputTokens: number,
      ok = true,
    ): RequestRecord => ({
      index,
      plannedAt: undefined,
      sentAt,
      headersAt: sentAt + 1,
      firstTokenAt: chunkTimes[0],
      endAt: chunkTimes[chunkTimes.length - 1] ?? sentAt,
      chunkTimes,
      outputTokens,
      inputTokens: 10,
      usageReported: true,
      streamed: true,
      readInOneBurst: false,
      ok,
    })
    const series = throughputSeriesFromRequests([
      request(-1, -500, [-400, 100], 2), // warm-up
      request(0, 0, [100, 900, 1100, 1900], 8),
      request(1, 50, [500, 1500], 4),
      request(2, 60, [700], 1, false), // failed
      request(3, 100, [2100, 2500], 2), // ends in the partial third window
    ])
    expect(series).toEqual({ windowMs: 1000, requests: [0, 2], outputTokens: [6, 6], totalTokens: [6, 26] })
  })
})

describe('policy', () => {
  const optionError = (policy: unknown): OptionsError => {
    try {
      parseRegressionPolicy(policy as never)
    } catch (error) {
      if (error instanceof OptionsError) return error
      throw error
    }
    throw new Error('expected an OptionsError')
  }

  test('parses percent strings and fractions into a fixed order', () => {
    const parsed = parseRegressionPolicy({
      outputTokensPerSec: '-5%',
      tpotMs: { p99: 0.2 },
      ttftMs: { p99: '+10%', p50: '+2.5%' },
    })
    expect(parsed.latency).toEqual([
      { metric: 'ttftMs', statistic: 'p50', tolerance: 0.025 },
      { metric: 'ttftMs', statistic: 'p99', tolerance: 0.1 },
      { metric: 'tpotMs', statistic: 'p99', tolerance: 0.2 },
    ])
    expect(parsed.throughput).toEqual([{ metric: 'outputTokensPerSec', tolerance: 0.05 }])
    expect(parsed.confidence).toBe(0.95)
  })

  test('rejects malformed tolerances, naming the option and the fix', () => {
    const missingSign = optionError({ ttftMs: { p99: '10' } })
    expect(missingSign.option).toBe('baseline.ttftMs.p99')
    expect(missingSign.message).toBe(
      "Invalid option `baseline.ttftMs.p99`: '10' is not a tolerance. Write an allowed increase as '+10%' or 0.1.",
    )
    expect(optionError({ ttftMs: { p99: '+x%' } }).option).toBe('baseline.ttftMs.p99')
    expect(optionError({ outputTokensPerSec: '+5%' }).message).toContain(
      "A throughput tolerance is an allowed decrease: write '-5%' or 0.05",
    )
    expect(optionError({ ttftMs: { p99: '-10%' } }).message).toContain('A latency tolerance is an allowed increase')
    expect(optionError({ outputTokensPerSec: '-100%' }).option).toBe('baseline.outputTokensPerSec')
    expect(optionError({ ttftMs: { p98: '+10%' } }).message).toContain('Use one of: p50, p90, p95, p99, p999, mean')
    expect(optionError({ ttft: { p99: '+10%' } }).message).toContain(
      'Use one of: ttftMs, ttfoMs, tpotMs, itlMs, itlPerTokenMs, e2eMs, outputTokensPerSec',
    )
    expect(optionError({ ttftMs: '+10%' }).message).toContain("ttftMs: { p99: '+10%' }")
    expect(optionError({ confidence: 95 }).option).toBe('baseline.confidence')
  })
})

describe('formatVerdict', () => {
  test('prints baseline, current, ratio, interval, tolerance and n side by side', () => {
    const verdict: Verdict = {
      status: 'fail',
      confidence: 0.95,
      notes: [],
      checks: [
        {
          metric: 'ttftMs',
          statistic: 'p50',
          unit: 'ms',
          baseline: 120.04,
          current: 121.5,
          ratio: 1.0122,
          ciLow: 0.9871,
          ciHigh: 1.0402,
          tolerance: 0.1,
          n: { baseline: 500, current: 500 },
          status: 'pass',
        },
        {
          metric: 'ttftMs',
          statistic: 'p99',
          unit: 'ms',
          baseline: 201.3,
          current: 268.9,
          ratio: 1.3358,
          ciLow: 1.2011,
          ciHigh: 1.4702,
          tolerance: 0.1,
          n: { baseline: 500, current: 500 },
          status: 'fail',
        },
        {
          metric: 'tpotMs',
          statistic: 'p99',
          unit: 'ms',
          baseline: 14.2,
          current: 15.1,
          ratio: 1.0634,
          ciLow: null,
          ciHigh: null,
          tolerance: 0.15,
          n: { baseline: 500, current: 50 },
          status: 'inconclusive',
          reason: 'p99 needs at least 368 samples for a 95% interval, got 50 (baseline 500, current 50)',
        },
        {
          metric: 'outputTokensPerSec',
          statistic: 'value',
          unit: 'tok/s',
          baseline: 1523,
          current: 1490.4,
          ratio: 0.9786,
          ciLow: 0.9487,
          ciHigh: 1.0094,
          tolerance: -0.05,
          n: { baseline: 60, current: 60 },
          status: 'inconclusive',
          reason: 'the 95% interval [0.949, 1.009] contains the limit 0.950: more samples would narrow it',
        },
      ],
    }
    expect(formatVerdict(verdict)).toMatchInlineSnapshot(`
      "Baseline comparison: FAIL (1 fail, 2 inconclusive, 1 pass)
        check                 baseline     current  ratio  95% CI          tolerance  n base/cur  status
        ttftMs p50              120 ms    121.5 ms  1.012  [0.987, 1.040]  +10%          500/500  PASS
        ttftMs p99            201.3 ms    268.9 ms  1.336  [1.201, 1.470]  +10%          500/500  FAIL
        tpotMs p99             14.2 ms     15.1 ms  1.063  -               +15%           500/50  INCONCLUSIVE
        outputTokensPerSec  1523 tok/s  1490 tok/s  0.979  [0.949, 1.009]  -5%             60/60  INCONCLUSIVE

        tpotMs p99 inconclusive: p99 needs at least 368 samples for a 95% interval, got 50 (baseline 500, current 50)
        outputTokensPerSec inconclusive: the 95% interval [0.949, 1.009] contains the limit 0.950: more samples would narrow it

        ratio = current / baseline; CI = 95% confidence interval of the ratio; a check fails only when its whole CI lies beyond the tolerance."
    `)
  })

  test('a real comparison names every figure', () => {
    const random = seededRandom(21)
    const baseline = entryOf(lognormalSamples(random, 500, 120, 0.15))
    const verdict = compare(baseline, makeResult({ ttftMs: lognormalSamples(random, 500, 160, 0.15) }), {
      ttftMs: { p99: '+10%' },
    })
    const text = formatVerdict(verdict)
    const check = verdict.checks[0]
    if (!check || check.ciLow === null || check.ciHigh === null || check.ratio === null)
      throw new Error('expected an interval')
    expect(text.split('\n')[0]).toBe('Baseline comparison: FAIL (1 fail)')
    expect(text).toContain(`${formatFigure(check.baseline)} ms`)
    expect(text).toContain(`${formatFigure(check.current)} ms`)
    expect(text).toContain(check.ratio.toFixed(3))
    expect(text).toContain(`[${check.ciLow.toFixed(3)}, ${check.ciHigh.toFixed(3)}]`)
    expect(text).toContain('+10%')
    expect(text).toContain('500/500')
  })
})
