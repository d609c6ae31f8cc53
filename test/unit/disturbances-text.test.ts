import { describe, expect, test } from 'vitest'
import { disturbancesText } from '../../src/core/contract/disturbances-text.ts'

describe('disturbancesText', () => {
  test('names two disturbances, then counts the rest, so five busy trials fit one line', () => {
    const trials = [1, 2, 3, 4, 5].map(
      (i) => `trial ${i}: other processes used 1.9 of 2 cores (busiest: yes pid 9 0.9)`,
    )
    expect(disturbancesText(trials)).toBe(
      'trial 1: other processes used 1.9 of 2 cores (busiest: yes pid 9 0.9); ' +
        'trial 2: other processes used 1.9 of 2 cores (busiest: yes pid 9 0.9); and 3 more',
    )
    expect(disturbancesText(trials.slice(0, 2))).toBe(trials.slice(0, 2).join('; '))
    expect(disturbancesText(['steal 6 %'])).toBe('steal 6 %')
  })
})
