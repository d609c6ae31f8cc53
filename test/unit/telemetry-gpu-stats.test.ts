import { describe, expect, test } from 'vitest'
import { computeGpuStats, integrateEnergyJ } from '../../src/core/telemetry/gpu-stats.ts'
import type { GpuSample } from '../../src/core/contract/result.ts'

const gpu0 = { index: 0, name: 'NVIDIA H200', uuid: 'GPU-a', memoryTotalMiB: 143771 }
const all = { startAt: Number.NEGATIVE_INFINITY, endAt: Number.POSITIVE_INFINITY }

describe('integrateEnergyJ (trapezoidal, watts over milliseconds)', () => {
  const ramp: GpuSample[] = [
    { t: 0, index: 0, powerW: 100 },
    { t: 1000, index: 0, powerW: 200 },
    { t: 2000, index: 0, powerW: 300 },
  ]

  test('whole series: (100+200)/2 * 1 s + (200+300)/2 * 1 s = 400 J', () => {
    expect(integrateEnergyJ(ramp, all)).toBeCloseTo(400, 9)
  })

  test('a window inside the series is cut at interpolated edges: P(500)=150, P(1500)=250 -> 87.5 + 112.5 = 200 J', () => {
    expect(integrateEnergyJ(ramp, { startAt: 500, endAt: 1500 })).toBeCloseTo(200, 9)
  })

  test('nothing is extrapolated beyond the first and last sample', () => {
    expect(integrateEnergyJ(ramp, { startAt: -5000, endAt: 1000 })).toBeCloseTo(150, 9)
  })

  test('[N/A] samples are skipped and their neighbours joined; fewer than two readings give undefined', () => {
    const gappy: GpuSample[] = [
      { t: 0, index: 0, powerW: 100 },
      { t: 500, index: 0 },
      { t: 2000, index: 0, powerW: 100 },
    ]
    expect(integrateEnergyJ(gappy, all)).toBeCloseTo(200, 9)
    expect(
      integrateEnergyJ(
        [
          { t: 0, index: 0, powerW: 100 },
          { t: 1, index: 0 },
        ],
        all,
      ),
    ).toBeUndefined()
  })

  test('unsorted samples give the same energy', () => {
    expect(integrateEnergyJ([...ramp].reverse(), all)).toBeCloseTo(400, 9)
  })
})

describe('computeGpuStats', () => {
  const samples: GpuSample[] = [
    { t: 0, index: 0, memoryUsedMiB: 900, utilizationPct: 0, powerW: 60 }, // before the window
    { t: 1000, index: 0, memoryUsedMiB: 1000, utilizationPct: 20, powerW: 100 },
    { t: 1200, index: 1, memoryUsedMiB: 7, utilizationPct: 99, powerW: 999 }, // another GPU
    { t: 2000, index: 0, memoryUsedMiB: 3000, utilizationPct: 60, powerW: 200 },
    { t: 3000, index: 0, memoryUsedMiB: 2000, utilizationPct: 40, powerW: 300 },
    { t: 4000, index: 0, memoryUsedMiB: 950, utilizationPct: 0, powerW: 60 }, // after the window
  ]

  test('peak and mean memory, mean utilization, mean and peak power, energy and joules per token over the window', () => {
    const stats = computeGpuStats(
      gpu0,
      samples,
      { startAt: 1000, endAt: 3000 },
      { memoryBeforeMiB: 800, memoryAfterMiB: 850, outputTokens: 80 },
    )
    expect(stats).toEqual({
      index: 0,
      name: 'NVIDIA H200',
      uuid: 'GPU-a',
      memoryBeforeMiB: 800,
      memoryAfterMiB: 850,
      memoryPeakMiB: 3000,
      memoryMeanMiB: 2000,
      memoryTotalMiB: 143771,
      utilizationMeanPct: 40,
      powerMeanW: 200,
      powerPeakW: 300,
      energyJ: 400,
      energyPerOutputTokenJ: 5,
    })
  })

  test('a window shorter than the interval uses the samples on either side of it', () => {
    const stats = computeGpuStats(gpu0, samples, { startAt: 1400, endAt: 1600 })
    expect(stats.memoryPeakMiB).toBe(3000)
    expect(stats.memoryMeanMiB).toBe(2000)
    // P(1400) = 140, P(1600) = 160 -> 150 W for 0.2 s.
    expect(stats.energyJ).toBeCloseTo(30, 9)
  })

  test('a GPU that never reports power has no power or energy figures', () => {
    const stats = computeGpuStats(
      { index: 2, name: 'x' },
      [
        { t: 0, index: 2, memoryUsedMiB: 5 },
        { t: 1, index: 2, memoryUsedMiB: 7 },
      ],
      all,
      { outputTokens: 10 },
    )
    expect(stats).toEqual({ index: 2, name: 'x', memoryPeakMiB: 7, memoryMeanMiB: 6 })
  })
})
