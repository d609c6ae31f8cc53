import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { offlineScenario, runScenario, serverScenario, singleStreamScenario } from '../../src/core/scenario/index.ts'
import { sweepBaselineEntryOf } from '../../src/core/sweep/sweep-baseline.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'

const workload = { kind: 'synthetic' as const, inputTokens: { mean: 16 }, outputTokens: { mean: 4 } }

describe('MLPerf scenarios against the simulator', () => {
  let sim: RunningSimulator
  beforeAll(async () => {
    sim = await startSimulator({
      prefillBaseMs: 1,
      decodeBaseMs: 1,
      decodeMsPerSequence: 0,
      prefillMsPerToken: 0,
      seed: 2,
    })
  })
  afterAll(async () => {
    await sim?.close()
  })

  it("SingleStream reports LoadGen's p90 early-stopping estimate of E2E latency, sequentially", async () => {
    const result = await runScenario(
      {
        target: { baseUrl: sim.url },
        workload,
        scenario: singleStreamScenario({ requests: 64 }),
        recordRequests: true,
        seed: 1,
      },
      { skipGpu: true },
    )
    const point = result.points[0]
    const records = point?.result.requests ?? []
    const e2e = records.map((record) => record.endAt - record.sentAt).sort((a, b) => a - b)
    // 64 queries: LoadGen's minimum, so it discards none and reports the highest latency.
    expect(result.scenario).toMatchObject({
      name: 'SingleStream',
      constraint: 'none',
      valid: true,
      metric: { name: 'p90 E2E latency (early-stopping estimate)', value: e2e[63], unit: 'ms' },
      earlyStopping: { queries: 64, minQueries: 64, discarded: 0, percentile: 0.9 },
    })
    expect(result.scenario?.summary).toMatch(
      /^SingleStream: [\d.]+ ms p90 E2E latency \(early-stopping estimate\) \(VALID\)$/,
    )
    // One after another: each request was sent after the previous one ended.
    const byIndex = [...records].sort((a, b) => a.index - b.index)
    for (let i = 1; i < byIndex.length; i++) expect(byIndex[i]!.sentAt).toBeGreaterThanOrEqual(byIndex[i - 1]!.endAt)
    expect(result.config).toMatchObject({
      scenario: { name: 'SingleStream', requests: 64, percentile: 0.9, confidence: 0.99 },
    })
  })

  it('SingleStream with fewer than 64 queries is invalid, as LoadGen says', async () => {
    // Asked for fewer, it is refused before it runs; stopped early by its duration (about 6 ms a request), invalid.
    await expect(
      runScenario({ target: { baseUrl: sim.url }, workload, scenario: singleStreamScenario({ requests: 20 }) }),
    ).rejects.toThrow('fewer than the 64 requests an early-stopping estimate')
    const result = await runScenario(
      { target: { baseUrl: sim.url }, workload, scenario: singleStreamScenario({ durationMs: 60 }) },
      { skipGpu: true },
    )
    expect(result.scenario).toMatchObject({ valid: false })
    expect(result.scenario?.reasons).toEqual([
      expect.stringMatching(/^Only processed \d+ queries\. Need to process at least 64 queries for early stopping\.$/),
    ])
    expect(result.scenario?.metric.value).toBeUndefined()
  })

  it('Offline sends every request at once and reports the measured output throughput', async () => {
    const result = await runScenario(
      { target: { baseUrl: sim.url }, workload, scenario: offlineScenario({ requests: 48 }), recordRequests: true },
      { skipGpu: true },
    )
    const run = result.points[0]?.result
    expect(run?.config.load).toEqual({ requests: 48, concurrency: 48, drainGraceMs: 30000 })
    // All 48 were in flight before the first one ended.
    const records = run?.requests ?? []
    expect(Math.max(...records.map((record) => record.sentAt))).toBeLessThan(
      Math.min(...records.map((record) => record.endAt)),
    )
    expect(result.scenario).toMatchObject({
      name: 'Offline',
      constraint: 'none',
      valid: true,
      metric: { name: 'output throughput', unit: 'tokens/s', value: run?.throughput.outputTokensPerSec },
    })
  })

  it('Server is valid only with enough queries for early stopping, and keys its baseline apart from other scenarios', async () => {
    const limits = { ttftMs: 2000, tpotMs: 500 }
    const tooFew = await runScenario(
      {
        target: { baseUrl: sim.url },
        workload,
        scenario: serverScenario({ ...limits, rate: { min: 200, max: 400, start: 400 }, durationMs: 250 }),
        seed: 4,
      },
      { skipGpu: true },
    )
    // Every latency is far under its limit, yet the 50-100 queries of 250 ms cannot show p99 with 99 % confidence
    // (459 needed). Asked for fewer than 459 requests, the scenario is refused before it runs.
    expect(tooFew.points.map((point) => point.value)).toEqual([200, 400])
    expect(tooFew.points[0]?.reasons).toEqual([
      expect.stringMatching(/^early stopping \(TTFT\): 0 of \d+ over 2000 ms needs at least 459 queries$/),
      expect.stringMatching(/^early stopping \(TPOT\): 0 of \d+ over 500 ms needs at least 459 queries$/),
    ])
    expect(tooFew.scenario).toMatchObject({
      name: 'Server',
      valid: false,
      constraint: 'p99 TTFT <= 2000 ms and p99 TPOT <= 500 ms',
    })

    const enough = await runScenario(
      {
        target: { baseUrl: sim.url },
        workload,
        scenario: serverScenario({ ...limits, rate: { min: 200, max: 400, start: 400 }, requests: 459 }),
        seed: 4,
      },
      { skipGpu: true },
    )
    expect(enough.scenario).toMatchObject({
      name: 'Server',
      valid: true,
      metric: { name: 'max Poisson rate', value: 400, unit: 'req/s' },
    })
    expect(enough.scenario?.summary).toBe(
      'Server: 400 req/s max Poisson rate with p99 TTFT <= 2000 ms and p99 TPOT <= 500 ms (VALID)',
    )
    expect(enough.capacity).toMatchObject({ rate: 400, bracketed: false, earlyStopping: true, percentile: 0.99 })
    expect(enough.warnings).toContain(
      'Every rate up to 400 req/s met p99 TTFT <= 2000 ms and p99 TPOT <= 500 ms: the capacity is at least that; raise capacity.rate.max.',
    )

    const offline = await runScenario(
      { target: { baseUrl: sim.url }, workload, scenario: offlineScenario({ requests: 8 }) },
      { skipGpu: true },
    )
    expect(sweepBaselineEntryOf(enough)?.configHash).not.toBe(sweepBaselineEntryOf(offline)?.configHash)
    expect(sweepBaselineEntryOf(enough)?.config).toMatchObject({
      scenario: { name: 'Server', ttftMs: 2000, tpotMs: 500, percentile: 0.99, requests: 459 },
    })
  })
})
