import { createHash } from 'node:crypto'
import { stableStringify } from '../platform/stable-stringify.ts'

/**
 * The part of a run's resolved options that decides what a baseline measured: the workload, the
 * load and the endpoint kind and model. The base URL, API key, headers, seed and warm-up are left
 * out: they change from machine to machine (a simulator's port) without changing the workload.
 * File paths inside the workload are reduced to their base name, so a dataset checked out at
 * another absolute path on CI still matches.
 */
export interface BaselineConfig {
  workload?: unknown
  load?: unknown
  target?: { api?: unknown; model?: unknown }
  /** A sweep's swept values, capacity search or MLPerf scenario: sweeps of another kind never share a baseline. */
  sweep?: unknown
  capacity?: unknown
  scenario?: unknown
}

/** Keys of a sweep's config that define what it measured, kept as given. */
const SWEEP_KEYS = ['sweep', 'capacity', 'scenario'] as const

/** Workload keys holding file paths (reduced to base names before hashing). */
const PATH_KEYS = new Set(['path', 'tokenizer'])

function baseName(path: string): string {
  const parts = path.split(/[\\/]/)
  return parts[parts.length - 1] ?? path
}

function withBaseNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withBaseNames)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] = PATH_KEYS.has(key) && typeof item === 'string' ? baseName(item) : withBaseNames(item)
  }
  return out
}

/** Picks the {@link BaselineConfig} out of `BenchmarkResult.config` (the resolved options). */
export function baselineConfigOf(config: Record<string, unknown>): BaselineConfig {
  const target =
    config.target !== null && typeof config.target === 'object' ? (config.target as Record<string, unknown>) : {}
  const out: BaselineConfig = {}
  if (config.workload !== undefined) out.workload = withBaseNames(config.workload)
  if (config.load !== undefined) out.load = config.load
  if (target.api !== undefined || target.model !== undefined) {
    out.target = {}
    if (target.api !== undefined) out.target.api = target.api
    if (target.model !== undefined) out.target.model = target.model
  }
  for (const key of SWEEP_KEYS) if (config[key] !== undefined) out[key] = config[key]
  return out
}

/**
 * SHA-256 (hex) of `config` written with sorted keys at every level, so key order never changes
 * the hash. Pass a {@link BaselineConfig} (see {@link baselineConfigOf}); any JSON-like value works.
 */
export function hashConfig(config: unknown): string {
  return createHash('sha256').update(stableStringify(config)).digest('hex')
}

function leaves(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined)
    if (entries.length === 0 && prefix !== '') out.set(prefix, '{}')
    for (const [key, item] of entries) leaves(item, prefix === '' ? key : `${prefix}.${key}`, out)
    return
  }
  if (prefix !== '') out.set(prefix, stableStringify(value))
}

/** Most config changes listed by {@link diffConfigs} before it summarises the rest. */
const MAX_LISTED_CHANGES = 6

/**
 * What changed between two configs, one line per changed leaf, e.g. `load.concurrency 16 -> 32`
 * or `load.rate (none) -> 8`. Empty when they are equal.
 */
export function diffConfigs(before: unknown, after: unknown): string[] {
  const a = new Map<string, string>()
  const b = new Map<string, string>()
  leaves(before, '', a)
  leaves(after, '', b)
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort()
  const changes: string[] = []
  for (const key of keys) {
    const from = a.get(key)
    const to = b.get(key)
    if (from !== to) changes.push(`${key} ${from ?? '(none)'} -> ${to ?? '(none)'}`)
  }
  if (changes.length <= MAX_LISTED_CHANGES) return changes
  return [...changes.slice(0, MAX_LISTED_CHANGES), `and ${changes.length - MAX_LISTED_CHANGES} more`]
}
