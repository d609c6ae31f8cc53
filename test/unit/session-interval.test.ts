// Stored baselines that know how far the machine moves between sessions: the prediction interval for one more
// session, on synthetic data with a known truth (session effects drawn from a known spread), and in the verdict.
import { describe, expect, test } from 'vitest'
import { baselineEntryFrom, type BaselineEntry } from '../../src/core/baseline/index.ts'
import { MIN_MEASURED_SESSIONS, sessionInterval, sessionSpreadOf } from '../../src/core/verdict/session-interval.ts'
import { DEFAULT_ASSUMED_SESSION_SPREAD as ASSUMED } from '../../src/core/verdict/regression-policy.ts'
import { trialFiguresOf } from '../../src/core/trials/index.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'
import { compare } from '../helpers/compare-given.ts'
import { beyondMoreTrials } from '../../src/core/verdict/index.ts'
import type { Check } from '../../src/core/verdict/verdict.ts'

/** A standard normal draw. */
const normal = (random: () => number): number =>
  Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())

describe('sessionInterval', () => {
  test('fewer than 3 sessions: the assumed spread, normal quantile; from 3: pooled with it, Student t', () => {
    expect(sessionSpreadOf([100, 130], ASSUMED)).toEqual({
      sessions: 2,
      logStdDev: ASSUMED,
      df: Number.POSITIVE_INFINITY,
      assumed: true,
    })
    const one = sessionInterval([100], 100, 0.95, ASSUMED)
    // 1.96 x 0.12 x sqrt(2) = 0.3326 in log.
    expect(one?.high).toBeCloseTo(Math.exp(0.3326), 3)
    expect(one?.low).toBeCloseTo(Math.exp(-0.3326), 3)
    const three = sessionInterval([100, 110, 121], 110, 0.95, ASSUMED)
    const logs = [100, 110, 121].map(Math.log)
    const squares = logs.reduce((s, v) => s + (v - Math.log(110)) ** 2, 0)
    // Pooled with the assumed spread, weighted as 4 sessions: (4 x 0.12^2 + squares) / (4 + 2).
    const sd = Math.sqrt((4 * ASSUMED ** 2 + squares) / 6)
    expect(three?.spread).toEqual({
      sessions: MIN_MEASURED_SESSIONS,
      logStdDev: expect.closeTo(sd, 9),
      df: 6,
      assumed: false,
    })
    // t(0.975, 6) = 2.447; sqrt(1 + 1/3).
    expect(Math.log((three?.high ?? 0) / (three?.ratio ?? 1))).toBeCloseTo(2.447 * sd * Math.sqrt(4 / 3), 2)
    expect(three?.center).toBeCloseTo(110, 6)
  })

  test('session effects from a known spread: an unchanged session falls outside at about the nominal rate', () => {
    const random = seededRandom(52)
    // The assumed spread's own size: the pooled estimate is then unbiased, and the rate nominal.
    const sigma = ASSUMED
    for (const stored of [3, 5, 10]) {
      let outside = 0
      const draws = 4000
      for (let i = 0; i < draws; i++) {
        const sessions = Array.from({ length: stored }, () => 100 * Math.exp(sigma * normal(random)))
        const next = 100 * Math.exp(sigma * normal(random))
        const interval = sessionInterval(sessions, next, 0.95, ASSUMED)
        if (interval === undefined || interval.low > 1 || interval.high < 1) outside++
      }
      // A prediction interval holds 95 % of new sessions: at most 5 % outside, both sides (4000 draws: ±1.1 % at 3 sd);
      // the assumed spread counted as 4 sessions' evidence makes it conservative with few sessions (2.4 % at 3).
      expect(outside / draws, `${stored} sessions`).toBeGreaterThan(0.015)
      expect(outside / draws, `${stored} sessions`).toBeLessThan(0.065)
    }
  })

  test('a real 60 % slowdown is found from 10 sessions of a 5 % spread, and from 1 session with the assumed one', () => {
    const random = seededRandom(7)
    let found10 = 0
    let found1 = 0
    for (let i = 0; i < 500; i++) {
      const sessions = Array.from({ length: 10 }, () => 100 * Math.exp(0.05 * normal(random)))
      const slower = 160 * Math.exp(0.05 * normal(random))
      if ((sessionInterval(sessions, slower, 0.95, ASSUMED)?.low ?? 0) > 1.1) found10++
      if ((sessionInterval(sessions.slice(0, 1), slower, 0.95, ASSUMED)?.low ?? 0) > 1.1) found1++
    }
    expect(found10 / 500).toBeGreaterThan(0.99)
    // 1.6 / exp(0.3326) = 1.15: found on most draws even before the spread is known.
    expect(found1 / 500).toBeGreaterThan(0.6)
  })
})

/** A recording of one session: `n` TTFT samples around `medianMs`. */
function recording(seed: number, medianMs: number): ReturnType<typeof makeResult> {
  const random = seededRandom(seed)
  return makeResult({ ttftMs: lognormalSamples(random, 2000, medianMs, 0.2) })
}

describe('compare against a stored baseline: the sessions widen the interval', () => {
  const policy = { ttftMs: { p50: '+10%' } } as const

  test('an unchanged run 30 % slower than the one stored session: failed paired, inconclusive stored, with the advice', () => {
    const stored = baselineEntryFrom(recording(1, 100))
    const moved = recording(2, 130)
    expect(compare(stored, moved, policy).status).toBe('fail')
    const verdict = compare(stored, moved, policy, { stored: true })
    const [ttft] = verdict.checks
    expect(ttft?.status).toBe('inconclusive')
    expect(ttft?.sessions).toEqual({
      count: 1,
      spread: expect.closeTo(Math.exp(0.12) - 1, 6),
      assumed: true,
      containsLimit: true,
    })
    // The allowance for one session, 1.96 x 0.12 x sqrt(2) either side of 1.3, holds the limit 1.1 by itself.
    expect(beyondMoreTrials(ttft as Check)).toMatch(/spans the limit by itself: more samples cannot narrow it/)
    expect(ttft?.reason).toMatch(/assumed 12\.7 ?%, an allowance that spans the limit by itself: more samples cannot/)
    expect(ttft?.reason).not.toContain('more samples would narrow it')
    expect(ttft?.reason).toMatch(/between-session spread not known yet \(1 session stored\): assumed 12\.7 ?%/)
    expect(ttft?.reason).toContain('npx vitest-llm-bench ab --base <ref>')
    expect(ttft?.reason).toContain('LLM_BENCH_ADD_SESSION=1')
  })

  test('assumedSessionSpread 0 trusts the recording alone, as before sessions', () => {
    const stored = baselineEntryFrom(recording(1, 100))
    expect(compare(stored, recording(2, 130), { ...policy, assumedSessionSpread: 0 }, { stored: true }).status).toBe(
      'fail',
    )
  })

  test('-ub 1 sized change (2.3x) still fails on one stored session', () => {
    const stored = baselineEntryFrom(recording(1, 100))
    expect(compare(stored, recording(3, 230), policy, { stored: true }).status).toBe('fail')
  })

  test('ten steady sessions (2 % apart): the interval narrows, and a 40 % slowdown fails where one session could not', () => {
    const first = baselineEntryFrom(recording(1, 100))
    const random = seededRandom(11)
    const sessions = Array.from({ length: 10 }, (_, i) => ({
      at: `2026-12-07T0${i}:00:00.000Z`,
      source: 'added' as const,
      figures: trialFiguresOf(recording(100 + i, 100 * Math.exp(0.02 * normal(random)))),
    }))
    const steady: BaselineEntry = { ...first, sessions }
    const slower = recording(4, 140)
    expect(compare(first, slower, policy, { stored: true }).checks[0]?.status).toBe('inconclusive')
    const judged = compare(steady, slower, policy, { stored: true }).checks[0]
    expect(judged?.status).toBe('fail')
    expect(judged?.sessions?.containsLimit).toBe(false)
    expect(beyondMoreTrials(judged as Check)).toBeUndefined()
    expect(judged?.sessions?.assumed).toBe(false)
    const unchanged = compare(steady, recording(5, 100), policy, { stored: true }).checks[0]
    expect(unchanged?.status).not.toBe('fail')
    expect(unchanged?.reason).toMatch(/between-session spread [\d.]+ ?% over 10 sessions/)
    // Narrower than one session's: (4 x 0.12^2 + 9 x 0.02^2) / 13 pooled, t(13), against 1.96 x 0.12 x sqrt(2).
    const oneWidth = Math.log((compare(first, recording(5, 100), policy, { stored: true }).checks[0]?.ciHigh ?? 0) / 1)
    expect(Math.log(unchanged?.ciHigh ?? 0)).toBeLessThan(oneWidth)
  })
})
