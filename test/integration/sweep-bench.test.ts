import { describe, expect, it } from 'vitest'
import { bench, simulator } from '../../src/vitest/index.ts'
import { runSweepBench } from '../../src/vitest/bench-sweep.ts'

const workload = { kind: 'synthetic' as const, inputTokens: { mean: 16 }, outputTokens: { mean: 8 } }
const fastSim = simulator({
  maxRunningSequences: 2,
  prefillBaseMs: 1,
  prefillMsPerToken: 0,
  decodeBaseMs: 2,
  decodeMsPerSequence: 0,
})

describe('bench.llm.sweep', () => {
  bench.llm.sweep('tiny curve', {
    server: fastSim,
    workload,
    over: { concurrency: [1, 2, 4] },
    load: { requests: 8 },
    between: { restartServer: true, resetPrefixCache: true },
    baseline: false,
    expect: { throughput: [{ at: 4, min: 1 }], knee: { atLeast: 1 } },
  })

  it('left the curve and its checks on the task for reporters', ({ task }) => {
    const sweepTask = task.suite?.tasks.find((candidate) => candidate.name === 'tiny curve')
    const meta = sweepTask?.meta.llmBenchSweep
    expect(sweepTask?.result?.state).toBe('pass')
    expect(meta?.result.curve.map((point) => point.value)).toEqual([1, 2, 4])
    expect(meta?.checks.map((check) => [check.name, check.status])).toEqual([
      ['output tokens/s at concurrency 4', 'pass'],
      ['knee', 'pass'],
    ])
    // restartServer: a new simulator (new port) for every point; the simulator has no prefix-cache endpoint.
    const ports = meta?.result.points.map(
      (point) => new URL(String((point.result.config.target as { baseUrl: string }).baseUrl)).port,
    )
    expect(new Set(ports).size).toBe(3)
    expect(meta?.result.warnings.some((warning) => warning.startsWith('between.resetPrefixCache:'))).toBe(true)
    expect(JSON.parse(JSON.stringify(meta))).toEqual(meta)
  })

  it('fails with every failed check, the knee and the table', async (ctx) => {
    const run = runSweepBench(ctx, {
      server: fastSim,
      workload,
      over: { concurrency: [1, 2] },
      load: { requests: 4 },
      baseline: false,
      expect: { throughput: [{ at: 2, min: 1e9, metric: 'requestsPerSec' }] },
    })
    await expect(run).rejects.toThrow(
      /: 2 points in [\d.]+ s\n\nrequests\/s at concurrency 2: [\d.]+ >= 1000000000\n\nknee: /,
    )
    await expect(run).rejects.toMatchObject({ name: 'LlmBenchAssertionError' })
    await expect(run).rejects.toThrow(/conc\s+out tok\/s/)
    expect(ctx.task.meta.llmBenchSweep?.checks[0]?.status).toBe('fail')
  })
})
