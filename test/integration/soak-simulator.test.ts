import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { runBench } from '../../src/bench/run-bench.ts'
import { baselinePathFor } from '../../src/core/baseline/index.ts'
import {
  BENCHMARK_RESULT_SCHEMA,
  BENCHMARK_RESULT_SCHEMA_ID,
  JsonSchemaValidator,
} from '../../src/core/contract/json-schema/index.ts'
import type { BenchmarkOptions, Progress } from '../../src/core/contract/options.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { runBenchmark } from '../../src/core/run.ts'
import { startSimulator } from '../../src/sim/index.ts'

const fakeNvidiaSmi = fileURLToPath(new URL('../fixtures/bin/nvidia-smi', import.meta.url))
const validator = new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA])
const expectValid = (result: BenchmarkResult) =>
  expect(validator.validate(BENCHMARK_RESULT_SCHEMA_ID, JSON.parse(JSON.stringify(result)))).toEqual([])

/**
 * Time is compressed 180x: a 20 s soak stands for an hour. A leak of 30 % per hour of the real
 * server is `slowdownPerHour: 30 * 180 / 100 = 54` here, and the limit of 5 %/h on the hour is
 * '+900%/h' on the 20 s: both scaled by the same factor, so what is found is what an hour would show.
 */
const COMPRESSION = 180
const soakOptions = (url: string): BenchmarkOptions => ({
  target: { baseUrl: url },
  workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 16 } },
  load: { concurrency: 4 },
  serverMetrics: false,
  soak: {
    durationMs: 20_000,
    windowMs: 2_000,
    expect: { e2eMs: { p50: `+${5 * COMPRESSION}%/h` }, outputTokensPerSec: `-${5 * COMPRESSION}%/h` },
  },
})

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-soak-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('soak against the simulator', () => {
  test('a slow leak is found by its trend; the unchanged simulator shows none', { timeout: 120_000 }, async () => {
    vi.stubEnv('LLM_BENCH_NVIDIA_SMI', join(dir, 'no-nvidia-smi'))
    const leaky = await startSimulator({ seed: 1, slowdownPerHour: (30 * COMPRESSION) / 100 })
    const lines: string[] = []
    let leak: BenchmarkResult
    try {
      leak = await runBenchmark({
        ...soakOptions(leaky.url),
        onProgress: (p: Progress) => {
          if (p.soakWindow) lines.push(p.soakWindow)
        },
      })
    } finally {
      await leaky.close()
    }
    expectValid(leak)
    const soak = leak.soak!
    expect(soak.windows).toHaveLength(10)
    // A line per window as it closes: a long CI log stays readable.
    expect(lines).toHaveLength(10)
    expect(lines[0]).toMatch(/^soak window 1\/10 \(0-2 s\): \d+ completed, 0 failed, TTFT p50 /)
    const e2e = soak.trends.find((t) => t.figure === 'e2eMs.p50')!
    // 30 %/h of the compressed hour: 5400 %/h of real time, relative to the median.
    expect(e2e.ciLow!).toBeGreaterThan(5 * COMPRESSION)
    expect(soak.checks.find((c) => c.figure === 'e2eMs.p50')!.verdict).toBe('fail')
    expect(soak.verdict).toBe('fail')

    const steady = await startSimulator({ seed: 1 })
    try {
      const unchanged = await runBenchmark(soakOptions(steady.url))
      expectValid(unchanged)
      const checks = unchanged.soak!.checks
      // No false trend: nothing fails (a noisy window may leave a check inconclusive, never failed).
      expect(checks.map((c) => c.verdict)).not.toContain('fail')
      const flat = unchanged.soak!.trends.find((t) => t.figure === 'e2eMs.p50')!
      expect(Math.abs(flat.slopePerHour)).toBeLessThan(Math.abs(e2e.slopePerHour) / 4)
    } finally {
      await steady.close()
    }
  })

  test(
    'GPU memory that never comes back after the load fails the bench by name, and records nothing',
    {
      timeout: 120_000,
    },
    async () => {
      vi.stubEnv('LLM_BENCH_NVIDIA_SMI', fakeNvidiaSmi)
      vi.stubEnv('FAKE_NVIDIA_SMI_MODE', 'leak')
      vi.stubEnv('FAKE_NVIDIA_SMI_LEAK_SINCE', String(Math.floor(Date.now() / 1000)))
      vi.stubEnv('FAKE_NVIDIA_SMI_LEAK_MIB_PER_S', '200')
      const sim = await startSimulator({ seed: 3 })
      const file = join(dir, 'leak.bench.ts')
      try {
        const { judgement, result } = await runBench({
          name: 'soak with a leak',
          file,
          options: {
            target: { baseUrl: sim.url },
            workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
            load: { concurrency: 2 },
            serverMetrics: false,
            soak: {
              durationMs: 10_000,
              windowMs: 2_000,
              expect: { gpuMemoryMiB: { growth: '+200/h' } },
              recovery: { withinMs: 2_000, gpuMemoryMarginMiB: 500 },
            },
          },
          provided: { update: 'all', ci: false },
        })
        expectValid(result)
        const recovery = result.soak!.recovery!
        expect(recovery.verdict).toBe('fail')
        expect(recovery.gpuMemoryReturnedAfterMs).toBeNull()
        expect(recovery.gpuMemoryAfterMiB!).toBeGreaterThan(recovery.gpuMemoryBeforeMiB! + 500)
        // 200 MiB a second is 720,000 MiB an hour: far beyond +200/h.
        expect(result.soak!.checks[0]).toMatchObject({ figure: 'gpuMemoryMiB', verdict: 'fail' })
        expect(result.soak!.windows.every((w) => w.gpuMemoryMiB !== undefined)).toBe(true)
        expect(judgement.failure).toContain('FAIL after the load: GPU memory did not come back within 2 s of the load')
        expect(judgement.failure).toContain('KV cache not released, or a leak')
        // Judged by its trends: not even -u writes a baseline from a soak.
        expect(existsSync(baselinePathFor(file))).toBe(false)
      } finally {
        await sim.close()
      }
    },
  )
})
