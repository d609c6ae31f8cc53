import { describe, expect, test } from 'vitest'
import { runBenchmark } from '../../src/core/run.ts'
import type { Progress } from '../../src/core/contract/options.ts'
import { startSimulator } from '../../src/sim/index.ts'

describe('a server that stops answering mid-run', () => {
  for (const workers of [1, 2]) {
    test(`workers ${workers}: progress says so, the run stops at stallTimeoutMs, what completed before is measured`, async () => {
      // A quarter of the requests stall halfway for a minute (the bytes stop, the connection stays open).
      const sim = await startSimulator({
        seed: 5,
        prefillBaseMs: 2,
        decodeBaseMs: 2,
        faults: { stallRate: 0.25, stallMs: 60_000 },
      })
      try {
        const progress: Progress[] = []
        const started = performance.now()
        const result = await runBenchmark({
          target: { baseUrl: sim.url, stallTimeoutMs: 2_000 },
          workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 16 } },
          load: { concurrency: workers, requests: 200 },
          workers,
          serverMetrics: false,
          onProgress: (p) => progress.push(p),
        })
        const elapsed = performance.now() - started
        expect(result.stall).toMatchObject({ inFlight: workers, stallTimeoutMs: 2_000 })
        expect(result.stall?.silentMs).toBeGreaterThanOrEqual(2_000)
        expect(result.stall?.silentMs).toBeLessThan(3_000)
        expect(result.counts.completed).toBeGreaterThan(0)
        expect(result.counts.completed).toBeLessThan(200)
        expect(result.metrics.ttftMs.count).toBe(result.counts.completed)
        expect(result.warnings.join('\n')).toContain('The server stopped answering: no byte from any of the')
        // The notice comes at half a short timeout, before the stop.
        const silent = progress.filter((p) => p.silentMs !== undefined)
        expect(silent.length).toBeGreaterThan(0)
        expect(silent[0]?.silentMs).toBeGreaterThanOrEqual(1_000)
        expect(silent[0]?.inFlight).toBeGreaterThan(0)
        // Far from the stall's minute: the run ended soon after the timeout.
        expect(elapsed).toBeLessThan(20_000)
      } finally {
        await sim.close()
      }
    }, 60_000)
  }
})
