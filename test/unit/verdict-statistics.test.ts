import { describe, expect, test } from 'vitest'
import type { DiscreteDistribution } from '../../src/core/verdict/index.ts'
import { bootstrapQuantileDistribution, minSamplesForQuantile, ratioInterval } from '../../src/core/verdict/index.ts'
import { binomialUpperTail, normalQuantile, studentTQuantile } from '../../src/core/verdict/special-functions.ts'

describe('special functions', () => {
  test('normal and t quantiles match published tables', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12)
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 10)
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.262157162740992, 8)
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.70620473617471, 6)
  })

  test('binomial tails match direct sums', () => {
    const direct = (n: number, p: number, k: number): number => {
      // In log space: (1 - p)^n underflows for n = 500, p = 0.99.
      let total = 0
      let logChoose = 0 // ln C(n, i)
      for (let i = 0; i <= n; i++) {
        if (i >= k) total += Math.exp(logChoose + i * Math.log(p) + (n - i) * Math.log1p(-p))
        logChoose += Math.log((n - i) / (i + 1))
      }
      return total
    }
    for (const [n, p, k] of [
      [10, 0.3, 3],
      [500, 0.99, 495],
      [500, 0.97, 490],
      [60, 0.5, 31],
    ] as const) {
      expect(binomialUpperTail(n, p, k)).toBeCloseTo(direct(n, p, k), 10)
    }
  })
})

describe('minimum samples for a distribution-free quantile interval', () => {
  test('are exact: q^n <= alpha/2 < q^(n-1)', () => {
    expect(minSamplesForQuantile(0.99, 0.95)).toBe(368)
    expect(minSamplesForQuantile(0.5, 0.95)).toBe(6)
    expect(minSamplesForQuantile(0.9, 0.95)).toBe(36)
    expect(minSamplesForQuantile(0.95, 0.95)).toBe(72)
    expect(minSamplesForQuantile(0.999, 0.95)).toBe(3688)
    // One-sided 95 % (two-sided 90 %) on p99: the 299 often quoted.
    expect(minSamplesForQuantile(0.99, 0.9)).toBe(299)
    for (const q of [0.5, 0.9, 0.99]) {
      const n = minSamplesForQuantile(q, 0.95)
      expect(q ** n).toBeLessThanOrEqual(0.025)
      expect(q ** (n - 1)).toBeGreaterThan(0.025)
    }
  })
})

/** Every resample of a tiny sample, enumerated: the bootstrap distribution by brute force. */
function enumeratedBootstrap(sample: number[], quantile: number): Map<number, number> {
  const n = sample.length
  const k = Math.max(1, Math.ceil(quantile * n - 1e-9))
  const out = new Map<number, number>()
  const total = n ** n
  for (let code = 0; code < total; code++) {
    const draw: number[] = []
    let c = code
    for (let i = 0; i < n; i++) {
      draw.push(sample[c % n] ?? 0)
      c = Math.floor(c / n)
    }
    draw.sort((a, b) => a - b)
    const value = draw[k - 1] ?? 0
    out.set(value, (out.get(value) ?? 0) + 1 / total)
  }
  return out
}

describe('exact bootstrap of a quantile', () => {
  test('equals the enumeration of every resample', () => {
    const sample = [3, 5, 5, 8, 13, 21]
    const buckets = { values: [3, 5, 8, 13, 21], counts: [1, 2, 1, 1, 1], total: 6 }
    for (const q of [0.5, 0.9]) {
      const exact = bootstrapQuantileDistribution(buckets, q)
      const brute = enumeratedBootstrap(sample, q)
      expect(exact.values).toEqual([...brute.keys()].sort((a, b) => a - b))
      exact.values.forEach((value, i) => expect(exact.probabilities[i]).toBeCloseTo(brute.get(value) ?? 0, 12))
    }
  })
})

describe('ratio interval', () => {
  function bruteInterval(
    u: DiscreteDistribution,
    v: DiscreteDistribution,
    confidence: number,
  ): { low: number; high: number } {
    const atoms: Array<[number, number]> = []
    u.values.forEach((a, i) =>
      v.values.forEach((b, j) => atoms.push([a / b, (u.probabilities[i] ?? 0) * (v.probabilities[j] ?? 0)])),
    )
    atoms.sort((x, y) => x[0] - y[0])
    const quantile = (target: number): number => {
      let cumulative = 0
      for (const [r, p] of atoms) {
        cumulative += p
        if (cumulative >= target - 1e-12) return r
      }
      return atoms[atoms.length - 1]?.[0] ?? 0
    }
    return { low: quantile((1 - confidence) / 2), high: quantile(1 - (1 - confidence) / 2) }
  }

  test('is the central interval of the exact ratio distribution', () => {
    const u = { values: [90, 100, 110, 130], probabilities: [0.1, 0.4, 0.3, 0.2] }
    const v = { values: [80, 95, 100], probabilities: [0.05, 0.5, 0.45] }
    for (const confidence of [0.5, 0.8, 0.95]) {
      const exact = ratioInterval(u, v, confidence)
      const brute = bruteInterval(u, v, confidence)
      expect(exact.low).toBeCloseTo(brute.low, 9)
      expect(exact.high).toBeCloseTo(brute.high, 9)
    }
  })
})
