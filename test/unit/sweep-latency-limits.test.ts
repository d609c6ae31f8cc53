import { describe, expect, it } from 'vitest'
import { checkLatencyLimits, describeLimits } from '../../src/core/sweep/latency-limits.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'

/** A completed request: planned at `planned`, sent `lag` ms later, first token after `ttft` ms, `tokens` tokens `tpot` ms apart. */
function record(
  index: number,
  ttft: number,
  options: { planned?: number; lag?: number; tpot?: number; tokens?: number; ok?: boolean } = {},
): RequestRecord {
  const planned = options.planned ?? index * 10
  const sentAt = planned + (options.lag ?? 0)
  const tokens = options.tokens ?? 5
  const firstTokenAt = sentAt + ttft
  const endAt = firstTokenAt + (tokens - 1) * (options.tpot ?? 2)
  return {
    index,
    plannedAt: planned,
    sentAt,
    headersAt: sentAt + 1,
    firstTokenAt,
    endAt,
    chunkTimes: [firstTokenAt, endAt],
    outputTokens: tokens,
    inputTokens: 10,
    usageReported: true,
    streamed: true,
    readInOneBurst: false,
    ok: options.ok ?? true,
    ...(options.ok === false ? { error: { kind: 'http' as const, status: 500, message: 'boom' } } : {}),
  }
}

describe('checkLatencyLimits', () => {
  const base = { percentile: 0.9, earlyStopping: false, from: 'sent' as const, maxFailedShare: 0 }

  it('reads the percentile as LoadGen does and passes a limit met exactly', () => {
    // TTFTs 1..10: LoadGen's p90 is sorted[floor(10 * 0.9)] = 10; a nearest-rank p90 would be 9.
    const records = Array.from({ length: 10 }, (_, i) => record(i, i + 1))
    expect(checkLatencyLimits(records, { ttftMs: 10 }, base)).toMatchObject({ valid: true, reasons: [] })
    const missed = checkLatencyLimits(records, { ttftMs: 9.5 }, base)
    expect(missed.valid).toBe(false)
    expect(missed.reasons).toEqual(['p90 TTFT 10.0 ms > 9.5 ms'])
    expect(missed.checks[0]).toMatchObject({ metric: 'ttftMs', value: 10, samples: 10, pass: false })
  })

  it('measures TTFT and E2E from the planned send time with `scheduled`, so client lag counts', () => {
    const records = Array.from({ length: 10 }, (_, i) => record(i, 5, { lag: 20 }))
    expect(checkLatencyLimits(records, { ttftMs: 10 }, base).valid).toBe(true)
    const scheduled = checkLatencyLimits(records, { ttftMs: 10, e2eMs: 40 }, { ...base, from: 'scheduled' })
    expect(scheduled.checks.map((check) => check.value)).toEqual([25, 33])
    expect(scheduled.valid).toBe(false)
  })

  it('computes TPOT per request and ignores one-token outputs', () => {
    const records = [...Array.from({ length: 9 }, (_, i) => record(i, 5, { tpot: 3 })), record(9, 5, { tokens: 1 })]
    const outcome = checkLatencyLimits(records, { tpotMs: 3 }, base)
    expect(outcome.checks[0]).toMatchObject({ metric: 'tpotMs', value: 3, samples: 9, pass: true })
  })

  it('adds LoadGen early stopping: p99 met by the percentile but with too few queries fails', () => {
    const few = Array.from({ length: 100 }, (_, i) => record(i, 5))
    const outcome = checkLatencyLimits(few, { ttftMs: 50 }, { ...base, percentile: 0.99, earlyStopping: true })
    expect(outcome.valid).toBe(false)
    expect(outcome.reasons).toEqual(['early stopping (TTFT): 0 of 100 over 50 ms needs at least 459 queries'])
    const enough = Array.from({ length: 459 }, (_, i) => record(i, 5))
    expect(checkLatencyLimits(enough, { ttftMs: 50 }, { ...base, percentile: 0.99, earlyStopping: true }).valid).toBe(
      true,
    )
  })

  it('fails on failed requests beyond the allowed share, and without samples', () => {
    const records = [...Array.from({ length: 9 }, (_, i) => record(i, 5)), record(9, 5, { ok: false })]
    expect(checkLatencyLimits(records, { ttftMs: 50 }, base).reasons).toEqual(['1 of 10 requests failed'])
    expect(checkLatencyLimits(records, { ttftMs: 50 }, { ...base, maxFailedShare: 0.1 }).valid).toBe(true)
    expect(checkLatencyLimits([], { ttftMs: 50 }, base)).toMatchObject({
      valid: false,
      reasons: ['no TTFT sample: no request completed with output'],
    })
  })

  it('describes limits for humans', () => {
    expect(describeLimits({ ttftMs: 500, tpotMs: 50 }, 0.99)).toBe('p99 TTFT <= 500 ms and p99 TPOT <= 50 ms')
    expect(describeLimits({ e2eMs: 2000 }, 0.999)).toBe('p99.9 E2E <= 2000 ms')
  })
})
