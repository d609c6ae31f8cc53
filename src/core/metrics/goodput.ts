import { OptionsError } from '../contract/errors.ts'
import type { GoodputLimits } from '../contract/options.ts'
import type { RequestRecord } from '../contract/request-record.ts'
import { endToEndMs, timePerOutputTokenMs, timeToFirstTokenMs } from './request-latency.ts'

const LIMIT_NAMES = ['ttftMs', 'tpotMs', 'e2eMs'] as const

/**
 * Checks goodput limits and returns a copy holding only the limits given.
 *
 * @throws {OptionsError} when a limit is not a finite number > 0, or no limit is given.
 */
export function resolveGoodputLimits(limits: GoodputLimits): GoodputLimits {
  const checked: GoodputLimits = {}
  for (const name of LIMIT_NAMES) {
    const value = limits[name]
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new OptionsError(
        `goodput.${name}`,
        `got ${String(value)}`,
        'Give the limit in milliseconds as a finite number > 0, or leave it out.',
      )
    }
    checked[name] = value
  }
  if (Object.keys(checked).length === 0) {
    throw new OptionsError(
      'goodput',
      'no limit given',
      'Give at least one of ttftMs, tpotMs and e2eMs (milliseconds), or leave goodput out.',
    )
  }
  return checked
}

/** True when two sets of limits are the same. */
export function sameGoodputLimits(a: GoodputLimits | undefined, b: GoodputLimits | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return LIMIT_NAMES.every((name) => a[name] === b[name])
}

/**
 * Whether a completed request meets every given limit, as vLLM's `--goodput` judges it: a value
 * meets its limit when `value <= limit`; a request with fewer than 2 output tokens has TPOT 0 and
 * so meets a TPOT limit. Every completed request is judged on what the client saw, streamed or
 * not: when no content-bearing event was timed (a response that was not an event stream), the
 * first token is taken to arrive at `endAt`, so TTFT equals E2E.
 */
export function meetsGoodputLimits(record: RequestRecord, limits: GoodputLimits): boolean {
  // No content-bearing event timed: the first token counts as arriving at the end (TTFT = E2E, TPOT 0).
  if (limits.ttftMs !== undefined && !((timeToFirstTokenMs(record) ?? endToEndMs(record)) <= limits.ttftMs))
    return false
  if (limits.e2eMs !== undefined && !(endToEndMs(record) <= limits.e2eMs)) return false
  if (limits.tpotMs !== undefined && !((timePerOutputTokenMs(record) ?? 0) <= limits.tpotMs)) return false
  return true
}
