import { describe, expect, test } from 'vitest'
import { changePoints } from '../../src/core/history/change-points.ts'
import { createRandom } from '../../src/core/platform/random.ts'

/** `n` lognormal values around `median` with log-space sd `sigma`, from a fixed seed. */
function noise(seed: number, n: number, median = 100, sigma = 0.05): number[] {
  const random = createRandom(seed)
  return Array.from({ length: n }, () => median * Math.exp(sigma * random.normal()))
}

describe('changePoints (E-Divisive means, Student t)', () => {
  test('a 20 % step after 6 of 12 points is found at the first point after it, p < 0.001', () => {
    const values = noise(1, 12, 100, 0.03).map((value, i) => (i >= 6 ? value * 1.2 : value))
    const found = changePoints(values)
    expect(found).toHaveLength(1)
    expect(found[0]?.index).toBe(6)
    expect(found[0]?.pValue).toBeLessThan(0.001)
    expect(found[0]?.relativeChange).toBeGreaterThan(0.15)
    expect(found[0]?.relativeChange).toBeLessThan(0.25)
  })

  test('two steps in 100 points, windows of 50: both found, each tested between its neighbours', () => {
    const values = noise(2, 100).map((value, i) => (i >= 70 ? value * 0.8 : i >= 30 ? value * 1.15 : value))
    const found = changePoints(values)
    expect(found.map((point) => point.index)).toEqual([30, 70])
    expect(found[1]?.meanBefore).toBeGreaterThan(105)
    expect(found.every((point) => point.pValue < 0.001)).toBe(true)
  })

  test('flat noise gives no change point (fixed seeds, 12 to 100 points)', () => {
    for (const [seed, n] of [
      [11, 12],
      [12, 30],
      [13, 50],
      [14, 100],
    ] as const)
      expect(changePoints(noise(seed, n)), `seed ${seed}, ${n} points`).toEqual([])
  })

  test('a constant series, a single point and an empty one have none', () => {
    expect(changePoints(Array.from({ length: 20 }, () => 42))).toEqual([])
    expect(changePoints([1])).toEqual([])
    expect(changePoints([])).toEqual([])
  })

  test('a looser threshold finds a smaller step the default misses', () => {
    const values = noise(6, 12, 100, 0.03).map((value, i) => (i >= 6 ? value * 1.06 : value))
    const strict = changePoints(values)
    const loose = changePoints(values, { maxPValue: 0.05 })
    expect(strict).toEqual([])
    expect(loose.map((point) => point.index)).toEqual([6])
    expect(loose[0]?.pValue).toBeGreaterThan(0.001)
    expect(loose[0]?.pValue).toBeLessThan(0.05)
  })
})
