import type { ResolvedSimulatorOptions } from './options.ts'
import type { Random } from '../core/platform/random.ts'

/** A fault that strikes halfway through the output. */
export type MidStreamFault = 'drop-connection' | 'error-event' | 'stall'

/** The fault a request was given at arrival, if any. */
export type FaultPlan = { kind: 'http-error'; status: 429 | 500 } | { kind: MidStreamFault } | undefined

/**
 * Draws one request's fault. Always draws four numbers so a change of one rate does not
 * reshuffle which requests get the others.
 */
export function drawFault(random: Random, faults: ResolvedSimulatorOptions['faults']): FaultPlan {
  const http = random.next() < faults.httpErrorRate
  const drop = random.next() < faults.dropConnectionRate
  const errorEvent = random.next() < faults.errorEventRate
  const stall = random.next() < faults.stallRate
  if (http) return { kind: 'http-error', status: faults.httpErrorStatus }
  if (drop) return { kind: 'drop-connection' }
  if (errorEvent) return { kind: 'error-event' }
  if (stall) return { kind: 'stall' }
  return undefined
}

/** Chunks emitted before a mid-stream fault strikes: half of them, rounded down (0 for a one-chunk output). */
export function faultChunkIndex(chunks: number): number {
  return Math.floor(chunks / 2)
}
