// The campaign driver and its pair profile: the loop every paired verdict runs on (bench.llm.compare and `ab`),
// the duet order and slices of arms kept up together, and, on synthetic data with a known truth, what pairing in
// time buys on a host whose speed moves in phases.
import { describe, expect, test } from 'vitest'
import {
  duetOrder,
  pairsProfile,
  runCampaign,
  sliceRunPlan,
  unsliceable,
  type CampaignProfile,
} from '../../src/core/campaign/index.ts'
import { planRun } from '../../src/core/plan/index.ts'
import type { PairedCheck, PairLimits } from '../../src/core/verdict/index.ts'
import { rates } from '../helpers/duet-simulation.ts'

describe('runCampaign', () => {
  test('asks the profile after every judgement, measures its steps in order, and ends with its reason', async () => {
    const seen: string[] = []
    const profile: CampaignProfile<number, number, number> = {
      next: (progress, judgement) => {
        seen.push(`next after ${progress.measured.length} (judged ${String(judgement)})`)
        return progress.measured.length < 3 ? { step: progress.measured.length * 10, why: 'more' } : { stop: 'enough' }
      },
    }
    const outcome = await runCampaign({
      profile,
      measure: async (step, index) => step + index,
      judge: (measured) => measured.reduce((sum, x) => sum + x, 0),
      onStep: (step, index, why) => seen.push(`step ${step} at ${index}: ${why}`),
    })
    expect(outcome.measured).toEqual([0, 11, 22])
    expect(outcome.judgement).toBe(33)
    expect(outcome.stopped).toBe('enough')
    expect(seen).toEqual([
      'next after 0 (judged undefined)',
      'step 0 at 0: more',
      'next after 1 (judged 0)',
      'step 10 at 1: more',
      'next after 2 (judged 11)',
      'step 20 at 2: more',
      'next after 3 (judged 33)',
    ])
  })

  test('an aborted campaign throws the signal’s reason after the step under way, and judges nothing more', async () => {
    const controller = new AbortController()
    let judged = 0
    const run = runCampaign({
      profile: { next: () => ({ step: 1, why: 'forever' }) },
      measure: async () => {
        controller.abort(new Error('SIGTERM'))
        return 1
      },
      judge: () => ++judged,
      signal: controller.signal,
    })
    await expect(run).rejects.toThrow('SIGTERM')
    expect(judged).toBe(0)
  })
})

describe('pairsProfile', () => {
  const limits: PairLimits = { min: 3, max: 5, budgetMs: 60_000 }
  const check = (status: PairedCheck['status']) => ({ status }) as PairedCheck
  const drive = (statuses: PairedCheck['status'][], fault?: number) =>
    runCampaign({
      profile: pairsProfile<string, number, PairedCheck[]>(['A', 'B'], limits, {
        undecided: (checks) => checks.filter((c) => c.status === 'inconclusive'),
        fault: (pair) => (pair === fault ? `pair ${pair}: a server failed` : undefined),
      }),
      measure: async (step) => step.pair,
      judge: (pairs) => [check(statuses[pairs.length - 1] ?? 'inconclusive')],
      onStep: (step) => order.push(step.order.join('')),
    })
  let order: string[] = []

  test('counterbalanced pairs, the minimum first, then one more only while a gate is undecided', async () => {
    order = []
    const decided = await drive(['pass', 'pass', 'pass'])
    expect(order).toEqual(['AB', 'BA', 'AB'])
    expect(decided.stopped).toBe('every verdict decided after 3 pairs')
    order = []
    const undecided = await drive([])
    expect(order).toEqual(['AB', 'BA', 'AB', 'BA', 'AB'])
    expect(undecided.stopped).toBe('1 gate undecided after the most pairs allowed (5)')
    order = []
    expect((await drive(['inconclusive', 'inconclusive', 'inconclusive', 'fail'])).stopped).toBe(
      'every verdict decided after 4 pairs',
    )
  })

  test('a pair with a fault ends the campaign at once, with the fault as the reason', async () => {
    order = []
    const outcome = await drive([], 2)
    expect(outcome.measured).toEqual([1, 2])
    expect(outcome.stopped).toBe('pair 2: a server failed')
  })
})

describe('duet slices', () => {
  test('the order within a pair: A B B A A B B A, starting from the pair’s own order; three arms rotate the same way', () => {
    expect(duetOrder(['A', 'B'], 4).join(' ')).toBe('A B B A A B B A')
    expect(duetOrder(['B', 'A'], 4).join(' ')).toBe('B A A B B A A B')
    expect(duetOrder(['A', 'B'], 3).join(' ')).toBe('A B B A A B')
    expect(duetOrder(['A', 'B', 'C'], 2).join(' ')).toBe('A B C C B A')
    expect(() => duetOrder(['A', 'B'], 0)).toThrow(RangeError)
  })

  const options = {
    workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
    load: { concurrency: 4, requests: 10 },
    warmup: { requests: 2 },
    seed: 7,
  } as const
  const run = planRun(options)

  test('a slice is a share of the requests with the same load shape, its own seed, the warm-up in the first only', () => {
    const slices = [0, 1, 2, 3].map((index) => sliceRunPlan(run, index, 4))
    expect(slices.map((slice) => slice.load.requests)).toEqual([3, 3, 2, 2])
    expect(slices.map((slice) => slice.load.concurrency)).toEqual([4, 4, 4, 4])
    expect(slices.map((slice) => slice.seed)).toEqual([7, 8, 9, 10])
    expect(slices.map((slice) => slice.warmup?.requests)).toEqual([2, undefined, undefined, undefined])
    const timed = planRun({ ...options, load: { rate: 4, durationMs: 8000 }, warmup: {} })
    expect(sliceRunPlan(timed, 1, 4).load).toMatchObject({ rate: 4, durationMs: 2000 })
    expect(() => sliceRunPlan(run, 4, 4)).toThrow(RangeError)
  })

  test('loads that cannot be sliced say why', () => {
    expect(unsliceable(run)).toBeUndefined()
    expect(
      unsliceable(planRun({ ...options, load: { concurrency: 2, requests: 8, rampUp: { from: 1, durationMs: 5 } } })),
    ).toBe('a ramp-up shapes the whole run')
  })
})

describe('pairing in time, on a host whose speed moves in phases (synthetic, known truth)', () => {
  const base = { launchSd: 0.02, sliceSd: 0.04, tolerance: 0.1 }

  test('A/A together: never fails, and decides "no change" in at least 90 % of campaigns; apart rarely does', async () => {
    const together = await rates({ ...base, logRatio: 0, arms: 'together' }, 400, 1)
    const apart = await rates({ ...base, logRatio: 0, arms: 'apart' }, 400, 1)
    expect(together.fail).toBe(0)
    expect(apart.fail).toBeLessThan(0.01)
    expect(together.pass).toBeGreaterThanOrEqual(0.9)
    expect(apart.pass).toBeLessThan(together.pass - 0.3)
  })

  test('a variant exactly at the gate’s limit fails at most at the nominal one-sided 2.5 %, launch effects included', async () => {
    const atLimit = await rates({ ...base, logRatio: Math.log1p(base.tolerance), arms: 'together' }, 1000, 2)
    expect(atLimit.fail).toBeLessThanOrEqual(0.025 + 0.012)
  })

  test('a real 5 % difference is found (its interval above 1) within 12 pairs in 80 % of campaigns together, far more often than apart', async () => {
    const five = { ...base, tolerance: 0, maxPairs: 12, logRatio: Math.log(1.05) }
    const together = await rates({ ...five, arms: 'together' }, 300, 3)
    const apart = await rates({ ...five, arms: 'apart' }, 300, 3)
    expect(together.found).toBeGreaterThanOrEqual(0.8)
    expect(apart.found).toBeLessThan(together.found - 0.3)
  })
})
