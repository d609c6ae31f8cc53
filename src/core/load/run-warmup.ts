import { rejectUnknownKeys } from '../contract/known-keys.ts'
import { OptionsError } from '../contract/errors.ts'
import type { ResolvedLoad, ResolvedWarmup, WarmupOptions } from '../contract/options.ts'
import { runLoad } from './run-load.ts'

/** Sends warm-up request `index` (-1, -2, ...); resolves when it finished. The signal aborts it. */
export type DispatchWarmupRequest = (index: number, signal: AbortSignal) => Promise<void>

export interface WarmupOutcome {
  /** Warm-up requests sent. */
  requests: number
  /** First send to last completion, ms. */
  durationMs: number
}

const WARMUP_KEYS = ['requests', 'durationMs'] as const satisfies ReadonlyArray<keyof WarmupOptions>

/**
 * The one rule for `warmup` options, used by the option check before a run and by
 * {@link runWarmup}: an object whose `requests` is a whole number >= 0 and whose `durationMs` is a
 * finite number of milliseconds >= 0; 0 (or leaving either out) means none of that kind.
 *
 * @throws {OptionsError} naming the field and what to give instead.
 */
export function validateWarmupOptions(warmup: unknown): asserts warmup is WarmupOptions {
  if (typeof warmup !== 'object' || warmup === null || Array.isArray(warmup)) {
    throw new OptionsError(
      'warmup',
      'must be an object',
      'e.g. `warmup: { requests: 8 }` or `warmup: { durationMs: 5000 }`; leave it out to skip the warm-up.',
    )
  }
  rejectUnknownKeys(warmup, WARMUP_KEYS, 'warmup')
  for (const key of WARMUP_KEYS) {
    const value = (warmup as Record<string, unknown>)[key]
    if (
      value !== undefined &&
      (typeof value !== 'number' ||
        !(value >= 0) ||
        value === Infinity ||
        (key === 'requests' && !Number.isInteger(value)))
    ) {
      throw new OptionsError(
        `warmup.${key}`,
        `must be a ${key === 'requests' ? 'whole number' : 'finite number of milliseconds'} >= 0, got ${String(value)}`,
        'e.g. `warmup: { requests: 8 }`; 0 or leaving `warmup` out skips the warm-up.',
      )
    }
  }
}

/**
 * Sends warm-up requests as a closed loop at `warmup.concurrency` until `warmup.requests` were sent or
 * `warmup.durationMs` passed (whichever first; 0 bounds nothing), then waits for all of them to finish:
 * they are real requests and cutting them short would leave the server busy when measurement starts.
 * Indices are negative (-1, -2, ...), as {@link RequestRecord} expects; results are the caller's
 * to discard.
 */
export async function runWarmup(
  warmup: ResolvedWarmup,
  dispatch: DispatchWarmupRequest,
  signal?: AbortSignal,
): Promise<WarmupOutcome> {
  if (warmup.requests === 0 && warmup.durationMs === 0) return { requests: 0, durationMs: 0 }
  const { concurrency } = warmup
  const load: ResolvedLoad = { concurrency, maxInFlight: concurrency, drainGraceMs: Infinity }
  if (warmup.requests > 0) load.requests = warmup.requests
  if (warmup.durationMs > 0) load.durationMs = warmup.durationMs
  const options: Parameters<typeof runLoad>[0] = {
    load,
    seed: 0,
    dispatch: (index, _plannedAt, requestSignal) => dispatch(-(index + 1), requestSignal),
  }
  if (signal) options.signal = signal
  const outcome = await runLoad(options)
  return { requests: outcome.dispatched, durationMs: outcome.dispatched > 0 ? outcome.endedAt - outcome.startedAt : 0 }
}
