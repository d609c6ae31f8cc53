import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { startGpuSampler, type GpuSampler } from '../../src/core/telemetry/gpu-sampler.ts'
import { expectNoProcessesWith } from '../helpers/processes.ts'

const fake = fileURLToPath(new URL('../fixtures/bin/nvidia-smi', import.meta.url))
const binDir = path.dirname(fake)

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

afterEach(async () => {
  vi.unstubAllEnvs()
  // Every sampler stops its nvidia-smi: none may outlive a test.
  await expectNoProcessesWith(fake)
})

describe('GPU sampler against a fake nvidia-smi', () => {
  test('two GPUs: memory, utilization, power, energy over the window, joules per token; [N/A] power and a split line', async () => {
    const callLog = path.join(mkdtempSync(path.join(os.tmpdir(), 'llm-bench-smi-')), 'calls')
    vi.stubEnv('FAKE_NVIDIA_SMI_CALL_LOG', callLog)
    const sampler = await startGpuSampler({ intervalMs: 100, nvidiaSmi: fake, gpus: '0,1' })
    expect(sampler.available).toBe(true)
    expect(sampler.note).toBeUndefined()
    await until(() => sampler.sampleCount >= 4, 'samples before the load')

    const before = sampler.sampleCount
    const loadStart = performance.now()
    await sampler.markLoadStart(loadStart)
    await until(() => sampler.sampleCount >= before + 6, 'three rounds of samples during the load')
    const loadEnd = performance.now()
    const telemetry = await sampler.stop({ outputTokens: 100, at: loadEnd })

    expect(telemetry.intervalMs).toBe(100)
    expect(telemetry.note).toBeUndefined()
    const [gpu0, gpu1] = telemetry.gpus
    expect(telemetry.gpus).toHaveLength(2)
    expect(gpu0).toMatchObject({
      index: 0,
      name: 'NVIDIA H200',
      uuid: 'GPU-5f0b1c2d-8a9e-4b3c-9d1e-0123456789ab',
      memoryTotalMiB: 143771,
      memoryBeforeMiB: 800, // one-shot query (query-gpu-sample.csv)
      memoryAfterMiB: 800,
      memoryPeakMiB: 3000, // the loop alternates 1000 and 3000 MiB
      powerMeanW: 150.5,
      powerPeakW: 150.5,
    })
    expect(gpu0!.memoryMeanMiB).toBeGreaterThan(1000)
    expect(gpu0!.memoryMeanMiB).toBeLessThan(3000)
    expect(gpu0!.utilizationMeanPct).toBeGreaterThan(20)
    expect(gpu0!.utilizationMeanPct).toBeLessThan(60)
    // Constant 150.5 W over the window, which samples cover on both sides: energy is power x duration.
    const expectedJ = (150.5 * (loadEnd - loadStart)) / 1000
    expect(gpu0!.energyJ).toBeCloseTo(expectedJ, 6)
    expect(gpu0!.energyPerOutputTokenJ).toBeCloseTo(expectedJ / 100, 8)

    // GPU 1 prints power as [N/A] and its row arrives in two writes.
    expect(gpu1).toMatchObject({
      index: 1,
      uuid: 'GPU-7a6b5c4d-3e2f-4a1b-8c9d-fedcba987654',
      memoryPeakMiB: 500,
      memoryMeanMiB: 500,
      memoryBeforeMiB: 400,
      utilizationMeanPct: 0,
    })
    expect(gpu1!.powerMeanW).toBeUndefined()
    expect(gpu1!.energyJ).toBeUndefined()
    expect(gpu1!.energyPerOutputTokenJ).toBeUndefined()

    const series0 = telemetry.samples.filter((s) => s.index === 0)
    const series1 = telemetry.samples.filter((s) => s.index === 1)
    expect(series0.length).toBeGreaterThanOrEqual(5)
    expect(series1.length).toBe(series0.length)
    expect(series1.every((s) => s.powerW === undefined && s.memoryUsedMiB === 500)).toBe(true)
    for (let i = 1; i < series0.length; i++) expect(series0[i]!.t).toBeGreaterThan(series0[i - 1]!.t)
    expect(series0.some((s) => s.t <= loadStart) && series0.some((s) => s.t >= loadEnd)).toBe(true)

    // One long-running nvidia-smi for the run, plus the one-shot queries before and after the load.
    const calls = readFileSync(callLog, 'utf8').trim().split('\n')
    expect(calls.filter((c) => c.includes('-lms'))).toEqual([
      '--query-gpu=timestamp,index,name,uuid,memory.used,memory.total,utilization.gpu,power.draw --format=csv,noheader,nounits -lms 100',
    ])
    expect(calls.filter((c) => !c.includes('-lms'))).toHaveLength(2)
    rmSync(path.dirname(callLog), { recursive: true, force: true })
  })

  test('stop is idempotent and returns the same telemetry', async () => {
    const sampler = await startGpuSampler({ intervalMs: 50, nvidiaSmi: fake, gpus: '0' })
    const first = sampler.stop({ outputTokens: 1 })
    const second = sampler.stop({ outputTokens: 0 })
    expect(await second).toBe(await first)
    expect((await first).gpus.map((g) => g.index)).toEqual([0])
  })

  test('a row cut in half by the stop is dropped silently', async () => {
    vi.stubEnv('FAKE_NVIDIA_SMI_SPLIT_PAUSE', '30')
    const sampler = await startGpuSampler({ intervalMs: 50, nvidiaSmi: fake, gpus: '0' })
    // GPU 0's row is in; GPU 1's first half waits 30 s for its second: the stop cuts it.
    const telemetry = await sampler.stop()
    expect(telemetry.gpus.map((g) => g.index)).toEqual([0])
    expect(telemetry.note).toBeUndefined()
  })

  test('found on PATH by default, or through LLM_BENCH_NVIDIA_SMI', async () => {
    vi.stubEnv('LLM_BENCH_NVIDIA_SMI', '')
    vi.stubEnv('PATH', `${binDir}${path.delimiter}${process.env.PATH ?? ''}`)
    const onPath = await startGpuSampler({ intervalMs: 50, gpus: '0' })
    expect(onPath.available).toBe(true)
    await onPath.stop()

    vi.stubEnv('PATH', '/nonexistent-dir')
    vi.stubEnv('LLM_BENCH_NVIDIA_SMI', fake)
    const fromEnv = await startGpuSampler({ intervalMs: 50, gpus: '0' })
    expect(fromEnv.available).toBe(true)
    expect((await fromEnv.stop()).gpus).toHaveLength(1)
  })

  test('CUDA_VISIBLE_DEVICES chooses the GPUs, by UUID prefix too', async () => {
    vi.stubEnv('CUDA_VISIBLE_DEVICES', 'GPU-7a6b5c4d')
    const sampler = await startGpuSampler({ intervalMs: 50, nvidiaSmi: fake })
    const telemetry = await sampler.stop()
    expect(telemetry.gpus.map((g) => g.index)).toEqual([1])
    expect(new Set(telemetry.samples.map((s) => s.index))).toEqual(new Set([1]))
    expect(telemetry.note).toBeUndefined()
  })

  test('a selection that matches no GPU reports every GPU, with a note', async () => {
    const sampler = await startGpuSampler({ intervalMs: 50, nvidiaSmi: fake, gpus: [7] })
    const telemetry = await sampler.stop()
    expect(telemetry.gpus.map((g) => g.index)).toEqual([0, 1])
    expect(telemetry.note).toContain('matched no GPU')
  })
})

describe('without a usable nvidia-smi: no GPU section, one line, no failure', () => {
  const expectUnavailable = async (sampler: GpuSampler, fragment: string): Promise<void> => {
    expect(sampler.available).toBe(false)
    expect(sampler.note).toContain(fragment)
    expect(sampler.note).not.toContain('\n')
    await sampler.markLoadStart()
    const telemetry = await sampler.stop({ outputTokens: 10 })
    expect(telemetry).toEqual({ intervalMs: 200, gpus: [], samples: [], note: sampler.note })
  }

  test('nvidia-smi missing (ENOENT)', async () => {
    await expectUnavailable(
      await startGpuSampler({ nvidiaSmi: path.join(binDir, 'no-such-nvidia-smi') }),
      'was not found',
    )
  })

  test('no driver: the "couldn\'t communicate with the NVIDIA driver" message and exit code 9', async () => {
    vi.stubEnv('FAKE_NVIDIA_SMI_MODE', 'no-driver')
    const sampler = await startGpuSampler({ nvidiaSmi: fake })
    await expectUnavailable(sampler, 'could not communicate with the NVIDIA driver (exit code 9)')
  })

  test('a hung nvidia-smi is killed after the first-sample timeout', async () => {
    const seconds = `3600.${Date.now() % 1_000_000}`
    vi.stubEnv('FAKE_NVIDIA_SMI_MODE', 'hang')
    vi.stubEnv('FAKE_NVIDIA_SMI_HANG_SECONDS', seconds)
    const sampler = await startGpuSampler({ nvidiaSmi: fake, firstSampleTimeoutMs: 300 })
    await expectUnavailable(sampler, 'printed nothing within 300 ms and was stopped')
    await expectNoProcessesWith(`sleep ${seconds}`)
  })
})

test('nvidia-smi dying during the run leaves partial telemetry and says so', async () => {
  vi.stubEnv('FAKE_NVIDIA_SMI_MODE', 'dies')
  const sampler = await startGpuSampler({ intervalMs: 50, nvidiaSmi: fake, gpus: '0,1' })
  expect(sampler.available).toBe(true)
  await until(() => sampler.sampleCount >= 4, 'both rounds')
  const telemetry = await sampler.stop({ outputTokens: 10 })
  expect(telemetry.gpus).toHaveLength(2)
  expect(telemetry.samples).toHaveLength(4)
  expect(telemetry.note).toContain('nvidia-smi stopped during the run')
  expect(telemetry.note).toContain('exit code 15')
  expect(telemetry.note).toContain('Unable to determine the device handle')
})
