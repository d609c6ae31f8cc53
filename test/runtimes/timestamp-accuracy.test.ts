/**
 * The client's timestamps against what the simulator did, in the runtime running this file.
 * Node and Deno deliver an event within a fraction of a millisecond of its write on loopback
 * (test/integration/run-simulator.test.ts holds them to 1 ms for most requests); Bun's fetch
 * hands bytes over from its own HTTP thread and its node:http server writes later, so its tail is
 * a few milliseconds longer. The bounds here hold for all three on a loaded 2-core machine.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { skipWhenDisturbed } from '../helpers/busy-machine.ts'
import { runBenchmark } from '../../src/core/run.ts'
import { detectRuntime } from '../../src/core/platform/runtime.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
}

let sim: RunningSimulator
beforeAll(async () => {
  sim = await startSimulator({
    recordSchedule: true,
    seed: 7,
    prefillBaseMs: 15,
    decodeBaseMs: 4,
    decodeMsPerSequence: 0.5,
  })
})
afterAll(async () => {
  await sim.close()
})

test(`${detectRuntime().name}: TTFT and TPOT as the simulator produced them, within the runtime's spread`, async (ctx) => {
  const result = await runBenchmark(
    {
      target: { baseUrl: sim.url },
      workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 24 } },
      load: { concurrency: 1, requests: 30 },
      recordRequests: true,
      seed: 1,
    },
    { skipGpu: true },
  )
  expect(result.counts).toEqual({ total: 30, completed: 30, failed: 0 })
  expect(result.environment.runtime).toEqual(detectRuntime())
  const records = result.requests as RequestRecord[]
  // The idle streaming probe's request(s) came first.
  const entries = sim.schedule.slice(result.streaming.probeRequests ?? 0)
  expect(entries).toHaveLength(30)
  const ttftDiff: number[] = []
  const tpotDiff: number[] = []
  records.forEach((record, i) => {
    const entry = entries[i]!
    expect(record.outputTokens).toBe(entry.tokenTimes.length)
    expect(record.chunkTimes).toHaveLength(entry.chunkTimes.length)
    const simTtft = entry.firstTokenAt! - entry.arrivedAt
    const simTpot = (entry.chunkTimes.at(-1)! - entry.firstTokenAt!) / (entry.tokenTimes.length - 1)
    ttftDiff.push(record.firstTokenAt! - record.sentAt - simTtft)
    tpotDiff.push((record.endAt - record.firstTokenAt!) / (record.outputTokens - 1) - simTpot)
  })
  console.log(
    `${detectRuntime().name} ${detectRuntime().version}: TTFT client - simulator p50 ${quantile(ttftDiff, 0.5).toFixed(3)} ms, ` +
      `p90 ${quantile(ttftDiff, 0.9).toFixed(3)} ms; TPOT |diff| p50 ${quantile(tpotDiff.map(Math.abs), 0.5).toFixed(3)} ms`,
  )
  // An event is seen after it was written, never before: one clock, so no difference is negative.
  expect(Math.min(...ttftDiff)).toBeGreaterThanOrEqual(0)
  // The spreads below are a quiet machine's: on a disturbed one (the self-check says so) they are not asserted.
  skipWhenDisturbed(ctx, result)
  expect(quantile(ttftDiff, 0.5)).toBeLessThan(3)
  expect(quantile(ttftDiff, 0.9)).toBeLessThan(10)
  // TPOT spans a whole response: delivery delays at both ends mostly cancel.
  expect(quantile(tpotDiff.map(Math.abs), 0.5)).toBeLessThan(0.5)
})
