/**
 * Against the simulator (speed 0: it answers at once, so only the client shapes the sends), the
 * achieved request rate at 5, 50 and 500 requests/s is within a few percent of the target, and the
 * schedule lag is reported. The timing project runs this file alone, so no other test shares the CPU.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runBenchmark } from '../../src/core/run.ts'
import type { LoadOptions } from '../../src/core/contract/options.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { startSimulator } from '../../src/sim/index.ts'
import type { RunningSimulator } from '../../src/sim/index.ts'

let sim: RunningSimulator
beforeAll(async () => {
  sim = await startSimulator({ speedFactor: 0, maxRunningSequences: 1024 })
})
afterAll(() => sim.close())

async function sends(
  load: LoadOptions,
): Promise<{ records: RequestRecord[]; scheduleLagP99: number | undefined; keptUp: boolean }> {
  const result = await runBenchmark(
    {
      target: { baseUrl: sim.url },
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
      load,
      warmup: { requests: 4 },
      recordRequests: true,
      seed: 7,
    },
    { skipGpu: true },
  )
  expect(result.counts.failed).toBe(0)
  const records = [...(result.requests ?? [])].filter((r) => r.index >= 0).sort((a, b) => a.sentAt - b.sentAt)
  return { records, scheduleLagP99: result.client.scheduleLagMs?.p99, keptUp: result.client.keptUp }
}

/** Sends per second between the first and the last send. */
function achievedRate(records: readonly RequestRecord[]): number {
  return (records.length - 1) / ((records.at(-1)!.sentAt - records[0]!.sentAt) / 1000)
}

describe('achieved request rate against the simulator', () => {
  test.each([
    { rate: 5, requests: 16 },
    { rate: 50, requests: 101 },
    { rate: 500, requests: 1001 },
  ])(
    'constant arrivals at $rate req/s: achieved within 3 %, schedule lag reported',
    async ({ rate, requests }) => {
      const { records, scheduleLagP99, keptUp } = await sends({ rate, arrival: 'constant', requests })
      expect(records).toHaveLength(requests)
      const achieved = achievedRate(records)
      console.log(
        `constant ${rate} req/s: achieved ${achieved.toFixed(3)} req/s, schedule lag p99 ${scheduleLagP99?.toFixed(2)} ms, kept up ${keptUp}`,
      )
      expect(Math.abs(achieved / rate - 1)).toBeLessThan(0.03)
      expect(scheduleLagP99).toBeGreaterThanOrEqual(0)
    },
    60_000,
  )

  test('Poisson arrivals at 500 req/s: the sends follow the planned schedule within 3 %, and it spans N / rate', async () => {
    const { records, scheduleLagP99 } = await sends({ rate: 500, arrival: 'poisson', requests: 1000 })
    const planned = records.map((r) => r.plannedAt!).sort((a, b) => a - b)
    const plannedRate = (planned.length - 1) / ((planned.at(-1)! - planned[0]!) / 1000)
    const achieved = achievedRate(records)
    console.log(
      `poisson 500 req/s: planned ${plannedRate.toFixed(1)}, achieved ${achieved.toFixed(1)} req/s, schedule lag p99 ${scheduleLagP99?.toFixed(2)} ms`,
    )
    expect(Math.abs(achieved / plannedRate - 1)).toBeLessThan(0.03)
    // vLLM's rescale: N arrivals end at N / rate after the schedule's start, so over 1000 the first gap hardly matters.
    expect(Math.abs(plannedRate / 500 - 1)).toBeLessThan(0.03)
    expect(scheduleLagP99).toBeGreaterThanOrEqual(0)
  }, 60_000)
})
