import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { runBench } from '../../src/bench/run-bench.ts'
import { baselinePathFor } from '../../src/core/baseline/index.ts'
import { BaselineMismatchError } from '../../src/core/contract/errors.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'
import { expectRecorded } from '../helpers/busy-machine.ts'

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
  test('under CI fails before the first request, naming the GPU; locally this machine gets its own entry', async () => {
    // Two H200s, as the fake nvidia-smi reports them.
    vi.stubEnv('LLM_BENCH_NVIDIA_SMI', fakeNvidiaSmi)
    const file = join(dir, 'gpu.bench.ts')
    const run = (ci: boolean) =>
      runBench({
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
        provided: ci ? { update: 'none', ci: true } : { update: 'new', ci: false },
      })
    const recorded = await run(false)
    expectRecorded(recorded.judgement, recorded.result)
    const path = baselinePathFor(file)
    const text = await readFile(path, 'utf8')
    expect(text).toContain('"gpuModel": "NVIDIA H200"')
    await writeFile(path, text.replace('"gpuModel": "NVIDIA H200"', '"gpuModel": "NVIDIA A100-SXM4-80GB"'))
    const completedBefore = sim.stats().completed
    const started = performance.now()
    const error = await run(true).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BaselineMismatchError)
    expect((error as Error).message).toContain('GPU NVIDIA A100-SXM4-80GB -> NVIDIA H200')
    // Nothing was sent: not the probe, not the warm-up, not the load.
    expect(sim.stats().completed).toBe(completedBefore)
    expect(performance.now() - started).toBeLessThan(5_000)

    // Locally, the H200 is recorded beside the A100's entry, which is kept as it was.
    const beside = await run(false)
    expectRecorded(beside.judgement, beside.result)
    expect(beside.judgement.notes.join('\n')).toMatch(
      /recorded for this machine \(GPU NVIDIA H200 x 2.*\) beside the entries of GPU NVIDIA A100-SXM4-80GB x 2/,
    )
    const stored = JSON.parse(await readFile(path, 'utf8')) as {
      entries: Record<
        string,
        { fingerprint: { gpuModel?: string }; otherMachines?: Array<{ fingerprint: { gpuModel?: string } }> }
      >
    }
    expect(stored.entries.chat?.fingerprint.gpuModel).toBe('NVIDIA A100-SXM4-80GB')
    expect(stored.entries.chat?.otherMachines?.map((entry) => entry.fingerprint.gpuModel)).toEqual(['NVIDIA H200'])

    // Under CI each machine is judged against its own entry.
    const judged = await run(true)
    expect(judged.judgement.baselineState).toBe('compare')
    vi.unstubAllEnvs()
  }, 60_000)
})
