import { describe, expect, it } from 'vitest'
import { findSaturation } from '../../src/core/sweep/saturation.ts'
import { nextSearchRate } from '../../src/core/sweep/sweep-profiles.ts'

const curve = (values: Array<[number, number]>) =>
  values.map(([value, outputTokensPerSec]) => ({
    value,
    outputTokensPerSec,
    requestsPerSec: outputTokensPerSec / 100,
    totalTokensPerSec: outputTokensPerSec * 2,
  }))

describe('findSaturation', () => {
  it('puts the knee where no later point gains more than the share', () => {
    const knee = findSaturation(
      curve([
        [1, 200],
        [2, 380],
        [4, 700],
        [8, 950],
        [16, 990],
        [32, 985],
      ]),
    )
    // 8 -> 16 gains 4.2 % (< 10 %); 4 -> 16 would gain 41 %.
    expect(knee).toMatchObject({
      value: 8,
      throughput: 950,
      saturated: true,
      minGain: 0.1,
      metric: 'outputTokensPerSec',
      peak: { value: 16, throughput: 990 },
    })
  })

  it('is not fooled by a noisy dip followed by more growth', () => {
    // 4 looks flat against 8, but 16 is 40 % above 4: the knee is later.
    expect(
      findSaturation(
        curve([
          [1, 100],
          [2, 200],
          [4, 500],
          [8, 480],
          [16, 700],
          [32, 720],
        ]),
      )?.value,
    ).toBe(16)
  })

  it('sorts by value and honours the metric and minGain given', () => {
    const points = curve([
      [16, 990],
      [1, 200],
      [8, 900],
      [4, 700],
    ])
    expect(findSaturation(points)?.value).toBe(8)
    // With 5 %, 8 -> 16 (+10 %) is still growth.
    expect(findSaturation(points, { minGain: 0.05 })?.value).toBe(16)
    expect(findSaturation(points, { metric: 'requestsPerSec' })).toMatchObject({
      value: 8,
      throughput: 9,
      metric: 'requestsPerSec',
    })
  })

  it('reports an unsaturated curve at its last point', () => {
    expect(
      findSaturation(
        curve([
          [1, 100],
          [2, 190],
          [4, 370],
        ]),
      ),
    ).toMatchObject({ value: 4, saturated: false })
    expect(findSaturation(curve([[8, 100]]))).toMatchObject({ value: 8, saturated: false })
    expect(findSaturation([])).toBeUndefined()
  })
})

describe('nextSearchRate', () => {
  const range = { min: 1, max: 64 }
  it('halves until a rate passes, doubles until one fails, then bisects to the precision', () => {
    expect(nextSearchRate({ rate: 8, valid: false }, { valid: undefined, invalid: 8 }, range, 0.05)).toBe(4)
    expect(nextSearchRate({ rate: 8, valid: true }, { valid: 8, invalid: undefined }, range, 0.05)).toBe(16)
    expect(nextSearchRate({ rate: 16, valid: false }, { valid: 8, invalid: 16 }, range, 0.05)).toBe(12)
    expect(nextSearchRate({ rate: 12, valid: true }, { valid: 12, invalid: 16 }, range, 0.05)).toBe(14)
    // (10.4 - 10) / 10 = 4 % <= 5 %: done.
    expect(nextSearchRate({ rate: 10.4, valid: false }, { valid: 10, invalid: 10.4 }, range, 0.05)).toBeUndefined()
  })

  it('stops at the ends of the range', () => {
    expect(nextSearchRate({ rate: 1, valid: false }, { valid: undefined, invalid: 1 }, range, 0.05)).toBeUndefined()
    expect(nextSearchRate({ rate: 64, valid: true }, { valid: 64, invalid: undefined }, range, 0.05)).toBeUndefined()
    expect(nextSearchRate({ rate: 48, valid: true }, { valid: 48, invalid: undefined }, range, 0.05)).toBe(64)
    expect(nextSearchRate({ rate: 1.5, valid: false }, { valid: undefined, invalid: 1.5 }, range, 0.05)).toBe(1)
  })

  it('converges on a threshold from any start, trying each rate once', () => {
    const threshold = 23.7
    for (const start of [1, 5, 23, 40, 64]) {
      const best: { valid: number | undefined; invalid: number | undefined } = { valid: undefined, invalid: undefined }
      const tried: number[] = []
      let rate: number | undefined = start
      while (rate !== undefined) {
        tried.push(rate)
        const valid = rate <= threshold
        if (valid) best.valid = Math.max(best.valid ?? 0, rate)
        else best.invalid = Math.min(best.invalid ?? Infinity, rate)
        rate = nextSearchRate({ rate, valid }, best, range, 0.05)
      }
      expect(new Set(tried).size).toBe(tried.length)
      expect(best.valid).toBeLessThanOrEqual(threshold)
      expect(best.valid).toBeGreaterThanOrEqual(threshold / 1.05)
      expect(tried.length).toBeLessThanOrEqual(12)
    }
  })
})
