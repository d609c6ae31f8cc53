import { describe, expect, it } from 'vitest'
import { summarizeLag } from '../../src/core/load/schedule-lag.ts'

describe('summarizeLag', () => {
  it('reads nearest-rank percentiles from unsorted lags', () => {
    // 1..200 ms shuffled: nearest rank gives p50 = the 100th value, p99 = the 198th.
    const lags = Array.from({ length: 200 }, (_, i) => ((i * 73) % 200) + 1)
    expect(summarizeLag(lags)).toEqual({ p50: 100, p99: 198, max: 200 })
  })

  it('takes the single value for every statistic, and nothing from no lags', () => {
    expect(summarizeLag([3.5])).toEqual({ p50: 3.5, p99: 3.5, max: 3.5 })
    expect(summarizeLag([])).toBeUndefined()
  })
})
