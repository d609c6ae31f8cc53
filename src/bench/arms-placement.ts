import { statSync } from 'node:fs'
import { freemem } from 'node:os'
import { OptionsError } from '../core/contract/errors.ts'
import { unsliceable } from '../core/campaign/index.ts'
import type { RunPlan } from '../core/plan/index.ts'
import { argValue } from '../core/server/index.ts'
import type { BenchServer } from './bench-options.ts'

/** How the arms of a pair share the machine: `together` (all up, loaded in turn in slices) or `apart` (one at a time). */
export type ArmsMode = 'together' | 'apart'

/** Where a comparison's arms run, resolved once at collection, and why (the console says it). */
export interface ArmsPlacement {
  mode: ArmsMode
  /** e.g. `together: the simulators run in this process`, `apart: asked for`. */
  why: string
}

/**
 * What placement reads of one arm, resolved where the arm is collected (plain data: an arm of `ab`
 * writes it for the parent process to place both arms).
 */
export interface ArmNeed {
  label: string
  /** How the arm's server is had. */
  server: 'simulator' | 'connect' | 'launch'
  /** A launched server's name (`llama.cpp`, `vllm`, `sglang`, or the command's). */
  name?: string
  /** llama.cpp: its model file's size, bytes; null where the file cannot be read. */
  modelBytes?: number | null
  /** vLLM and SGLang: the GPU memory share it is given (`--gpu-memory-utilization`, `--mem-fraction-static`), if any. */
  memoryShare?: number
  /** Why its load cannot be cut into slices; absent when it can. */
  unsliceable?: string
  /** Requests its load sends, where the load is a count of requests (each slice needs some). */
  requests?: number
}

/**
 * Memory a llama-server is given beside its model file (context, compute buffers, the process), bytes: a margin, not
 * a measurement (the build's tiny model ran in about 45 MB resident).
 */
const LLAMA_OVERHEAD_BYTES = 512 * 1024 ** 2

/** A file's size in bytes, null where it cannot be read. */
function sizeOf(path: string | undefined): number | null {
  try {
    return path === undefined ? null : statSync(path).size
  } catch {
    return null
  }
}

const SHARE_FLAGS: Record<string, string> = { vllm: '--gpu-memory-utilization', sglang: '--mem-fraction-static' }

/** What placement needs to know of an arm with this server and run. */
export function armNeedOf(label: string, server: BenchServer | undefined, run: RunPlan): ArmNeed {
  const cut = unsliceable(run)
  const need: ArmNeed = {
    label,
    server: server?.kind ?? 'simulator',
    ...(cut !== undefined ? { unsliceable: cut } : {}),
    ...(run.load.requests !== undefined ? { requests: run.load.requests } : {}),
  }
  if (server?.kind !== 'launch') return need
  need.name = server.name
  if (server.name === 'llama.cpp') need.modelBytes = sizeOf(argValue(server.args, '-m', '--model'))
  const flag = SHARE_FLAGS[server.name]
  const share = flag === undefined ? Number.NaN : Number(argValue(server.args, flag))
  if (share > 0) need.memoryShare = share
  return need
}

/** Why the launched arms may not fit beside each other, or undefined when they fit. */
function launchedMisfit(arms: readonly ArmNeed[], freeBytes: number): string | undefined {
  const launched = arms.filter((arm) => arm.server === 'launch')
  if (launched.length === 0) return undefined
  const names = new Set(launched.map((arm) => arm.name))
  if (names.size === 1 && names.has('llama.cpp')) {
    let need = 0
    for (const { label, modelBytes } of launched) {
      if (modelBytes === undefined || modelBytes === null)
        return `the model file of '${label}' cannot be read to size it`
      need += modelBytes + LLAMA_OVERHEAD_BYTES
    }
    const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(1)
    return need <= freeBytes
      ? undefined
      : `the llama-servers need about ${gib(need)} GiB (model files and 512 MiB each), ${gib(freeBytes)} GiB is free`
  }
  const name = [...names][0] ?? ''
  const flag = SHARE_FLAGS[name]
  if (names.size === 1 && flag !== undefined) {
    let sum = 0
    for (const { label, memoryShare } of launched) {
      if (memoryShare === undefined)
        return `'${label}' does not give its share of GPU memory (${flag}): each arm needs one`
      sum += memoryShare
    }
    return sum < 1 ? undefined : `the arms' ${flag} sum to ${sum.toFixed(2)}, not under 1`
  }
  return 'the memory a launched command needs is unknown (set `arms: "together"` if they fit beside each other)'
}

/**
 * Places a comparison's arms: `apart` and `together` as asked (together is refused for a load that
 * cannot be cut into slices), `auto` together where every arm's load can be sliced and the launched
 * servers fit beside each other (llama-server: model files against free memory; vLLM and SGLang:
 * each arm's share of GPU memory given, summing under 1), connected servers and simulators always.
 *
 * @throws {OptionsError} for `together` on a load that cannot be sliced.
 */
export function placeArms(
  asked: ArmsMode | 'auto',
  arms: readonly ArmNeed[],
  freeBytes: number = freemem(),
): ArmsPlacement {
  if (asked === 'apart') return { mode: 'apart', why: 'asked for (`arms: "apart"`)' }
  const cut = arms.map((arm) => arm.unsliceable).find((why) => why !== undefined)
  if (cut !== undefined) {
    if (asked === 'together')
      throw new OptionsError('arms', `cannot be 'together': ${cut}`, "Use `arms: 'apart'` (or 'auto') for this load.")
    return { mode: 'apart', why: `${cut}, so its load cannot be cut into slices` }
  }
  if (asked === 'together') return { mode: 'together', why: 'asked for (`arms: "together"`)' }
  const misfit = launchedMisfit(arms, freeBytes)
  if (misfit !== undefined) return { mode: 'apart', why: misfit }
  const kinds = new Set(arms.map((arm) => arm.server))
  const what = kinds.has('launch')
    ? 'the launched servers fit beside each other'
    : kinds.has('connect')
      ? 'connected servers are up already'
      : 'the simulators run in this process'
  return { mode: 'together', why: what }
}
