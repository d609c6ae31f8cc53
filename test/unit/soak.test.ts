import { describe, expect, test } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import type { SoakWindow } from '../../src/core/contract/result.ts'
import { SoakWindows } from '../../src/core/soak/soak-windows.ts'
import { planSoak } from '../../src/core/soak/soak-options.ts'
import { waitForRecovery } from '../../src/core/soak/soak-recovery.ts'
import { judgeSoak, soakMachineChange, soakTrends } from '../../src/core/soak/soak-verdict.ts'
import { theilSen } from '../../src/core/soak/theil-sen.ts'
import { createRandom } from '../../src/core/platform/random.ts'
import { renderHtml } from '../../reporters/index.ts'
import { reportEntries } from '../helpers/reporter-fixtures.ts'

describe('theilSen', () => {
  test('the median pairwise slope, unmoved by one outlier, with an interval around it', () => {
    const x = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    const y = x.map((v) => 10 + 2 * v)
    y[4] = 500
    const fit = theilSen(x, y)
    expect(fit.slope).toBe(2)
    expect(fit.ciLow).not.toBeNull()
    expect(fit.ciLow!).toBeLessThanOrEqual(2)
    expect(fit.ciHigh!).toBeGreaterThanOrEqual(2)
    // Least squares would be pulled far up by the outlier; Theil-Sen's interval stays near 2.
    expect(fit.ciHigh!).toBeLessThan(60)
    expect(fit.median).toBe(21)
  })

  test("Sen's ranks: no interval from 4 points, one from 5 (at 95 %)", () => {
    expect(theilSen([0, 1, 2, 3], [1, 2, 3, 4]).ciLow).toBeNull()
    const five = theilSen([0, 1, 2, 3, 4], [1, 3, 2, 5, 4])
    // 10 slopes sorted; C = 1.96 * sqrt(5*4*15/18) = 8.0: ranks 1 and 10 (the extremes).
    expect(five.ciLow).toBe(-1)
    expect(five.ciHigh).toBe(3)
  })

  test('covers the true slope about as often as it says, on independent noise', () => {
    const random = createRandom(7)
    let covered = 0
    const runs = 400
    for (let run = 0; run < runs; run++) {
      const x = Array.from({ length: 20 }, (_, i) => i)
      const y = x.map((v) => 0.5 * v + (random.next() - 0.5) * 4)
      const fit = theilSen(x, y)
      if (fit.ciLow! <= 0.5 && 0.5 <= fit.ciHigh!) covered++
    }
    expect(covered / runs).toBeGreaterThan(0.9)
    expect(covered / runs).toBeLessThan(0.99)
  })
})

function window(index: number, ttftP50: number, extra: Partial<SoakWindow> = {}): SoakWindow {
  return {
    startMs: index * 60_000,
    endMs: (index + 1) * 60_000,
    completed: 100,
    failed: 0,
    outputTokensPerSec: 500,
    ttftMs: { p50: ttftP50, p99: ttftP50 * 2 },
    tpotMs: { p50: 10, p99: 12 },
    e2eMs: { p50: 1000, p99: 1200 },
    ...extra,
  }
}

const soakOf = (expect: object) => planSoak({ durationMs: 600_000, windowMs: 60_000, expect }, { concurrency: 4 }, 1)!

describe('judgeSoak', () => {
  // Ten one-minute windows; TTFT p50 grows 1 ms a minute from 100 ms: 60 ms an hour on a median of ~105 ms.
  const growing = Array.from({ length: 10 }, (_, i) => window(i, 100 + i))

  test('a TTFT that grows ~57 %/h fails a +5%/h limit; the same flat passes', () => {
    const soak = soakOf({ ttftMs: { p50: '+5%/h' } })
    const failed = judgeSoak(soak, growing, { total: 1000, failed: 0 }, undefined)
    expect(failed.verdict).toBe('fail')
    const trend = failed.trends.find((t) => t.figure === 'ttftMs.p50')!
    expect(trend.slopePerHour).toBeCloseTo((60 / 104.5) * 100, 5)
    expect(failed.checks[0]).toMatchObject({ figure: 'ttftMs.p50', limit: '+5%/h', verdict: 'fail' })
    expect(failed.checks[0]!.reason).toContain('TTFT p50 +57.4 %/h')

    const flat = judgeSoak(
      soak,
      Array.from({ length: 10 }, (_, i) => window(i, 100)),
      { total: 1000, failed: 0 },
      undefined,
    )
    expect(flat.verdict).toBe('pass')
  })

  test('a throughput limit reads a fall; GPU memory growth is in MiB per hour', () => {
    const soak = soakOf({ outputTokensPerSec: '-5%/h', gpuMemoryMiB: { growth: '+200/h' } })
    const windows = Array.from({ length: 10 }, (_, i) =>
      window(i, 100, { outputTokensPerSec: 500 - 5 * i, gpuMemoryMiB: 40_000 + 10 * i }),
    )
    const result = judgeSoak(soak, windows, { total: 1000, failed: 0 }, undefined)
    const memory = result.trends.find((t) => t.figure === 'gpuMemoryMiB')!
    expect(memory.unit).toBe('MiB/h')
    expect(memory.slopePerHour).toBeCloseTo(600, 6)
    expect(result.checks.map((c) => [c.figure, c.verdict])).toEqual([
      ['outputTokensPerSec', 'fail'],
      ['gpuMemoryMiB', 'fail'],
    ])
  })

  test('a machine that changed between the halves makes a latency fail inconclusive, not a memory fail', () => {
    const soak = soakOf({ ttftMs: { p50: '+5%/h' }, gpuMemoryMiB: { growth: '+200/h' } })
    const windows = growing.map((w, i) => ({ ...w, otherCores: i < 5 ? 0.05 : 1.9, gpuMemoryMiB: 1000 + 100 * i }))
    const result = judgeSoak(soak, windows, { total: 1000, failed: 0 }, undefined)
    expect(result.machineChange).toContain('other processes used 0.05 cores in the first half and 1.90 in the second')
    expect(result.checks[0]!.verdict).toBe('inconclusive')
    expect(result.checks[0]!.reason).toContain('not called a fail: the machine changed during the soak')
    expect(result.checks[1]!.verdict).toBe('fail')
    expect(result.verdict).toBe('fail')
  })

  test('one busy window is not a changed machine; steal that moved is', () => {
    const busyOnce = growing.map((w, i) => ({ ...w, otherCores: i === 7 ? 2 : 0.1 }))
    expect(soakMachineChange(busyOnce)).toBeUndefined()
    const stolen = growing.map((w, i) => ({ ...w, stealShare: i < 5 ? 0 : 0.08 }))
    expect(soakMachineChange(stolen)).toContain('the hypervisor took 0.0 % of the CPU in the first half and 8.0 %')
  })

  test('the error rate against its limit, and a recovery failure fails the soak', () => {
    const soak = soakOf({ errors: { maxRate: 0.001 } })
    const flat = Array.from({ length: 10 }, (_, i) => window(i, 100))
    expect(judgeSoak(soak, flat, { total: 1000, failed: 2 }, undefined).checks[0]).toMatchObject({
      figure: 'errors.rate',
      verdict: 'fail',
      reason: 'error rate 0.20 % (2 of 1000) > 0.10 %',
    })
    const recovery = { withinMs: 1000, gpuMemoryMarginMiB: 1024, verdict: 'fail' as const, failures: ['x'] }
    expect(judgeSoak(soak, flat, { total: 1000, failed: 0 }, recovery).verdict).toBe('fail')
  })

  test('trends need two windows with the figure; windows without requests have none', () => {
    const windows = [window(0, 100), { ...window(1, 100), completed: 0, ttftMs: null }]
    expect(soakTrends(windows, 0.95).find((t) => t.figure === 'ttftMs.p50')).toBeUndefined()
  })
})

describe('planSoak', () => {
  test('defaults, and the load bounded by the soak', () => {
    const soak = planSoak({ durationMs: 600_000 }, { concurrency: 2 }, 1)!
    expect(soak).toMatchObject({
      windowMs: 60_000,
      limits: [],
      recovery: { withinMs: 60_000, gpuMemoryMarginMiB: 1024 },
    })
  })

  test.each([
    [{ durationMs: 60_000, windowMs: 20_000 }, {}, 'soak.windowMs', 'gives 3 windows'],
    [{ durationMs: 600_000, expect: { ttftMs: { p99: '5%' } } }, {}, 'soak.expect.ttftMs.p99', "such as '+5%/h'"],
    [{ durationMs: 600_000, expect: { ttftMs: { p99: '-5%/h' } } }, {}, 'soak.expect.ttftMs.p99', 'rate per hour'],
    [{ durationMs: 600_000, expect: { outputTokensPerSec: '+5%/h' } }, {}, 'outputTokensPerSec', "'-5%/h'"],
    [{ durationMs: 600_000, expect: { gpuMemoryMiB: { growth: '+5%/h' } } }, {}, 'growth', "'+200/h'"],
    [{ durationMs: 600_000, expect: { ttftMs: { p90: '+5%/h' } } }, {}, 'soak.expect.ttftMs.p90', 'Did you mean'],
    [{ durationMs: 600_000 }, { requests: 100 }, 'load.requests', 'a soak runs for soak.durationMs'],
    [{ durationMs: 600_000 }, { durationMs: 5000 }, 'load.durationMs', 'differs'],
  ])('%j with load %j is refused at %s', (soak, load, option, message) => {
    const error = (() => {
      try {
        planSoak(soak, { concurrency: 2, ...load }, 1)
      } catch (e) {
        return e
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(OptionsError)
    expect((error as OptionsError).option).toContain(option)
    expect((error as Error).message).toContain(message)
  })

  test('a soak on several threads is refused', () => {
    expect(() => planSoak({ durationMs: 600_000 }, { concurrency: 4 }, 2)).toThrow(/one thread/)
  })
})

describe('waitForRecovery', () => {
  test('memory that comes back passes with the time it took; memory that stays fails with the figures', async () => {
    let reads = 0
    const back = await waitForRecovery(
      { withinMs: 5000, gpuMemoryMarginMiB: 100 },
      { gpuMemoryBeforeMiB: 1000, readGpuMemoryMiB: async () => (++reads < 2 ? 5000 : 1050) },
    )
    expect(back).toMatchObject({ verdict: 'pass', gpuMemoryAfterMiB: 1050, failures: [] })
    expect(back!.gpuMemoryReturnedAfterMs).toBeGreaterThanOrEqual(900)

    const stays = await waitForRecovery(
      { withinMs: 1500, gpuMemoryMarginMiB: 100 },
      {
        gpuMemoryBeforeMiB: 1000,
        readGpuMemoryMiB: async () => 5000,
        readGauges: async () => ({ requestsRunning: 0, requestsWaiting: 0 }),
      },
    )
    expect(stays).toMatchObject({ verdict: 'fail', gpuMemoryReturnedAfterMs: null, gaugesReturnedAfterMs: 0 })
    expect(stays!.failures).toEqual([
      'GPU memory did not come back within 2 s of the load: 5000 MiB against 1000 MiB before it (margin 100 MiB): ' +
        'KV cache not released, or a leak',
    ])
  })

  test('a server still busy after the load fails; nothing to read is no recovery check', async () => {
    const busy = await waitForRecovery(
      { withinMs: 1200, gpuMemoryMarginMiB: 100 },
      { readGauges: async () => ({ requestsRunning: 3, requestsWaiting: 1, kvCacheUsage: 0.4 }) },
    )
    expect(busy!.failures).toEqual([
      'the server was not idle 1 s after the load: 3 running, 1 waiting, KV cache 40.0 %',
    ])
    expect(await waitForRecovery({ withinMs: 1000, gpuMemoryMarginMiB: 0 }, {})).toBeUndefined()
  })
})

describe('the HTML report of a soak', () => {
  test('its limits with their trends, and its windows over time with other work drawn', () => {
    const soak = soakOf({ ttftMs: { p50: '+5%/h' } })
    const windows = Array.from({ length: 10 }, (_, i) => window(i, 100 + i, { otherCores: i < 5 ? 0 : 2 }))
    const base = reportEntries()[0]!
    const entry = {
      ...base,
      result: { ...base.result, soak: judgeSoak(soak, windows, { total: 1000, failed: 0 }, undefined) },
    }
    const html = renderHtml([entry])
    expect(html).toContain('<h3>Soak: <span class="status-inconclusive">inconclusive</span></h3>')
    expect(html).toContain('not called a fail: the machine changed during the soak')
    for (const id of ['soak-latency', 'soak-throughput', 'soak-other-work'])
      expect(html).toContain(`data-chart="${id}"`)
    // No GPU in this soak: no GPU memory chart.
    expect(html).not.toContain('data-chart="soak-gpu-memory"')
  })
})

describe('SoakWindows', () => {
  const record = (endAt: number, ttftMs: number, ok = true): RequestRecord => ({
    index: 0,
    plannedAt: undefined,
    headersAt: undefined,
    usageReported: true,
    streamed: true,
    readInOneBurst: false,
    sentAt: endAt - ttftMs - 10,
    firstTokenAt: endAt - 10,
    endAt,
    outputTokens: 2,
    inputTokens: 8,
    chunkTimes: [endAt - 10, endAt],
    ok,
    ...(ok ? {} : { error: { kind: 'http', message: 'HTTP 500' } }),
  })

  test('each window keeps its percentiles after its histograms are let go; the drain is in none', () => {
    const windows = new SoakWindows(1000, 4)
    windows.start(0)
    for (let w = 0; w < 4; w++) for (let i = 1; i <= 9; i++) windows.add(record(w * 1000 + i * 100, 10 * (w + 1) + i))
    windows.add(record(2500, 50, false))
    // After the last whole window: the drain.
    windows.add(record(4200, 999))
    const done = windows.finish()
    // HDR percentiles read the top of their bucket: within 0.1 %.
    expect(done.map((w) => Math.round(w.ttftMs!.p50))).toEqual([15, 25, 35, 45])
    expect(done.map((w) => w.completed)).toEqual([9, 9, 9, 9])
    expect(done.map((w) => w.failed)).toEqual([0, 0, 1, 0])
    expect(done[0]!.outputTokensPerSec).toBe(18)
  })
})
