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

/** One arm as placement reads it. */
interface PlacedArm {
  label: string
  server: BenchServer | undefined
  run: RunPlan
}

/**
 * Memory a llama-server is given beside its model file (context, compute buffers, the process), bytes: a margin, not
 * a measurement (the build's tiny model ran in about 45 MB resident).
 */
const LLAMA_OVERHEAD_BYTES = 512 * 1024 ** 2

/** A file's size in bytes, undefined where it cannot be read. */
function sizeOf(path: string | undefined): number | undefined {
  try {
    return path === undefined ? undefined : statSync(path).size
  } catch {
    return undefined
  }
}

/** Why the launched arms may not fit beside each other, or undefined when they fit. */
function launchedMisfit(arms: readonly PlacedArm[], freeBytes: number): string | undefined {
  const launched = arms.flatMap((arm) =>
    arm.server?.kind === 'launch' ? [{ label: arm.label, spec: arm.server }] : [],
  )
  if (launched.length === 0) return undefined
  const names = new Set(launched.map(({ spec }) => spec.name))
  if (names.size === 1 && names.has('llama.cpp')) {
    let need = 0
    for (const { label, spec } of launched) {
      const size = sizeOf(argValue(spec.args, '-m', '--model'))
      if (size === undefined) return `the model file of '${label}' cannot be read to size it`
      need += size + LLAMA_OVERHEAD_BYTES
    }
    const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(1)
    return need <= freeBytes
      ? undefined
      : `the llama-servers need about ${gib(need)} GiB (model files and 512 MiB each), ${gib(freeBytes)} GiB is free`
  }
  if (names.size === 1 && (names.has('vllm') || names.has('sglang'))) {
    const flag = names.has('vllm') ? '--gpu-memory-utilization' : '--mem-fraction-static'
    let sum = 0
    for (const { label, spec } of launched) {
      const value = Number(argValue(spec.args, flag))
      if (!(value > 0)) return `'${label}' does not give its share of GPU memory (${flag}): each arm needs one`
      sum += value
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
  arms: readonly PlacedArm[],
  freeBytes: number = freemem(),
): ArmsPlacement {
  if (asked === 'apart') return { mode: 'apart', why: 'asked for (`arms: "apart"`)' }
  const cut = arms.map((arm) => unsliceable(arm.run)).find((why) => why !== undefined)
  if (cut !== undefined) {
    if (asked === 'together')
      throw new OptionsError('arms', `cannot be 'together': ${cut}`, "Use `arms: 'apart'` (or 'auto') for this load.")
    return { mode: 'apart', why: `${cut}, so its load cannot be cut into slices` }
  }
  if (asked === 'together') return { mode: 'together', why: 'asked for (`arms: "together"`)' }
  const misfit = launchedMisfit(arms, freeBytes)
  if (misfit !== undefined) return { mode: 'apart', why: misfit }
  const kinds = new Set(arms.map((arm) => arm.server?.kind ?? 'simulator'))
  const what = kinds.has('launch')
    ? 'the launched servers fit beside each other'
    : kinds.has('connect')
      ? 'connected servers are up already'
      : 'the simulators run in this process'
  return { mode: 'together', why: what }
}
