import { describe, expect, it } from 'vitest'
import {
  arrivalTimeOf,
  expectedArrivals,
  planArrivals as planResolved,
  plannedArrivalCount as countResolved,
} from '../../src/core/load/index.ts'
import { resolveLoad } from '../../src/core/plan/index.ts'
import type { LoadOptions } from '../../src/core/contract/options.ts'

// The loads below are written as a user writes them; the plan resolves them before the load stages see them.
const planArrivals = (load: LoadOptions, seed: number, count: number): number[] =>
  planResolved(resolveLoad(load), seed, count)
const plannedArrivalCount = (load: LoadOptions): number => countResolved(resolveLoad(load))

const gapsOf = (offsets: number[]): number[] => offsets.map((t, i) => t - (i === 0 ? 0 : (offsets[i - 1] as number)))
const meanAndCv = (xs: number[]): { mean: number; cv: number } => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)
  return { mean, cv: Math.sqrt(variance) / mean }
}
const countIn = (offsets: number[], fromMs: number, toMs: number): number =>
  offsets.filter((t) => t > fromMs && t <= toMs).length

describe('planArrivals', () => {
  it('plans a Poisson process: mean gap 1/rate, CV 1, exponential shape', () => {
    const rate = 50
    const n = 20000
    const gaps = gapsOf(planArrivals({ rate, requests: n }, 1, n))
    const { mean, cv } = meanAndCv(gaps)
    expect(Math.abs(mean / (1000 / rate) - 1)).toBeLessThan(0.03)
    expect(Math.abs(cv - 1)).toBeLessThan(0.05)
    // Exponential: P(gap < mean) = 1 - 1/e.
    const below = gaps.filter((g) => g < mean).length / n
    expect(Math.abs(below - (1 - Math.exp(-1)))).toBeLessThan(0.015)
    expect(gaps.every((g) => g >= 0)).toBe(true)
  })

  it.each([0.5, 4])('plans gamma gaps with CV 1/sqrt(burstiness) for burstiness %s', (burstiness) => {
    const n = 20000
    const gaps = gapsOf(planArrivals({ rate: 20, arrival: 'gamma', burstiness, requests: n }, 2, n))
    const { cv } = meanAndCv(gaps)
    expect(Math.abs(cv / (1 / Math.sqrt(burstiness)) - 1)).toBeLessThan(0.05)
  })

  it('treats burstiness without arrival as gamma, as vLLM does', () => {
    const n = 20000
    const { cv } = meanAndCv(gapsOf(planArrivals({ rate: 20, burstiness: 4, requests: n }, 2, n)))
    expect(cv).toBeCloseTo(0.5, 1)
  })

  it('rescales so N arrivals span exactly N/rate (as vLLM get_request)', () => {
    for (const load of [
      { rate: 7, arrival: 'gamma', burstiness: 0.5 },
      { rate: 7, arrival: 'gamma', burstiness: 4 },
      { rate: 7, arrival: 'poisson' },
      { rate: 7, arrival: 'constant' },
    ] satisfies LoadOptions[]) {
      for (const n of [1, 13, 1000]) {
        const offsets = planArrivals({ ...load, requests: n }, 9, n)
        expect(offsets).toHaveLength(n)
        expect(offsets[n - 1]).toBeCloseTo((n / 7) * 1000, 6)
        expect(offsets.every((t, i) => i === 0 || t >= (offsets[i - 1] as number))).toBe(true)
      }
    }
  })

  it('spaces constant arrivals exactly 1/rate apart, the first one gap after the start', () => {
    const offsets = planArrivals({ rate: 4, arrival: 'constant', requests: 5 }, 0, 5)
    expect(offsets.map((t) => Math.round(t * 1e6) / 1e6)).toEqual([250, 500, 750, 1000, 1250])
  })

  it('repeats the schedule for a seed and changes it with the seed', () => {
    const load: LoadOptions = { rate: 30, requests: 100 }
    expect(planArrivals(load, 5, 100)).toEqual(planArrivals(load, 5, 100))
    const other = planArrivals(load, 6, 100)
    expect(other).not.toEqual(planArrivals(load, 5, 100))
    expect(other[99]).toBeCloseTo(planArrivals(load, 5, 100)[99] as number, 6)
  })

  it('sends everything at once for rate Infinity', () => {
    expect(planArrivals({ rate: Infinity, requests: 4 }, 0, 4)).toEqual([0, 0, 0, 0])
  })

  it('plans the expected count for a duration-only load, all within the duration', () => {
    expect(plannedArrivalCount({ rate: 10, durationMs: 1000 })).toBe(10)
    expect(plannedArrivalCount({ rate: 10, durationMs: 1050 })).toBe(10)
    expect(plannedArrivalCount({ rate: 10, requests: 3, durationMs: 1000 })).toBe(3)
    const offsets = planArrivals({ rate: 10, durationMs: 1000 }, 1, 10)
    expect(Math.max(...offsets)).toBeLessThanOrEqual(1000 + 1e-9)
  })

  it('ramps the rate linearly up to the target and holds it', () => {
    const load: LoadOptions = { rate: 1000, rampUp: { from: 100, durationMs: 10_000 }, durationMs: 12_000 }
    const n = plannedArrivalCount(load)
    expect(n).toBe(5500 + 2000)
    const offsets = planArrivals(load, 3, n)
    // First second: the ramp averages 145 req/s there; last half second of the ramp: 977.5 req/s.
    expect(countIn(offsets, 0, 1000) / 145).toBeGreaterThan(0.85)
    expect(countIn(offsets, 0, 1000) / 145).toBeLessThan(1.15)
    expect(Math.abs(countIn(offsets, 9500, 10_000) / 0.5 / 977.5 - 1)).toBeLessThan(0.1)
    // After the ramp: the end rate.
    expect(Math.abs(countIn(offsets, 10_000, 12_000) / 2 / 1000 - 1)).toBeLessThan(0.1)
  })

  it('ramps the rate exponentially: the last window of the ramp runs at its end rate', () => {
    const load: LoadOptions = {
      rate: 500,
      arrival: 'constant',
      rampUp: { from: 5, durationMs: 10_000, curve: 'exponential' },
      durationMs: 10_000,
    }
    const offsets = planArrivals(load, 1, plannedArrivalCount(load))
    // Rate at 9.8..10 s: 5 * 100^(t/10 s), averaging about 478 req/s; at 0..1 s about 7.8 req/s.
    const lastWindow = countIn(offsets, 9800, 10_000) / 0.2
    expect(Math.abs(lastWindow / 500 - 1)).toBeLessThan(0.1)
    expect(countIn(offsets, 0, 1000)).toBeLessThan(12)
  })

  it('maps operational time back to clock time exactly (ramp inverse)', () => {
    for (const curve of ['linear', 'exponential'] as const) {
      const ramp = { from: 3, to: 40, durationMs: 5000, curve }
      for (const t of [0, 1, 250, 4999, 5000, 7000]) {
        expect(arrivalTimeOf(ramp, 40, expectedArrivals(ramp, 40, t))).toBeCloseTo(t, 6)
      }
    }
    // Linear ramp from 0.
    const fromZero = { from: 0, to: 10, durationMs: 1000, curve: 'linear' as const }
    expect(expectedArrivals(fromZero, 10, 1000)).toBeCloseTo(5, 9)
    expect(arrivalTimeOf(fromZero, 10, 5)).toBeCloseTo(1000, 6)
  })
})
