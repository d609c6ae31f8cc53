import { describe, expect, test } from 'vitest'
import { abEstimateLine } from '../../src/cli/ab-estimate.ts'

describe('abEstimateLine', () => {
  test('the pair limit at the first pair’s pace, or the budget where that is less, for every bench', () => {
    const limits = { min: 3, max: 6, budgetMs: 30 * 60_000 }
    expect(abEstimateLine(21_000, limits, 1)).toBe('pair 1 took 21 s; at most 6 pairs: at most ~2.1 min')
    expect(abEstimateLine(21_000, limits, 2)).toBe(
      'pair 1 took 21 s; at most 6 pairs for each of 2 benches: at most ~4.2 min',
    )
    expect(abEstimateLine(600_000, limits, 1)).toBe(
      'pair 1 took 600 s; at most 6 pairs: at most ~30.0 min (the time budget, --budget-min)',
    )
  })
})
