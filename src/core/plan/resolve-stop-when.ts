import { OptionsError } from '../contract/errors.ts'
import { isRecord } from '../contract/is-record.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'
import type { ResolvedStopWhen, StopWhenLatency, StopWhenOptions } from '../contract/options.ts'

/** The defaults of `stopWhen`: the one place the code holds them (`StopWhenOptions`' docs state them). */
export const STOP_WHEN_DEFAULTS = {
  /**
   * How long the condition must hold, ms: long enough that one slow batch or a burst of retries
   * does not stop a run, short enough that a server in trouble gets a few seconds of load, not minutes.
   */
  forMs: 5_000,
  /**
   * The trailing window, ms: short, so the figures follow the server within a second (the stop
   * comes about `windowMs / 2 + forMs` after the trouble starts); `forMs` supplies the persistence.
   */
  windowMs: 1_000,
  expected: false,
} as const

const STOP_WHEN_KEYS = [
  'errorRate',
  'ttftMs',
  'e2eMs',
  'forMs',
  'windowMs',
  'expected',
] as const satisfies ReadonlyArray<keyof StopWhenOptions>
const LATENCY_KEYS = ['p50', 'p99'] as const satisfies ReadonlyArray<keyof StopWhenLatency>
const EXAMPLE = 'e.g. `stopWhen: { errorRate: 0.05, ttftMs: { p99: 2000 }, forMs: 5000 }`'

function positiveMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
}

function checkLatency(value: unknown, name: 'ttftMs' | 'e2eMs'): StopWhenLatency | undefined {
  if (value === undefined) return undefined
  const where = `stopWhen.${name}`
  if (!isRecord(value)) throw new OptionsError(where, 'must be an object { p50?, p99? } in ms', `${EXAMPLE}.`)
  rejectUnknownKeys(value, LATENCY_KEYS, where)
  const out: StopWhenLatency = {}
  for (const key of LATENCY_KEYS) {
    const limit = value[key]
    if (limit === undefined) continue
    if (!positiveMs(limit)) {
      throw new OptionsError(
        `${where}.${key}`,
        `must be a positive number of milliseconds, got ${String(limit)}`,
        `Give the ${key} above which the load stops, e.g. \`${name}: { ${key}: 2000 }\`.`,
      )
    }
    out[key] = limit
  }
  if (out.p50 === undefined && out.p99 === undefined)
    throw new OptionsError(where, 'names no percentile', `Give p50, p99 or both, e.g. \`${name}: { p99: 2000 }\`.`)
  return out
}

/**
 * Checks `stopWhen` and applies its defaults; undefined when it is left out. At least one limit;
 * not with several threads or a segment, whose loads would each stop alone on their share's figures.
 * @throws {OptionsError} naming the option and what to give instead.
 */
export function resolveStopWhen(
  stopWhen: unknown,
  context: { workers: number; segmented: boolean },
): ResolvedStopWhen | undefined {
  if (stopWhen === undefined) return undefined
  if (!isRecord(stopWhen)) throw new OptionsError('stopWhen', 'must be an object', `${EXAMPLE}.`)
  rejectUnknownKeys(stopWhen, STOP_WHEN_KEYS, 'stopWhen')
  const { errorRate, forMs, windowMs, expected } = stopWhen
  if (errorRate !== undefined && !(typeof errorRate === 'number' && errorRate >= 0 && errorRate < 1)) {
    throw new OptionsError(
      'stopWhen.errorRate',
      `must be a share from 0 up to (not including) 1, got ${String(errorRate)}`,
      'e.g. `errorRate: 0.05` stops when more than 5 % of the requests finished in the window failed.',
    )
  }
  const ttftMs = checkLatency(stopWhen.ttftMs, 'ttftMs')
  const e2eMs = checkLatency(stopWhen.e2eMs, 'e2eMs')
  if (errorRate === undefined && ttftMs === undefined && e2eMs === undefined) {
    throw new OptionsError('stopWhen', 'names no limit', `Give errorRate, ttftMs or e2eMs, ${EXAMPLE}.`)
  }
  for (const [name, value] of [
    ['forMs', forMs],
    ['windowMs', windowMs],
  ] as const) {
    if (value !== undefined && !positiveMs(value)) {
      throw new OptionsError(
        `stopWhen.${name}`,
        `must be a positive number of milliseconds, got ${String(value)}`,
        `Leave it out for the default of ${STOP_WHEN_DEFAULTS[name]}.`,
      )
    }
  }
  if (expected !== undefined && typeof expected !== 'boolean') {
    throw new OptionsError(
      'stopWhen.expected',
      `must be true or false, got ${JSON.stringify(expected)}`,
      'Set `expected: true` when the stop is the point of the bench (a probe for the limit).',
    )
  }
  if (context.workers > 1) {
    throw new OptionsError(
      'stopWhen',
      `cannot be combined with ${context.workers} threads (workers): each would read only its share and stop alone`,
      'Leave `workers` out (1) for a bench with a safety stop.',
    )
  }
  if (context.segmented) {
    throw new OptionsError(
      'stopWhen',
      'cannot be combined with a segmented load: each host would read only its share and stop alone',
      'Run the bench with a safety stop on one host (unset LLM_BENCH_SEGMENT), or leave `stopWhen` out.',
    )
  }
  return {
    ...(errorRate !== undefined ? { errorRate } : {}),
    ...(ttftMs ? { ttftMs } : {}),
    ...(e2eMs ? { e2eMs } : {}),
    forMs: (forMs as number | undefined) ?? STOP_WHEN_DEFAULTS.forMs,
    windowMs: (windowMs as number | undefined) ?? STOP_WHEN_DEFAULTS.windowMs,
    expected: (expected as boolean | undefined) ?? STOP_WHEN_DEFAULTS.expected,
  }
}
