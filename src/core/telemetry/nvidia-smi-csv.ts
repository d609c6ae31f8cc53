/**
 * Rows of `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`, e.g.
 * `2026/11/29 16:10:00.123, 0, NVIDIA H200, GPU-5f0b..., 1234, 143771, 35, 123.45`.
 * Fields are separated by `", "`; a value nvidia-smi cannot read is printed in brackets
 * (`[N/A]`, `[Not Supported]`, `[Unknown Error]`, `[Insufficient Permissions]`, `[GPU is lost]`).
 */

/** Fields of the periodic sample query (and of the one-shot before/after queries). */
export const SAMPLE_FIELDS = [
  'timestamp',
  'index',
  'name',
  'uuid',
  'memory.used',
  'memory.total',
  'utilization.gpu',
  'power.draw',
] as const

/** Fields of the inventory query. The CUDA version is not a `--query-gpu` field; it comes from the banner. */
export const INVENTORY_FIELDS = ['index', 'name', 'uuid', 'memory.total', 'driver_version'] as const

/** One parsed sample row. Units: MiB, percent, watts. Unavailable values are undefined. */
export interface NvidiaSmiSampleRow {
  /** nvidia-smi's own wall-clock timestamp, as printed (kept for diagnosis only). */
  timestamp: string | undefined
  index: number
  name: string
  uuid: string | undefined
  memoryUsedMiB: number | undefined
  memoryTotalMiB: number | undefined
  utilizationPct: number | undefined
  powerW: number | undefined
}

/** One parsed inventory row. */
export interface NvidiaSmiInventoryRow {
  index: number
  name: string
  uuid: string | undefined
  memoryTotalMiB: number | undefined
  driverVersion: string | undefined
}

/**
 * Splits one row into named values; bracketed or `N/A` values become undefined. Returns undefined
 * when the row does not have the expected shape (an error message printed instead of data).
 * A GPU name containing a comma would add columns: the surplus is folded back into `name`.
 */
export function parseCsvRow(line: string, fields: readonly string[]): Record<string, string | undefined> | undefined {
  const trimmed = line.trim()
  if (trimmed === '') return undefined
  let cells = trimmed.split(',').map((cell) => cell.trim())
  const nameAt = fields.indexOf('name')
  if (cells.length > fields.length && nameAt >= 0) {
    const surplus = cells.length - fields.length
    const name = cells.slice(nameAt, nameAt + surplus + 1).join(', ')
    cells = [...cells.slice(0, nameAt), name, ...cells.slice(nameAt + surplus + 1)]
  }
  if (cells.length !== fields.length) return undefined
  const row: Record<string, string | undefined> = {}
  fields.forEach((field, i) => {
    row[field] = toValue(cells[i])
  })
  return row
}

/** Parses a row of {@link SAMPLE_FIELDS}; undefined when the line is not such a row. */
export function parseSampleRow(line: string): NvidiaSmiSampleRow | undefined {
  const row = parseCsvRow(line, SAMPLE_FIELDS)
  const index = toIndex(row?.index)
  if (row === undefined || index === undefined) return undefined
  return {
    timestamp: row.timestamp,
    index,
    name: row.name ?? `GPU ${index}`,
    uuid: row.uuid,
    memoryUsedMiB: toNumber(row['memory.used']),
    memoryTotalMiB: toNumber(row['memory.total']),
    utilizationPct: toNumber(row['utilization.gpu']),
    powerW: toNumber(row['power.draw']),
  }
}

/** Parses a row of {@link INVENTORY_FIELDS}; undefined when the line is not such a row. */
export function parseInventoryRow(line: string): NvidiaSmiInventoryRow | undefined {
  const row = parseCsvRow(line, INVENTORY_FIELDS)
  const index = toIndex(row?.index)
  if (row === undefined || index === undefined) return undefined
  return {
    index,
    name: row.name ?? `GPU ${index}`,
    uuid: row.uuid,
    memoryTotalMiB: toNumber(row['memory.total']),
    driverVersion: row.driver_version,
  }
}

/**
 * The CUDA version the driver supports, from the `nvidia-smi` banner (`CUDA Version: 12.4`),
 * `nvidia-smi --version` or `-q` (`CUDA Version : 12.4`), or newer drivers' `CUDA UMD Version`.
 */
export function parseCudaVersion(text: string): string | undefined {
  return /CUDA(?: UMD)? Version\s*:\s*(\d+(?:\.\d+)*)/i.exec(text)?.[1]
}

function toValue(cell: string | undefined): string | undefined {
  if (cell === undefined || cell === '' || cell === 'N/A' || /^\[.*\]$/.test(cell)) return undefined
  return cell
}

function toNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  return Number.isFinite(n) ? n : undefined
}

function toIndex(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined
}
