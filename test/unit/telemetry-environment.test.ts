import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { collectEnvironment } from '../../src/core/telemetry/environment.ts'
import { queryGpuInventory } from '../../src/core/telemetry/gpu-inventory.ts'
import { collectHostInfo, resetHostInfoCache } from '../../src/core/telemetry/host-info.ts'
import { toolVersion } from '../../src/core/telemetry/tool-version.ts'

const fake = fileURLToPath(new URL('../fixtures/bin/nvidia-smi', import.meta.url))
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('GPU inventory', () => {
  test('lists index, name, UUID, total memory, driver and CUDA version', async () => {
    const inventory = await queryGpuInventory({ nvidiaSmi: fake, gpus: '0,1' })
    expect(inventory).toEqual({
      gpus: [
        {
          index: 0,
          name: 'NVIDIA H200',
          uuid: 'GPU-5f0b1c2d-8a9e-4b3c-9d1e-0123456789ab',
          memoryTotalMiB: 143771,
          driverVersion: '550.54.15',
          cudaVersion: '12.4',
        },
        {
          index: 1,
          name: 'NVIDIA H200',
          uuid: 'GPU-7a6b5c4d-3e2f-4a1b-8c9d-fedcba987654',
          memoryTotalMiB: 143771,
          driverVersion: '550.54.15',
          cudaVersion: '12.4',
        },
      ],
    })
  })

  test('an nvidia-smi without --version gives the CUDA version through its banner', async () => {
    vi.stubEnv('FAKE_NVIDIA_SMI_NO_VERSION_FLAG', '1')
    const inventory = await queryGpuInventory({ nvidiaSmi: fake, gpus: '1' })
    expect(inventory.gpus).toEqual([expect.objectContaining({ index: 1, cudaVersion: '12.4' })])
  })

  test('without a driver the list is empty and the note says why', async () => {
    vi.stubEnv('FAKE_NVIDIA_SMI_MODE', 'no-driver')
    const inventory = await queryGpuInventory({ nvidiaSmi: fake })
    expect(inventory.gpus).toEqual([])
    expect(inventory.note).toContain('could not communicate with the NVIDIA driver')
  })
})

describe('collectEnvironment', () => {
  test('runtime, tool version, host and GPUs; server left for the caller', async () => {
    const env = await collectEnvironment({ nvidiaSmi: fake, gpus: '0' })
    expect(env.runtime).toEqual({ name: 'node', version: process.versions.node })
    expect(env.toolVersion).toBe(pkg.version)
    expect(env.host.platform).toBe(process.platform)
    expect(env.host.arch).toBe(process.arch)
    expect(env.host.cpuCores).toBeGreaterThan(0)
    expect(env.host.memoryBytes).toBeGreaterThan(0)
    expect(typeof env.host.cpuModel).toBe('string')
    expect(env.gpus.map((g) => g.uuid)).toEqual(['GPU-5f0b1c2d-8a9e-4b3c-9d1e-0123456789ab'])
    expect(env.server).toEqual({})
  })

  test('no nvidia-smi: no GPUs, no failure', async () => {
    const env = await collectEnvironment({ nvidiaSmi: path.join(os.tmpdir(), 'no-such-nvidia-smi') })
    expect(env.gpus).toEqual([])
  })

  test('skipGpu does not run nvidia-smi at all; hostname: false leaves the host name out', async () => {
    const callLog = path.join(mkdtempSync(path.join(os.tmpdir(), 'llm-bench-env-')), 'calls')
    vi.stubEnv('FAKE_NVIDIA_SMI_CALL_LOG', callLog)
    const env = await collectEnvironment({ nvidiaSmi: fake, skipGpu: true, hostname: false })
    expect(env.gpus).toEqual([])
    expect(existsSync(callLog)).toBe(false)
    expect(env.host).not.toHaveProperty('hostname')
    rmSync(path.dirname(callLog), { recursive: true, force: true })
  })
})

describe('host facts', () => {
  test('a systeminformation slower than the timeout falls back to node:os', async () => {
    resetHostInfoCache()
    const host = await collectHostInfo({ timeoutMs: 0 })
    expect(host.os).toBe(`${os.type()} ${os.release()}`)
    expect(host.cpuCores).toBe(os.cpus().length)
    resetHostInfoCache()
  })

  test('the CPU model (part of the fingerprint) is the same whether systeminformation answered or timed out', async () => {
    // systeminformation spells the model its own way ("(R)" as "®", the vendor split off): a stub
    // that answers with such a spelling shows which source the CPU model comes from.
    vi.resetModules()
    vi.doMock('systeminformation', () => ({
      cpu: () => Promise.resolve({ manufacturer: 'Intel', brand: 'Xeon® Processor', cores: 16 }),
      mem: () => Promise.resolve({ total: 1 }),
      osInfo: () => Promise.resolve({ distro: 'Stub OS', release: '1', kernel: '9.9', hostname: 'stub' }),
    }))
    try {
      const hostInfo = await import('../../src/core/telemetry/host-info.ts')
      const answered = await hostInfo.collectHostInfo({ timeoutMs: 10_000 })
      hostInfo.resetHostInfoCache()
      const timedOut = await hostInfo.collectHostInfo({ timeoutMs: 0 })
      expect(answered.os).toBe('Stub OS 1 (kernel 9.9)')
      expect(answered.cpuCores).toBe(16)
      expect(answered.cpuModel).toBe(os.cpus()[0]?.model.trim())
      expect(timedOut.cpuModel).toBe(answered.cpuModel)
    } finally {
      vi.doUnmock('systeminformation')
      vi.resetModules()
    }
  })

  test('asked once per process: the second call returns the cached facts', async () => {
    resetHostInfoCache()
    const first = await collectHostInfo({ timeoutMs: 10_000 })
    const second = await collectHostInfo({ timeoutMs: 0 })
    expect(second).toEqual(first)
  })

  test('the tool version is the package version', () => {
    expect(toolVersion()).toBe(pkg.version)
  })
})
