import { detectRuntime } from '../platform/runtime.ts'
import type { EnvironmentInfo } from '../contract/result.ts'
import { queryGpuInventory } from './gpu-inventory.ts'
import type { GpuSelection } from './gpu-selection.ts'
import { collectHostInfo } from './host-info.ts'
import { toolVersion } from './tool-version.ts'

/** Options of {@link collectEnvironment}. */
export interface CollectEnvironmentOptions {
  /** Path or name of nvidia-smi. Default: `$LLM_BENCH_NVIDIA_SMI`, else `nvidia-smi` on PATH. */
  nvidiaSmi?: string
  /** GPUs to list. Default: `$CUDA_VISIBLE_DEVICES`, else every GPU. */
  gpus?: GpuSelection
  /** Limit for systeminformation, ms; past it `node:os` facts are used. Default 5000. */
  hostTimeoutMs?: number
  /** Limit for each nvidia-smi call, ms. Default 15000. */
  nvidiaSmiTimeoutMs?: number
  /** Include the host name (it lands in results and baselines). Default true. */
  hostname?: boolean
  /** Do not run nvidia-smi (a remote server whose GPUs are not on this host): `gpus` is empty. Default false. */
  skipGpu?: boolean
}

/**
 * Runtime, tool version, host (systeminformation, cached per process) and GPU inventory
 * (nvidia-smi; empty without a driver, silently: the GPU sampler's note is the one line that says
 * so). `server` is left empty for the caller to fill from `getServerFacts` and the launch info.
 * Never throws: what cannot be read is left out.
 */
export async function collectEnvironment(options: CollectEnvironmentOptions = {}): Promise<EnvironmentInfo> {
  const [host, inventory] = await Promise.all([
    collectHostInfo({ timeoutMs: options.hostTimeoutMs, hostname: options.hostname }),
    options.skipGpu
      ? { gpus: [] }
      : queryGpuInventory({ nvidiaSmi: options.nvidiaSmi, timeoutMs: options.nvidiaSmiTimeoutMs, gpus: options.gpus }),
  ])
  const runtime = detectRuntime()
  return {
    runtime: { name: runtime.name, version: runtime.version },
    toolVersion: toolVersion(),
    host,
    gpus: inventory.gpus,
    server: {},
  }
}
