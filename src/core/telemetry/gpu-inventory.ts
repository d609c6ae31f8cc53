import type { EnvironmentInfo } from '../contract/result.ts'
import { parseGpuSelection, selectGpus, type GpuSelection } from './gpu-selection.ts'
import { INVENTORY_FIELDS, parseCudaVersion, parseInventoryRow } from './nvidia-smi-csv.ts'
import { runNvidiaSmi } from './nvidia-smi.ts'

/** Options of {@link queryGpuInventory}. */
export interface GpuInventoryOptions {
  /** Path or name of nvidia-smi. Default: `$LLM_BENCH_NVIDIA_SMI`, else `nvidia-smi` on PATH. */
  nvidiaSmi?: string
  /** Limit of each nvidia-smi call, ms. Default 15000. */
  timeoutMs?: number
  /** GPUs to list. Default: `$CUDA_VISIBLE_DEVICES`, else every GPU. */
  gpus?: GpuSelection
}

/** The GPUs of this host as nvidia-smi lists them. */
export interface GpuInventory {
  gpus: EnvironmentInfo['gpus']
  /** One line for humans when nvidia-smi could not be used (the list is then empty). */
  note?: string
}

/**
 * Lists the GPUs (index, name, UUID, total memory, driver version) and the CUDA version the driver
 * supports. The CUDA version is no `--query-gpu` field: it is read from `nvidia-smi --version`
 * (recent drivers), else from the plain `nvidia-smi` banner. Never throws.
 */
export async function queryGpuInventory(options: GpuInventoryOptions = {}): Promise<GpuInventory> {
  const run = { nvidiaSmi: options.nvidiaSmi, timeoutMs: options.timeoutMs }
  const [inventory, version] = await Promise.all([
    runNvidiaSmi([`--query-gpu=${INVENTORY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'], run),
    runNvidiaSmi(['--version'], run),
  ])
  if (!inventory.ok) return { gpus: [], note: `No GPU inventory: ${inventory.message}.` }
  let cudaVersion = version.ok ? parseCudaVersion(version.stdout) : undefined
  if (cudaVersion === undefined) {
    const banner = await runNvidiaSmi([], run)
    if (banner.ok) cudaVersion = parseCudaVersion(banner.stdout)
  }
  const rows = inventory.stdout
    .split('\n')
    .map(parseInventoryRow)
    .filter((row) => row !== undefined)
  const selection = options.gpus ?? (typeof process !== 'undefined' ? process.env.CUDA_VISIBLE_DEVICES : undefined)
  const { selected } = selectGpus(rows, parseGpuSelection(selection))
  const listed = selected.length > 0 ? selected : rows
  return {
    gpus: listed.map((row) => {
      const gpu: EnvironmentInfo['gpus'][number] = { index: row.index, name: row.name }
      if (row.uuid !== undefined) gpu.uuid = row.uuid
      if (row.memoryTotalMiB !== undefined) gpu.memoryTotalMiB = row.memoryTotalMiB
      if (row.driverVersion !== undefined) gpu.driverVersion = row.driverVersion
      if (cudaVersion !== undefined) gpu.cudaVersion = cudaVersion
      return gpu
    }),
  }
}
