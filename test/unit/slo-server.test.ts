import { describe, expect, test } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { checkSlo, validateSloOptions } from '../../src/core/slo/index.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { ServerMetrics } from '../../src/core/contract/server-metrics.ts'
import { makeResult } from '../helpers/baseline-fixtures.ts'
import { serverMetricsOf } from '../helpers/server-metrics-builder.ts'

function serverMetrics(overrides: Partial<ServerMetrics> = {}): ServerMetrics {
  return serverMetricsOf({
    scrapes: 12,
    scrapeMeanMs: 3,
    windowMs: 11_000,
    preemptions: 2,
    prefixCache: { queriedTokens: 10_000, hitTokens: 300, hitRate: 0.03 },
    requestsWaiting: { mean: 1, peak: 6, stddev: 0, samples: 12 },
    ...overrides,
  })
}

const withServer = (metrics: ServerMetrics): BenchmarkResult => ({ ...makeResult(), server: { metrics } })

describe('server SLOs', () => {
  test('bounds a server figure; the message names value, limit and the scrapes behind it', () => {
    const checks = checkSlo(withServer(serverMetrics()), {
      server: { preemptions: { max: 0 }, prefixCacheHitRate: { max: 0.05 }, requestsWaitingPeak: { max: 4 } },
    })
    expect(checks.map((c) => [c.metric, c.statistic, c.measured, c.status])).toEqual([
      ['server.preemptions', 'max', 2, 'fail'],
      ['server.prefixCacheHitRate', 'max', 0.03, 'pass'],
      ['server.requestsWaitingPeak', 'max', 6, 'fail'],
    ])
    expect(checks[0]?.message).toBe(
      'server.preemptions = 2 sequences exceeds the SLO maximum of 0 sequences (12 scrapes of http://127.0.0.1:8000/metrics over 11 s)',
    )
    expect(checks[1]?.message).toContain('server.prefixCacheHitRate = 3% is within the SLO maximum of 5%')
  })

  test('a figure the server does not give, or no metrics at all, is inconclusive and says why', () => {
    const [notGiven] = checkSlo(withServer(serverMetrics()), { server: { queueTimeP99Ms: { max: 100 } } })
    expect(notGiven).toMatchObject({ status: 'inconclusive', measured: null })
    expect(notGiven?.message).toBe(
      "server.queueTimeP99Ms: not measured (the vllm server's metrics at http://127.0.0.1:8000/metrics do not give it)",
    )
    const note = 'No server metrics: http://h/metrics (HTTP 404). Start llama-server with `--metrics`.'
    const [none] = checkSlo({ ...makeResult(), server: { note } }, { server: { preemptions: { max: 0 } } })
    expect(none?.message).toBe(`server.preemptions: not measured (${note})`)
    const [off] = checkSlo(makeResult(), { server: { preemptions: { max: 0 } } })
    expect(off?.message).toContain('turned off (`serverMetrics: false`)')
  })

  test('an unknown server field fails at once, listing the valid ones', () => {
    expect(() => validateSloOptions({ server: { preemption: { max: 0 } } } as never)).toThrow(OptionsError)
    expect(() => validateSloOptions({ server: { preemption: { max: 0 } } } as never)).toThrow(
      /slo\.server\.preemption.*preemptions, prefixCacheHitRate/,
    )
  })

  test('a share is bounded by 1: 5 meant as 5 % is refused with the hint', () => {
    expect(() => validateSloOptions({ server: { prefixCacheHitRate: { max: 5 } } })).toThrow(
      /slo\.server\.prefixCacheHitRate\.max.*from 0 to 1/,
    )
    expect(() => validateSloOptions({ server: { requestsWaitingPeak: { max: 5 } } })).not.toThrow()
  })
})
