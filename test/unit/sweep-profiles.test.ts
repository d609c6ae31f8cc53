/** A sweep's axis and a capacity search are profiles of the one campaign driver: the steps they choose. */
import { describe, expect, test } from 'vitest'
import { runCampaign } from '../../src/core/campaign/index.ts'
import type { SweepPoint } from '../../src/core/sweep/sweep-result.ts'
import {
  axisProfile,
  capacityProfile,
  maxPointsWarning,
  SWEEP_ABORTED,
  type PointProfile,
} from '../../src/core/sweep/sweep-profiles.ts'

/** Runs a profile with a measure that marks a rate valid when it is at most `capacity`. */
async function walk(profile: PointProfile, capacity = 10, onMeasure?: (value: number) => void) {
  const outcome = await runCampaign({
    profile,
    measure: async (value, order): Promise<SweepPoint> => {
      onMeasure?.(value)
      return { value, order, valid: value <= capacity, result: {} as SweepPoint['result'] }
    },
    judge: () => undefined,
  })
  return { values: outcome.measured.map((point) => point.value), stopped: outcome.stopped }
}

const search = { start: 8, range: { min: 1, max: 64 }, precision: 0.05, maxPoints: 20 }

describe('sweep profiles', () => {
  test('an axis is every value, in the order given', async () => {
    expect(await walk(axisProfile([4, 1, 2]))).toEqual({
      values: [4, 1, 2],
      stopped: 'every value of the axis measured (3)',
    })
  })

  test('an aborted sweep stops before its next point, without an error', async () => {
    const controller = new AbortController()
    const walked = await walk(axisProfile([1, 2, 3, 4], controller.signal), 10, (value) => {
      if (value === 2) controller.abort()
    })
    expect(walked).toEqual({ values: [1, 2], stopped: SWEEP_ABORTED })
  })

  test('a capacity search doubles, then bisects the bracket down to its precision', async () => {
    // 8 passes, 16 fails, then 12, 10, 11, 10.5: the bracket [10, 10.5] is within 5 %.
    const walked = await walk(capacityProfile(search))
    expect(walked.values).toEqual([8, 16, 12, 10, 11, 10.5])
    expect(walked.stopped).not.toBe(maxPointsWarning(search))
  })

  test('a capacity search halves until a rate passes, and ends at the range', async () => {
    expect((await walk(capacityProfile(search), 0.5)).values).toEqual([8, 4, 2, 1])
    expect((await walk(capacityProfile(search), 100)).values).toEqual([8, 16, 32, 64])
  })

  test('a capacity search out of points says so, and measures no more', async () => {
    const short = { ...search, maxPoints: 3 }
    expect(await walk(capacityProfile(short))).toEqual({ values: [8, 16, 12], stopped: maxPointsWarning(short) })
  })
})
