/**
 * Which GPUs to report: a `CUDA_VISIBLE_DEVICES`-style string (`"0,1"`, `"GPU-5f0b1c2d"`) or a list
 * of nvidia-smi indices and GPU UUIDs (a unique UUID prefix is enough, as CUDA accepts).
 *
 * Indices are nvidia-smi's (PCI bus order). CUDA numbers devices fastest-first unless
 * `CUDA_DEVICE_ORDER=PCI_BUS_ID`; on a machine with identical GPUs both orders agree, otherwise
 * select by UUID.
 */
export type GpuSelection = string | ReadonlyArray<number | string>

/** One entry of a selection. */
export type GpuSelector = { index: number } | { uuidPrefix: string }

/**
 * Parses a selection; undefined (or an empty string) means every GPU. As CUDA does, a string is read
 * up to its first invalid entry. `MIG-` entries are kept but match no GPU row (nvidia-smi
 * `--query-gpu` reports whole GPUs).
 */
export function parseGpuSelection(selection: GpuSelection | undefined): GpuSelector[] | undefined {
  if (selection === undefined) return undefined
  const entries = typeof selection === 'string' ? selection.split(',') : selection
  if (typeof selection === 'string' && selection.trim() === '') return undefined
  const selectors: GpuSelector[] = []
  for (const raw of entries) {
    if (typeof raw === 'number') {
      if (!Number.isInteger(raw) || raw < 0) break
      selectors.push({ index: raw })
      continue
    }
    const entry = raw.trim()
    if (/^\d+$/.test(entry)) selectors.push({ index: Number(entry) })
    else if (/^(GPU|MIG)-[0-9a-f-]+/i.test(entry)) selectors.push({ uuidPrefix: entry.toLowerCase() })
    else break
  }
  return selectors
}

/** Keeps the GPUs a selection names, in nvidia-smi order; `unmatched` lists entries that matched none. */
export function selectGpus<T extends { index: number; uuid?: string | undefined }>(
  gpus: readonly T[],
  selectors: readonly GpuSelector[] | undefined,
): { selected: T[]; unmatched: string[] } {
  if (selectors === undefined) return { selected: [...gpus], unmatched: [] }
  const chosen = new Set<T>()
  const unmatched: string[] = []
  for (const selector of selectors) {
    const match = gpus.find((gpu) => matches(gpu, selector))
    if (match) chosen.add(match)
    else unmatched.push('index' in selector ? String(selector.index) : selector.uuidPrefix)
  }
  return { selected: gpus.filter((gpu) => chosen.has(gpu)), unmatched }
}

function matches(gpu: { index: number; uuid?: string | undefined }, selector: GpuSelector): boolean {
  if ('index' in selector) return gpu.index === selector.index
  return gpu.uuid !== undefined && gpu.uuid.toLowerCase().startsWith(selector.uuidPrefix)
}
