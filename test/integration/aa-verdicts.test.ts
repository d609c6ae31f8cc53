// The regression verdict against the built-in simulator: A/A runs never fail, a 30 % slower
// simulator always does. A small version of perf/aa-verdicts.ts (5 + 5 runs of 60 requests).
import { describe, expect, test } from 'vitest'
import { AA_POLICY, runAaExperiment, tally } from '../helpers/aa-experiment.ts'
import { disturbanceNamed } from '../helpers/busy-machine.ts'

describe('A/A verdicts against the simulator', () => {
  test('5 A/A runs give no fail; 5 runs with speed factor 1.3 all fail', { timeout: 300_000 }, async () => {
    const outcome = await runAaExperiment({ runs: 5, requests: 60, slowdown: 1.3 })
    expect(outcome.policy).toEqual(AA_POLICY)
    expect(outcome.baselineSamples).toBe(60)
    const aa = tally(outcome.aa)
    const slow = tally(outcome.slow)
    // A starved client (loaded CI machine) can only turn fails into inconclusive, never pass into fail.
    expect(aa.fail, JSON.stringify(outcome.aa.map((v) => v.checks[0]))).toBe(0)
    // Each slowed run fails, or, on a disturbed machine, is inconclusive and names the disturbance.
    const named = outcome.slow.filter(
      (v) =>
        v.status === 'inconclusive' &&
        disturbanceNamed([...v.notes, ...v.checks.map((c) => c.reason ?? '')].join('\n')) !== undefined,
    ).length
    expect(slow.fail + named, JSON.stringify(outcome.slow.map((v) => [v.checks[0], v.notes]))).toBe(5)
    for (const verdict of outcome.slow) {
      const check = verdict.checks[0]
      expect(check?.metric).toBe('ttftMs')
      expect(check?.statistic).toBe('p50')
      // Prefill (20 ms) and decode steps scale by 1.3; the client's own overhead does not.
      expect(check?.ratio).toBeGreaterThan(1.15)
      expect(check?.ratio).toBeLessThan(1.4)
    }
  })
})
