import { describe, expect, it } from 'vitest'
import { createRandom, deriveSeed } from '../../src/core/platform/random.ts'

const stats = (xs: number[]): { mean: number; sd: number } => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1))
  return { mean, sd }
}

describe('createRandom', () => {
  it('repeats its sequence for a seed and differs between seeds', () => {
    const a = createRandom(42)
    const b = createRandom(42)
    const c = createRandom(43)
    const seqA = Array.from({ length: 50 }, () => a.next())
    expect(Array.from({ length: 50 }, () => b.next())).toEqual(seqA)
    expect(Array.from({ length: 50 }, () => c.next())).not.toEqual(seqA)
    // Fractional and negative seeds are distinct seeds, not truncated to the same integer.
    expect(createRandom(0.5).next()).not.toBe(createRandom(0).next())
    expect(createRandom(-1).next()).not.toBe(createRandom(1).next())
  })

  it('draws uniform numbers in [0, 1) with the right mean and spread', () => {
    const r = createRandom(7)
    const xs = Array.from({ length: 20000 }, () => r.next())
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...xs)).toBeLessThan(1)
    const { mean, sd } = stats(xs)
    expect(mean).toBeCloseTo(0.5, 2)
    expect(sd).toBeCloseTo(Math.sqrt(1 / 12), 2)
    // Each tenth of the interval gets about a tenth of the draws.
    const bins = new Array(10).fill(0)
    for (const x of xs) bins[Math.floor(x * 10)]++
    for (const bin of bins) expect(Math.abs(bin - 2000)).toBeLessThan(200)
  })

  it('draws normal, exponential and gamma numbers with their textbook moments', () => {
    const r = createRandom(11)
    const n = 20000
    const normal = stats(Array.from({ length: n }, () => r.normal()))
    expect(Math.abs(normal.mean)).toBeLessThan(0.03)
    expect(normal.sd).toBeCloseTo(1, 1)
    const exponential = stats(Array.from({ length: n }, () => r.exponential(4)))
    expect(exponential.mean).toBeCloseTo(0.25, 2)
    expect(exponential.sd).toBeCloseTo(0.25, 2)
    for (const shape of [0.3, 1, 2.5, 9]) {
      const g = stats(Array.from({ length: n }, () => r.gamma(shape, 2)))
      expect(g.mean / (shape * 2)).toBeCloseTo(1, 1)
      expect(g.sd / (Math.sqrt(shape) * 2)).toBeCloseTo(1, 1)
    }
  })

  it('gives integers in range and shuffles into a permutation', () => {
    const r = createRandom(3)
    const seen = new Set<number>()
    for (let i = 0; i < 1000; i++) {
      const k = r.integer(7)
      expect(Number.isInteger(k) && k >= 0 && k < 7).toBe(true)
      seen.add(k)
    }
    expect(seen.size).toBe(7)
    const items = Array.from({ length: 30 }, (_, i) => i)
    const shuffled = createRandom(5).shuffle([...items])
    expect(shuffled).not.toEqual(items)
    expect([...shuffled].sort((a, b) => a - b)).toEqual(items)
  })

  it('derives distinct, reproducible seeds per label', () => {
    expect(deriveSeed(1, 2, 3)).toBe(deriveSeed(1, 2, 3))
    const seeds = new Set([
      deriveSeed(1, 2, 3),
      deriveSeed(1, 3, 2),
      deriveSeed(2, 2, 3),
      deriveSeed(1, 2),
      deriveSeed(1, 2, -3),
    ])
    expect(seeds.size).toBe(5)
  })

  it('derives seeds from text labels too, reproducibly and distinct per text', () => {
    expect(deriveSeed(7, 'faults')).toBe(deriveSeed(7, 'faults'))
    const seeds = new Set([
      deriveSeed(7, 'faults'),
      deriveSeed(7, 'ids'),
      deriveSeed(8, 'faults'),
      deriveSeed(7, 'content', 'a'),
      deriveSeed(7, 'content', 'b'),
      deriveSeed(7, ''),
    ])
    expect(seeds.size).toBe(6)
  })
})
