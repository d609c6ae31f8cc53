/*
 * Sweeps and capacity searches against the simulator, whose capacity follows from its parameters
 * (simulatorCapacity). Timings are generous: a loaded 2-core CI machine shares its CPU between the
 * simulator and the client, which costs the simulator a few per cent of its modelled throughput.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { searchCapacity } from '../../src/core/sweep/capacity-search.ts'
import { formatSweepTable } from '../../src/core/sweep/format-sweep.ts'
import { runSweep } from '../../src/core/sweep/run-sweep.ts'
import type { SweepResult } from '../../src/core/sweep/sweep-result.ts'
import { simulatorCapacity, startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/sim/index.ts'

/** Knee: 8 sequences per batch, 64-token outputs, so one step lost per request at concurrency 8 costs only 1/65 of throughput. */
const KNEE_SIM: SimulatorOptions = { maxRunningSequences: 8, prefillBaseMs: 2, prefillMsPerToken: 0, decodeBaseMs: 4, decodeMsPerSequence: 0.5, seed: 1 }
const KNEE_SHAPE = { inputTokens: 16, outputTokens: 64 }

/**
 * Capacity: 64 sequences per batch of 64 ms steps (D(64) = 16 + 0.75 x 64), 8-token outputs, 2 ms
 * prefill: maxRequestsPerSec = 1000 x 64 / (8 x 64 + 64 x 2) = 100 req/s. Many slots keep
 * queueing short until close to capacity, and long steps make client jitter small against the limit.
 */
const CAPACITY_SIM: SimulatorOptions = { maxRunningSequences: 64, prefillBaseMs: 2, prefillMsPerToken: 0, decodeBaseMs: 16, decodeMsPerSequence: 0.75, seed: 1 }
const CAPACITY_SHAPE = { inputTokens: 16, outputTokens: 8 }
/**
 * The SLO: p90 TTFT <= 200 ms over 3 s of Poisson arrivals. Below capacity the queue stays short
 * and p90 TTFT near 100 ms; above it the queue grows by (rate / capacity - 1) x the elapsed time,
 * so at 1.05 x capacity the last tenth of a 3 s run waits ~140 ms more, over the limit. The
 * highest rate meeting the SLO is therefore maxRequestsPerSec, within the width of that transition.
 */
const CAPACITY_LIMITS = { ttftMs: 200 }

function workload(shape: { inputTokens: number; outputTokens: number }) {
  return { kind: 'synthetic' as const, inputTokens: { mean: shape.inputTokens }, outputTokens: { mean: shape.outputTokens } }
}

describe('sweeps against the simulator', () => {
  let kneeSim: RunningSimulator
  let capacitySim: RunningSimulator
  beforeAll(async () => {
    kneeSim = await startSimulator(KNEE_SIM)
    capacitySim = await startSimulator(CAPACITY_SIM)
  })
  afterAll(async () => {
    await kneeSim?.close()
    await capacitySim?.close()
  })

  const kneeSweep = () =>
    runSweep(
      {
        target: { baseUrl: kneeSim.url },
        workload: workload(KNEE_SHAPE),
        over: { concurrency: [1, 2, 4, 8, 16] },
        load: { durationMs: 800 },
        warmup: { requests: 8, durationMs: 150 },
        seed: 3,
      },
      { skipGpu: true },
    )

  it('finds the knee at maxRunningSequences, the concurrency where the batch is full, reproducibly', async () => {
    const model = simulatorCapacity(KNEE_SIM, KNEE_SHAPE)
    const first = await kneeSweep()
    const second = await kneeSweep()
    const report = (result: SweepResult) => `\n${formatSweepTable(result)}`
    expect(first.knee, report(first)).toMatchObject({ value: model.saturationConcurrency, saturated: true })
    expect(second.knee?.value, report(second)).toBe(first.knee?.value)
    // The plateau is the model's full-batch throughput (969.7 tokens/s), less what a busy machine takes.
    expect(first.knee?.peak.throughput).toBeGreaterThan(0.85 * model.maxOutputTokensPerSec)
    expect(first.knee?.peak.throughput).toBeLessThan(1.05 * model.maxOutputTokensPerSec)
    // Each point ran its own benchmark with the swept concurrency and a fresh prompt salt.
    expect(first.points.map((point) => (point.result.config.load as { concurrency: number }).concurrency)).toEqual([1, 2, 4, 8, 16])
    const salts = first.points.map((point) => point.result.workload.salt)
    expect(new Set(salts).size).toBe(salts.length)
    expect(first.points.every((point) => point.result.requests === undefined)).toBe(true)
    expect(JSON.parse(JSON.stringify(first)).curve).toEqual(first.curve)
  })

  it('finds the highest Poisson rate within the SLO within 10 % of the model capacity', async () => {
    const model = simulatorCapacity(CAPACITY_SIM, CAPACITY_SHAPE)
    expect(model.maxRequestsPerSec).toBeCloseTo(100, 6)
    const result = await searchCapacity(
      {
        target: { baseUrl: capacitySim.url },
        workload: workload(CAPACITY_SHAPE),
        load: { durationMs: 3000 },
        warmup: { requests: 8 },
        seed: 11,
        capacity: { limits: CAPACITY_LIMITS, percentile: 0.9, rate: { min: 5, max: 400 }, precision: 0.05 },
      },
      { skipGpu: true },
    )
    const capacity = result.capacity
    const report = `\n${formatSweepTable(result)}\n${JSON.stringify(capacity)}`
    expect(capacity?.bracketed, report).toBe(true)
    expect(capacity?.rate, report).toBeGreaterThan(0.9 * model.maxRequestsPerSec)
    expect(capacity?.rate, report).toBeLessThan(1.1 * model.maxRequestsPerSec)
    // Stopped at the precision, and reported every rate tried, each with its verdict.
    expect(((capacity?.failedRate ?? 0) - (capacity?.rate ?? 0)) / (capacity?.rate ?? 1)).toBeLessThanOrEqual(0.05)
    expect(result.points).toHaveLength(capacity?.tried.length ?? -1)
    expect([...(capacity?.tried ?? [])].sort((a, b) => a - b)).toEqual(result.points.map((point) => point.value))
    for (const point of result.points) {
      expect(point.valid).toBe(point.value <= (capacity?.rate ?? 0))
      if (!point.valid) expect(point.reasons?.[0]).toMatch(/^p90 TTFT \d+\.\d ms > 200 ms$/)
    }
  })
})
