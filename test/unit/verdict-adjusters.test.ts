import { describe, expect, test } from 'vitest'
import { adjustChecks, VERDICT_ADJUSTERS, type AdjustableCheck, type JudgedRun } from '../../src/core/verdict/index.ts'
import {
  clientFellBehind,
  disturbedMachine,
  lateReads,
  provisionalBaseline,
  stealBelowLimit,
} from '../../src/core/verdict/verdict-adjusters.ts'

const QUIET: JudgedRun = { keptUp: true, disturbed: [] }
const LATE = { watchedRequests: 400, lateRequests: 40, share: 0.1, thresholdMs: 5, p50Ms: 6, p99Ms: 40, maxMs: 90 }

/** A TTFT p50 check 20 ms slower than its baseline, its interval beyond the +10 % limit. */
const latency = (status: AdjustableCheck['status']): AdjustableCheck => ({
  status,
  unit: 'ms',
  statistic: 'p50',
  baseline: 100,
  current: 120,
  ciLow: 1.12,
  ciHigh: 1.28,
  tolerance: 0.1,
})
/** A sweep's relative check: a status and a message, no figures. */
const bare = (status: AdjustableCheck['status']): AdjustableCheck => ({ status, reason: '808 >= 909' })

describe('the verdict adjusters', () => {
  test('one list, in the order the rules apply', () => {
    expect(VERDICT_ADJUSTERS).toEqual([
      clientFellBehind,
      lateReads,
      stealBelowLimit,
      disturbedMachine,
      provisionalBaseline,
    ])
  })

  test('a quiet run against a trusted baseline keeps every check and adds no note', () => {
    const checks = [latency('fail'), latency('pass'), bare('fail')]
    expect(adjustChecks(checks, QUIET)).toEqual({ checks, notes: [] })
  })

  test('each rule reads its field of the run; a later rule sees what an earlier one made of a check', () => {
    const run: JudgedRun = { ...QUIET, keptUp: false, keptUpWarning: 'lag p99 850 ms', disturbed: ['steal 9 %'] }
    const { checks, notes } = adjustChecks([bare('fail'), bare('pass')], run)
    expect(checks).toEqual([
      {
        status: 'inconclusive',
        reason:
          'the machine was disturbed while this run measured (steal 9 %); the client could not keep up; 808 >= 909',
      },
      bare('pass'),
    ])
    expect(notes).toEqual([
      'The client could not keep up with the planned load (lag p99 850 ms): ' +
        'the server saw another load than the baseline did, so failures are reported as inconclusive.',
      'The machine was disturbed while this run measured (steal 9 %): ' +
        'failures are reported as inconclusive. Run it again on a quiet machine.',
    ])
  })

  test('a provisional baseline turns a pass inconclusive and leaves a fail', () => {
    const { checks } = adjustChecks([bare('pass'), bare('fail')], { ...QUIET, baselineProvisional: ['steal 9 %'] })
    expect(checks.map((check) => check.status)).toEqual(['inconclusive', 'fail'])
    expect(checks[0]?.reason).toBe(
      'the baseline was recorded while the machine was disturbed (steal 9 %) and can hide a slowdown; 808 >= 909',
    )
  })

  test('lateness and steal read figures: they judge a latency with its interval, and leave a check without', () => {
    const late = adjustChecks([latency('fail'), bare('fail')], { ...QUIET, lateness: { ...LATE, p50Ms: 25 } })
    expect(late.checks.map((check) => check.status)).toEqual(['inconclusive', 'fail'])
    expect(late.checks[0]?.reason).toMatch(
      /^the change \(20\.00 ms\) is within the client's measured lateness \(p50 25\.00 ms/,
    )
    // A change beyond the lateness stands.
    expect(adjustChecks([latency('fail')], { ...QUIET, lateness: LATE }).checks[0]?.status).toBe('fail')

    const stolen = adjustChecks([latency('fail'), bare('fail')], { ...QUIET, stealShare: 0.01 })
    expect(stolen.checks.map((check) => check.status)).toEqual(['inconclusive', 'fail'])
    expect(stolen.checks[0]?.reason).toMatch(
      /^the hypervisor took 1\.0 % of the CPU \(steal\), which can move this by \+40 %/,
    )
    // At or below the notice, and above the disturbance limit (the disturbed-machine rule's), steal grades nothing.
    for (const stealShare of [0.005, 0.06])
      expect(adjustChecks([latency('fail')], { ...QUIET, stealShare }).checks[0]?.status).toBe('fail')
  })
})
