import { build } from 'hdr-histogram-js'
import { describe, expect, test } from 'vitest'
import { MetricsDataError } from '../../src/core/contract/errors.ts'
import {
  MetricsAccumulator,
  decodeHistogram,
  emptySummary,
  encodeHistogram,
  summarizeHistogram,
} from '../../src/core/metrics/index.ts'
import { randomRecord, seededRandom } from '../helpers/metrics-fixtures.ts'

describe('summarizeHistogram', () => {
  test('empty histogram gives the all-zero summary', () => {
    expect(summarizeHistogram(build(), 1000)).toEqual(emptySummary())
    expect(Object.values(emptySummary()).every((v) => v === 0)).toBe(true)
  })

  test('small integers are exact; unitDivisor converts units', () => {
    const histogram = build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 1_000_000,
      numberOfSignificantValueDigits: 3,
    })
    for (const value of [0, 2, 4, 4, 5, 5, 7, 9]) histogram.recordValue(value)
    const summary = summarizeHistogram(histogram, 1)
    // Population stddev of [0, 2, 4, 4, 5, 5, 7, 9]: mean 4.5, variance 6.75
    expect(summary).toMatchObject({ count: 8, min: 0, max: 9, mean: 4.5, p50: 4, p90: 9 })
    expect(summary.stddev).toBeCloseTo(Math.sqrt(6.75), 12)
    expect(summarizeHistogram(histogram, 1000)).toMatchObject({ min: 0, max: 0.009, mean: 0.0045, p50: 0.004 })
  })
})

describe('decodeHistogram', () => {
  test('a decoded result histogram summarises like the accumulator (within 0.1 %)', () => {
    const random = seededRandom(3)
    const accumulator = new MetricsAccumulator()
    for (let i = 0; i < 2000; i++) accumulator.add(randomRecord(random, i))
    const outcome = accumulator.finish({ durationMs: 20_000 })
    for (const [encoded, exact] of [
      [outcome.histograms.ttftUs, outcome.metrics.ttftMs],
      [outcome.histograms.itlUs, outcome.metrics.itlMs],
      [outcome.histograms.e2eUs, outcome.metrics.e2eMs],
    ] as const) {
      const summary = summarizeHistogram(decodeHistogram(encoded as string), 1000)
      expect(summary.count).toBe(exact.count)
      for (const key of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p95', 'p99', 'p999'] as const) {
        expect(Math.abs(summary[key] - exact[key]), key).toBeLessThanOrEqual(exact[key] * 1e-3)
      }
    }
  })

  test('round-trips and can absorb values beyond its stored range', () => {
    const histogram = build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 10_000,
      numberOfSignificantValueDigits: 3,
    })
    histogram.recordValue(1234)
    const decoded = decodeHistogram(encodeHistogram(histogram))
    expect(decoded.totalCount).toBe(1)
    expect(decoded.getValueAtPercentile(50)).toBe(1234)
    decoded.recordValue(50_000_000)
    expect(decoded.totalCount).toBe(2)
  })

  test('text that is not an encoded histogram throws a MetricsDataError that says what to do', () => {
    expect(() => decodeHistogram('bm90IGEgaGlzdG9ncmFt')).toThrow(MetricsDataError)
    expect(() => decodeHistogram('bm90IGEgaGlzdG9ncmFt')).toThrow(/rewrite the baseline with -u/)
  })
})
