import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { runStandaloneBench } from '../../src/bench/standalone-bench.ts'
import { baselinePathFor } from '../../src/core/baseline/index.ts'
import { BaselineMismatchError } from '../../src/core/contract/errors.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'

const fakeNvidiaSmi = fileURLToPath(new URL('../fixtures/bin/nvidia-smi', import.meta.url))

let dir = ''
let sim: RunningSimulator
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-machine-'))
  sim = await startSimulator({ seed: 2, prefillBaseMs: 2, decodeBaseMs: 2 })
})
afterAll(async () => {
  await sim.close()
  await rm(dir, { recursive: true, force: true })
})

describe('a baseline from another GPU', () => {
  test('fails before the first request, naming the GPU, where it failed after a whole trial', async () => {
    // Two H200s, as the fake nvidia-smi reports them.
    vi.stubEnv('LLM_BENCH_NVIDIA_SMI', fakeNvidiaSmi)
    const file = join(dir, 'gpu.bench.ts')
    const run = () =>
      runStandaloneBench({
        name: 'chat',
        file,
        options: {
          target: { baseUrl: sim.url },
          workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
          load: { concurrency: 2, requests: 20 },
          serverMetrics: false,
          trials: { record: 1 },
          seed: 1,
        },
        provided: { update: 'new', ci: false },
      })
    const recorded = await run()
    expect(recorded.judgement.baselineState).toBe('written')
    const path = baselinePathFor(file)
    const text = await readFile(path, 'utf8')
    expect(text).toContain('"gpuModel": "NVIDIA H200"')
    await writeFile(path, text.replace('"gpuModel": "NVIDIA H200"', '"gpuModel": "NVIDIA A100-SXM4-80GB"'))
    const completedBefore = sim.stats().completed
    const started = performance.now()
    const error = await run().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BaselineMismatchError)
    expect((error as Error).message).toContain('GPU NVIDIA A100-SXM4-80GB -> NVIDIA H200')
    // Nothing was sent: not the probe, not the warm-up, not the load.
    expect(sim.stats().completed).toBe(completedBefore)
    expect(performance.now() - started).toBeLessThan(5_000)
    vi.unstubAllEnvs()
  }, 60_000)
})
