import { describe, expect, test } from 'vitest'
import type { HistogramBuckets } from '../../src/core/verdict/quantile-bootstrap.ts'
import { judgeQuantile, quantileBoundRanks, samplesNeeded } from '../../src/core/slo/percentile-bound.ts'
import { seededRandom } from '../helpers/baseline-fixtures.ts'

/** Samples as buckets of one value each. */
function bucketsOf(values: number[]): HistogramBuckets {
  const sorted = [...values].sort((a, b) => a - b)
  return { values: sorted, counts: sorted.map(() => 1), total: sorted.length }
}

/** n draws of Exp(1), whose q-quantile is -ln(1 - q). */
function exponential(random: () => number, n: number): number[] {
  return Array.from({ length: n }, () => -Math.log(1 - random()))
}

describe('quantileBoundRanks', () => {
  test('the order-statistic ranks: p99 at 95 % needs 299 samples for an upper bound', () => {
    expect(quantileBoundRanks(298, 0.99, 0.95).upper).toBeUndefined()
    expect(quantileBoundRanks(299, 0.99, 0.95).upper).toBe(299)
    // The median of 100 samples: ranks 42 and 59 (the textbook one-sided 95 % ranks).
    expect(quantileBoundRanks(100, 0.5, 0.95)).toEqual({ upper: 59, lower: 42 })
    expect(samplesNeeded(0.99, 0.95, 1, 'upper')).toBe(299)
  })
})

describe('judgeQuantile on synthetic data with a known p99', () => {
  const p99 = -Math.log(0.01)
  const runs = 2000
  test(`each bound covers the true p99 in at least 95 % of ${runs} runs of 400 samples`, () => {
    const random = seededRandom(11)
    let upperCovers = 0
    let lowerCovers = 0
    for (let run = 0; run < runs; run++) {
      const judged = judgeQuantile(bucketsOf(exponential(random, 400)), 0.99, 0.95, p99)
      if (judged.upper !== null && judged.upper >= p99) upperCovers++
      if (judged.lower !== null && judged.lower <= p99) lowerCovers++
    }
    // At least 0.95 by construction (whole ranks overshoot it); 2000 runs give a standard error of
    // 0.5 %, so 0.94 leaves three of them for chance.
    expect(upperCovers / runs).toBeGreaterThanOrEqual(0.94)
    expect(lowerCovers / runs).toBeGreaterThanOrEqual(0.94)
    console.log(
      `coverage over ${runs} runs: upper ${(upperCovers / runs).toFixed(4)}, lower ${(lowerCovers / runs).toFixed(4)}`,
    )
  })

  test('a limit at the true p99 passes or fails wrongly at most 5 % of the time; far from it, decides', () => {
    const random = seededRandom(12)
    const statuses = { pass: 0, fail: 0, inconclusive: 0 }
    for (let run = 0; run < runs; run++)
      statuses[judgeQuantile(bucketsOf(exponential(random, 1000)), 0.99, 0.95, p99).status]++
    console.log(
      `limit at the true p99, ${runs} runs of 1000: ${statuses.pass} pass, ${statuses.fail} fail, ${statuses.inconclusive} inconclusive`,
    )
    expect(statuses.pass / runs).toBeLessThanOrEqual(0.06)
    expect(statuses.fail / runs).toBeLessThanOrEqual(0.06)
    // Twice the p99 (its 99.99th percentile): passes with 1000 samples; half of it (p90 or so): fails.
    const samples = exponential(seededRandom(13), 1000)
    expect(judgeQuantile(bucketsOf(samples), 0.99, 0.95, 2 * p99).status).toBe('pass')
    expect(judgeQuantile(bucketsOf(samples), 0.99, 0.95, p99 / 2).status).toBe('fail')
  })

  test('inconclusive names the samples that would decide, and that many do decide', () => {
    // Limit at the true 99.5th percentile: 400 samples rarely show a p99 below it.
    const limit = -Math.log(0.005)
    const first = judgeQuantile(bucketsOf(exponential(seededRandom(14), 400)), 0.99, 0.95, limit)
    expect(first.status).toBe('inconclusive')
    expect(first.needed).toBeGreaterThan(400)
    const again = judgeQuantile(bucketsOf(exponential(seededRandom(15), 3 * (first.needed ?? 0))), 0.99, 0.95, limit)
    expect(again.status).toBe('pass')
  })
})
