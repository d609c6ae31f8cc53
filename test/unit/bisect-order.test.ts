// The order of a bisection: each answer halves the range; skipped and undecided commits are set aside.
import { describe, expect, test } from 'vitest'
import {
  bisectOrder,
  bisectOrderAfter,
  bisectProfile,
  runCampaign,
  type BisectOutcome,
} from '../../src/core/campaign/index.ts'

/** Bisects `count` commits whose first bad one is `culprit`, answering from `answerOf`; returns the indices asked. */
function bisect(count: number, answerOf: (i: number) => BisectOutcome) {
  const order = bisectOrder(count)
  const asked: number[] = []
  for (let i = order.next(); i !== undefined; i = order.next()) {
    asked.push(i)
    order.answer(i, answerOf(i))
  }
  return { asked, found: order.found() }
}

describe('bisectOrder', () => {
  test('16 commits, the 11th (index 10) bad: named in 4 steps, always', () => {
    for (let culprit = 0; culprit < 16; culprit++) {
      const { asked, found } = bisect(16, (i) => (i >= culprit ? 'bad' : 'good'))
      expect(found.culprit, `culprit ${culprit}`).toBe(culprit)
      expect(asked.length).toBeLessThanOrEqual(4)
    }
    expect(bisect(16, (i) => (i >= 10 ? 'bad' : 'good')).asked).toEqual([7, 11, 9, 10])
  })

  test('one commit: it is the culprit without a step', () => {
    expect(bisect(1, () => 'bad')).toEqual({ asked: [], found: { culprit: 0, range: [0] } })
  })

  test('a skipped commit is set aside and its neighbour asked; the culprit is still found', () => {
    const { asked, found } = bisect(16, (i) => (i === 7 ? 'skipped' : i >= 10 ? 'bad' : 'good'))
    expect(asked[0]).toBe(7)
    expect(asked[1]).toBe(8)
    expect(found.culprit).toBe(10)
  })

  test('the culprit beside a skipped commit: the range holds both, not one name', () => {
    // Index 9 cannot be judged and 10 is the first bad: the change is in 9 or 10.
    const { found } = bisect(16, (i) => (i === 9 ? 'skipped' : i >= 10 ? 'bad' : 'good'))
    expect(found.culprit).toBeUndefined()
    expect(found.range).toEqual([9, 10])
  })

  test('two changes, a slowdown at 5 and a partial recovery at 12 that still fails against good: the first is named', () => {
    // Against good, every commit from 5 on is slower (the recovery at 12 is partial): bad from 5 on.
    expect(bisect(16, (i) => (i >= 5 ? 'bad' : 'good')).found.culprit).toBe(5)
  })

  test('two slowdowns, at 3 and at 9, each failing against good: the first is named (bad stays bad after it)', () => {
    expect(bisect(16, (i) => (i >= 3 ? 'bad' : 'good')).found.culprit).toBe(3)
  })

  test('answers outside the range are refused', () => {
    const order = bisectOrder(4)
    order.answer(1, 'bad')
    expect(() => order.answer(2, 'good')).toThrow(RangeError)
  })
})

describe('bisectProfile: a bisection on the campaign driver', () => {
  /** The same bisection as `bisect`, each midpoint a step the driver measures. */
  async function onDriver(count: number, answerOf: (i: number) => BisectOutcome) {
    const { measured, stopped } = await runCampaign({
      profile: bisectProfile(count),
      measure: async (index) => ({ index, outcome: answerOf(index) }),
      judge: () => undefined,
    })
    return { asked: measured.map((m) => m.index), found: bisectOrderAfter(count, measured).found(), stopped }
  }

  test('asks what the order asks, and finds what it finds, skipped commits included', async () => {
    const answers: Array<(i: number) => BisectOutcome> = [
      (i) => (i >= 10 ? 'bad' : 'good'),
      (i) => (i === 7 ? 'skipped' : i >= 10 ? 'bad' : 'good'),
      (i) => (i >= 5 && i <= 8 ? 'undecided' : i >= 6 ? 'bad' : 'good'),
    ]
    for (const answerOf of answers) {
      const driven = await onDriver(16, answerOf)
      expect({ asked: driven.asked, found: driven.found }).toEqual(bisect(16, answerOf))
      expect(driven.stopped).toBe('no commit is left to judge')
    }
  })
})
