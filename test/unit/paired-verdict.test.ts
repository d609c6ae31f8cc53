import { describe, expect, test } from 'vitest'
import { counterbalancedOrder, judgePairedGate, lookConfidence, nextPair } from '../../src/core/verdict/index.ts'
import { seededRandom } from '../helpers/metrics-fixtures.ts'
import { normal, simulateRates, type PairedTruth } from '../helpers/paired-simulation.ts'

const gate = { metric: 'e2eMs', statistic: 'p50', unit: 'ms', tolerance: 0.1 }
const sixPairs = { min: 6, max: 6, budgetMs: Number.POSITIVE_INFINITY }
const sequential = { min: 3, max: 6, budgetMs: Number.POSITIVE_INFINITY }
const JOBS = 5000
/** The nominal 2.5 % false-fail rate plus two standard errors of a rate estimated from JOBS jobs (0.22 %). */
const NOMINAL = 0.025 + 2 * Math.sqrt((0.025 * 0.975) / JOBS)

describe('counterbalancedOrder', () => {
  test('mirrors every other pair, so each arm has the same mean position over two pairs', () => {
    expect([0, 1, 2, 3].map((pair) => counterbalancedOrder(['A', 'B'], pair).join(''))).toEqual([
      'AB',
      'BA',
      'AB',
      'BA',
    ])
    const three = [0, 1].map((pair) => counterbalancedOrder(['C', 'V1', 'V2'], pair))
    expect(three).toEqual([
      ['C', 'V1', 'V2'],
      ['V2', 'V1', 'C'],
    ])
    for (const arm of ['C', 'V1', 'V2']) expect(three.reduce((sum, order) => sum + order.indexOf(arm), 0)).toBe(2)
    expect(() => counterbalancedOrder(['A'], -1)).toThrow(RangeError)
  })
})

describe('judgePairedGate', () => {
  test('the paired t interval on log-ratios: a ratio and its inverse weigh the same', () => {
    const check = judgePairedGate(
      gate,
      [2, 0.5, 2, 0.5].map((ratio) => ({ ratio, ciLow: null, ciHigh: null })),
      0.95,
    )
    expect(check.ratio).toBeCloseTo(1, 12)
    expect(check.pairs).toBe(4)
    // sd of ±ln 2 is ln 2 · sqrt(4/3); t(0.975, 3) = 3.1824
    const half = (3.182446305 * Math.LN2 * Math.sqrt(4 / 3)) / 2
    expect(check.ciHigh).toBeCloseTo(Math.exp(half), 4)
    expect(check.ciLow).toBeCloseTo(Math.exp(-half), 4)
    expect(check.status).toBe('inconclusive')
  })

  test('never narrower than the runs themselves: pairs that agree by luck stay inconclusive', () => {
    const lucky = [1.05, 1.05, 1.05].map((ratio) => ({ ratio, ciLow: ratio / 1.3, ciHigh: ratio * 1.3 }))
    const check = judgePairedGate(gate, lucky, 0.95)
    expect(check.width).toBe('within runs')
    expect(check.status).toBe('inconclusive')
    expect(check.ciHigh).toBeGreaterThan(1.1)
    expect(check.pairsToDecide).toBeGreaterThan(3)
    // The same ratios with tight within-run intervals pass.
    expect(
      judgePairedGate(
        gate,
        [1.05, 1.04, 1.06].map((ratio) => ({ ratio, ciLow: ratio / 1.01, ciHigh: ratio * 1.01 })),
        0.95,
      ).status,
    ).toBe('pass')
  })

  test('fail only when the whole interval is beyond the limit; throughput gates look the other way', () => {
    const slow = [1.5, 1.6, 1.55].map((ratio) => ({ ratio, ciLow: null, ciHigh: null }))
    expect(judgePairedGate(gate, slow, 0.95).status).toBe('fail')
    const throughput = { metric: 'outputTokensPerSec', statistic: 'value', unit: 'tok/s', tolerance: -0.05 }
    expect(
      judgePairedGate(
        throughput,
        [0.7, 0.72, 0.69].map((ratio) => ({ ratio, ciLow: null, ciHigh: null })),
        0.95,
      ).status,
    ).toBe('fail')
    expect(
      judgePairedGate(
        throughput,
        [1.2, 1.21, 1.19].map((ratio) => ({ ratio, ciLow: null, ciHigh: null })),
        0.95,
      ).status,
    ).toBe('pass')
    expect(judgePairedGate(gate, [{ ratio: 1.5, ciLow: null, ciHigh: null }], 0.95)).toMatchObject({
      status: 'inconclusive',
      ciLow: null,
      reason: expect.stringContaining('needs 2'),
    })
  })

  test('the two orders weigh half each: a linear drift cancels after an odd number of pairs too', () => {
    // No noise; the machine slows 3 % per trial, so the arm measured second in a pair reads 3 % higher.
    const drift = Math.exp(0.03)
    const odd = [1.1 * drift, 1.1 / drift, 1.1 * drift].map((ratio) => ({ ratio, ciLow: null, ciHigh: null }))
    expect(judgePairedGate(gate, odd, 0.95).ratio).toBeCloseTo(1.1, 12)
    // A pair left out (pair 2): the numbers carry the order, not the places in the list.
    const gap = [
      { ratio: 1.1 * drift, ciLow: null, ciHigh: null, pair: 1 },
      { ratio: 1.1 * drift, ciLow: null, ciHigh: null, pair: 3 },
      { ratio: 1.1 / drift, ciLow: null, ciHigh: null, pair: 4 },
    ]
    expect(judgePairedGate(gate, gap, 0.95).ratio).toBeCloseTo(1.1, 12)
    // As many pairs of each order: the plain geometric mean.
    const even = [1.2, 1.0, 1.1, 1.3].map((ratio) => ({ ratio, ciLow: null, ciHigh: null }))
    expect(judgePairedGate(gate, even, 0.95).ratio).toBeCloseTo((1.2 * 1.0 * 1.1 * 1.3) ** 0.25, 12)
  })

  test('an inconclusive check says about how many pairs would decide, and that many usually do', () => {
    const noisy = [1.02, 1.12, 0.97, 1.09].map((ratio) => ({ ratio, ciLow: null, ciHigh: null }))
    const check = judgePairedGate(gate, noisy, 0.95)
    expect(check.status).toBe('inconclusive')
    const needed = check.pairsToDecide ?? 0
    expect(needed).toBeGreaterThan(4)
    // The same ratios repeated to that count (same mean and spread) decide.
    const more = Array.from({ length: needed }, (_, i) => noisy[i % noisy.length] ?? noisy[0]!)
    expect(judgePairedGate(gate, more, 0.95).status).not.toBe('inconclusive')
  })
})

describe('judgePairedGate with slices (arms together)', () => {
  const gate = { metric: 'ttftMs', statistic: 'p50', unit: 'ms', tolerance: 0.1 }
  const pair = (pairNo: number, slices: number[]) => ({ ratio: 9, ciLow: null, ciHigh: null, pair: pairNo, slices })

  test("a pair's figure is the geometric mean of its slices, whatever its own ratio says", () => {
    const check = judgePairedGate(gate, [pair(1, [1.02, 0.98, 1.0, 1.0]), pair(2, [1.0, 1.0, 1.01, 0.99])], 0.95)
    expect(check.ratio).toBeCloseTo(Math.exp((Math.log(1.02 * 0.98) + Math.log(1.01 * 0.99)) / 8), 12)
  })

  test('pairs that differ less than their slices explain: judged on the slices (n(k - 1) df), narrower than pairs alone', () => {
    // Pair means equal (MSB 0), slices spread 2 %: the slices' spread, with 3 x 3 = 9 df.
    const ratios = [1, 2, 3].map((n) => pair(n, [1.02, 0.98, 1.02, 0.98]))
    const check = judgePairedGate(gate, ratios, 0.95)
    expect(check.width).toBe('between slices')
    expect(check.status).toBe('pass')
    // Pairs alone: no spread between them at all, an interval of zero width, which the slices must not allow.
    const alone = judgePairedGate(
      gate,
      ratios.map(({ slices: _s, ...rest }) => ({ ...rest, ratio: 1 })),
      0.95,
    )
    expect(alone.ciHigh).toBe(1)
    expect(check.ciHigh).toBeGreaterThan(1.005)
  })

  test('pairs that differ more than their slices explain: launch effects kept, judged between pairs (n - 1 df)', () => {
    const ratios = [pair(1, [1.1, 1.1, 1.1, 1.1]), pair(2, [0.9, 0.9, 0.9, 0.9]), pair(3, [1.0, 1.0, 1.0, 1.0])]
    const check = judgePairedGate(gate, ratios, 0.95)
    expect(check.width).toBe('between pairs')
    const alone = judgePairedGate(
      gate,
      ratios.map(({ slices, ...rest }) => ({ ...rest, ratio: slices[0] ?? 1 })),
      0.95,
    )
    expect(check.ciLow).toBeCloseTo(alone.ciLow ?? 0, 12)
    expect(check.ciHigh).toBeCloseTo(alone.ciHigh ?? 0, 12)
  })
})

describe('paired jobs on synthetic data with a known truth', () => {
  const atLimit: PairedTruth = { ratio: 1.1, sigma: 0.03, driftPerTrial: 0.02, tolerance: 0.1, order: 'balanced' }

  test('a linear drift within the job: the balanced order keeps the false-fail rate at its nominal 2.5 %, a fixed order does not', () => {
    const balanced = simulateRates(atLimit, sixPairs, JOBS, 11)
    const fixed = simulateRates({ ...atLimit, order: 'fixed' }, sixPairs, JOBS, 11)
    expect(balanced.fail).toBeLessThanOrEqual(NOMINAL)
    expect(fixed.fail).toBeGreaterThan(0.1)
  })

  test('sequential stopping (3 to 6 pairs) keeps the false-fail rate at the limit within the nominal 2.5 %', () => {
    // The looks are calibrated to cross at exactly 2.5 % (sequential-boundary.ts), so the estimate may land either side of it.
    expect(simulateRates(atLimit, sequential, JOBS, 12).fail).toBeLessThanOrEqual(NOMINAL)
    expect(simulateRates({ ...atLimit, driftPerTrial: 0 }, sequential, JOBS, 13).fail).toBeLessThanOrEqual(NOMINAL)
    const throughputAtLimit: PairedTruth = {
      ratio: 0.95,
      sigma: 0.03,
      driftPerTrial: -0.01,
      tolerance: -0.05,
      order: 'balanced',
    }
    expect(simulateRates(throughputAtLimit, sequential, JOBS, 14).fail).toBeLessThanOrEqual(NOMINAL)
  })

  test('at the limit, some look of 3 to 6 crosses it at the nominal 2.5 %, where Bonferroni over the looks crossed 1.8 %', () => {
    // Every look judged (no early stop), so this is the crossing rate the levels are calibrated to.
    const limits = { min: 3, max: 6 }
    const crossRate = (levelAt: (pairs: number) => number): number => {
      const random = seededRandom(21)
      let crossed = 0
      for (let job = 0; job < 4000; job++) {
        const ratios = []
        for (let pairs = 1; pairs <= 6; pairs++) {
          ratios.push({ ratio: 1.1 * Math.exp(0.05 * normal(random)), ciLow: null, ciHigh: null })
          if (pairs < 3) continue
          if (judgePairedGate(gate, ratios, levelAt(pairs)).status === 'fail') {
            crossed++
            break
          }
        }
      }
      return crossed / 4000
    }
    const calibrated = crossRate((pairs) => lookConfidence(0.95, limits, pairs))
    expect(calibrated).toBeGreaterThan(0.02)
    expect(calibrated).toBeLessThanOrEqual(0.029)
    expect(crossRate(() => 1 - 0.05 / 4)).toBeLessThan(0.02)
  })

  test('a real difference is found, an A/A pair passes, and the sequence stops early when it can', () => {
    const twice = simulateRates({ ...atLimit, ratio: 2, sigma: 0.05 }, sequential, JOBS, 15)
    expect(twice.fail).toBe(1)
    expect(twice.meanPairs).toBeLessThan(3.2)
    // Unchanged, 3 % noise per trial and the machine drifting 2 % per trial: never a fail, mostly a pass.
    const same = simulateRates({ ...atLimit, ratio: 1 }, sequential, JOBS, 16)
    expect(same.fail).toBe(0)
    expect(same.pass).toBeGreaterThan(0.8)
  })
})

describe('nextPair', () => {
  const decided = judgePairedGate(
    gate,
    [1, 1.01, 0.99].map((ratio) => ({ ratio, ciLow: null, ciHigh: null })),
    0.95,
  )
  const undecided = { ...decided, status: 'inconclusive' as const }
  test('min pairs first, then only while undecided, within max and the budget', () => {
    const limits = { min: 3, max: 6, budgetMs: 100_000 }
    expect(nextPair([decided], { pairs: 2, elapsedMs: 0, longestPairMs: 0 }, limits).another).toBe(true)
    expect(nextPair([decided], { pairs: 3, elapsedMs: 0, longestPairMs: 0 }, limits)).toEqual({
      another: false,
      why: 'every verdict decided after 3 pairs',
    })
    expect(nextPair([undecided], { pairs: 4, elapsedMs: 0, longestPairMs: 0 }, limits).another).toBe(true)
    expect(nextPair([undecided], { pairs: 6, elapsedMs: 0, longestPairMs: 0 }, limits).why).toContain(
      'most pairs allowed (6)',
    )
    expect(nextPair([undecided], { pairs: 4, elapsedMs: 80_000, longestPairMs: 25_000 }, limits).why).toContain(
      'time budget (100 s)',
    )
  })
  test('each look of a 3-6 pair sequence is held tighter the fewer its pairs; one look keeps 95 %', () => {
    const levels = [3, 4, 5, 6].map((pairs) => lookConfidence(0.95, { min: 3, max: 6 }, pairs))
    expect(levels.map((level) => Math.round(level * 10_000) / 100)).toEqual([98.79, 98.39, 97.99, 97.59])
    expect(lookConfidence(0.95, { min: 3, max: 6 }, 2)).toBe(levels[0])
    expect(lookConfidence(0.95, { min: 6, max: 6 }, 6)).toBe(0.95)
  })
})

describe('lookConfidence on a long sequence', () => {
  test('beyond 60 looks: Bonferroni, without simulating', () => {
    expect(lookConfidence(0.95, { min: 3, max: 100_000 }, 50)).toBeCloseTo(1 - 0.05 / 99_998, 12)
    // 60 looks are still calibrated: each level above Bonferroni's.
    expect(lookConfidence(0.95, { min: 3, max: 62 }, 62)).toBeLessThan(1 - 0.05 / 60)
  })
})
