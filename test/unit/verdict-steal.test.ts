import { describe, expect, test } from 'vitest'
import { baselineEntryFrom } from '../../src/core/baseline/index.ts'
import { compare } from '../helpers/compare-given.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'

function withSteal(result: BenchmarkResult, stealShare: number): BenchmarkResult {
  return {
    ...result,
    client: { ...result.client, selfCheck: { cores: 2, loadAverage1m: 1, otherCores: 0, stealShare, disturbed: [] } },
  }
}

describe('steal below the disturbance limit (0.5 % to 5 %)', () => {
  const baseline = baselineEntryFrom(makeResult({ ttftMs: lognormalSamples(seededRandom(1), 400, 100, 0.2) }))
  const slower = (factor: number, seed: number) =>
    makeResult({ ttftMs: lognormalSamples(seededRandom(seed), 400, 100 * factor, 0.2) })
  const policy = { ttftMs: { p50: '+10%' as const } }

  test('a 1.35x TTFT p50 at 0.95 % steal (what unchanged code did on llama-server) is inconclusive, naming the steal; without steal it fails', () => {
    const current = slower(1.35, 2)
    expect(compare(baseline, current, policy).checks[0]?.status).toBe('fail')
    const [check] = compare(baseline, withSteal(current, 0.0095), policy).checks
    expect(check?.status).toBe('inconclusive')
    expect(check?.reason).toMatch(
      /^the hypervisor took 0\.9 % of the CPU \(steal\), which can move this by \+38 % \(40x its share\); the interval \[1\.\d{3}, 1\.\d{3}\] is not beyond that/,
    )
  })

  test('a 2x regression at 1 % steal still fails; steal under 0.5 % changes nothing', () => {
    expect(compare(baseline, withSteal(slower(2, 3), 0.01), policy).checks[0]?.status).toBe('fail')
    expect(compare(baseline, withSteal(slower(1.35, 2), 0.004), policy).checks[0]?.status).toBe('fail')
  })

  test('a throughput: steal divides it by the slowdown, so it can move it by at most -59 % at 3.65 %, never below -100 %', () => {
    const throughputBaseline = baselineEntryFrom(
      makeResult({ ttftMs: lognormalSamples(seededRandom(1), 100, 120, 0.3) }),
    )
    const gate = { outputTokensPerSec: '-5%' as const }
    const run = (value: number) =>
      compare(throughputBaseline, withSteal(makeResult({ throughput: { outputTokensPerSec: value } }), 0.0365), gate)
    // 40x 3.65 % = a 2.46x slowdown: a throughput may fall to 0.95 / 2.46 = 0.386 of the baseline and be explained.
    const explained = run(1067 * 0.5).checks[0]
    expect(explained?.status).toBe('inconclusive')
    expect(explained?.reason).toMatch(/which can move this by -59 % \(40x its share\)/)
    // Below that the steal cannot explain it: the fail stands (the old bound, 0.95 - 1.46, explained every drop).
    expect(run(1067 * 0.3).checks[0]?.status).toBe('fail')
  })
})
