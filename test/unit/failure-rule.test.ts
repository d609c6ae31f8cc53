/**
 * One failure rule for benches, sweep points and compared trials: a bench or sweep point on a disturbed machine is
 * excused timeouts and drained requests; a compared trial is not (both arms meet the same machine).
 */
import { describe, expect, test } from 'vitest'
import { failureRuling } from '../../src/core/slo/index.ts'
import { faultOf } from '../../src/bench/compare-bench.ts'
import { makeResult } from '../helpers/baseline-fixtures.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'

/** 400 requests of which 10 timed out, on a machine the self-check found busy. */
function timedOutOnBusy(): BenchmarkResult {
  const result = makeResult({ ttftMs: Array.from({ length: 390 }, () => 100), counts: { total: 400, failed: 10 } })
  return {
    ...result,
    errors: [{ kind: 'timeout', message: 'request timed out', count: 10 }],
    client: {
      ...result.client,
      selfCheck: { ...result.client.selfCheck, disturbed: ['other processes used 1.2 of 2 cores'] },
    },
  } as BenchmarkResult
}

describe('the failure rule', () => {
  test('a bench on a busy machine is excused timeouts beyond 1 %; a compared trial is a fault', () => {
    const result = timedOutOnBusy()
    expect(failureRuling(result, 'a run may lose')?.status).toBe('excused')
    expect(failureRuling(result, 'a compared trial may lose', { excuseDisturbed: false })?.status).toBe('fail')
    expect(faultOf('variant', result)).toBe(
      'variant: 10 of 400 requests failed (2.5 %), above the 1 % a compared trial may lose; most often 10 x timeout: ' +
        'request timed out; nothing is judged.',
    )
  })

  test('within 1 %, neither rules; none completed is a fault of its own', () => {
    const within = { ...timedOutOnBusy(), counts: { total: 400, completed: 396, failed: 4 } }
    expect(failureRuling(within, 'a run may lose')).toBeUndefined()
    expect(faultOf('variant', within)).toBeUndefined()
    const none = { ...timedOutOnBusy(), counts: { total: 10, completed: 0, failed: 10 } }
    expect(faultOf('variant', none)).toMatch(/^variant: no request completed \(10 x timeout/)
  })
})
