import { OptionsError } from '../contract/errors.ts'
import { isRecord } from '../contract/is-record.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'
import type { LoadOptions, SoakOptions } from '../contract/options.ts'
import type { SoakFigure } from '../contract/result.ts'

/** The soak's defaults: the one place the code holds them (`SoakOptions`' docs state them). */
export const SOAK_DEFAULTS = {
  /** Window length, ms. */
  windowMs: 60_000,
  /** Time GPU memory and the server's gauges get to come back after the load, ms. */
  recoveryWithinMs: 60_000,
  /** GPU memory may stay this much above where it was, MiB. */
  gpuMemoryMarginMiB: 1024,
  /** Confidence of a trend's interval. */
  level: 0.95,
} as const

/** Fewest windows a soak may have: below that no trend means anything. */
export const SOAK_MIN_WINDOWS = 4
/** Shortest window, ms: a window needs requests in it to have percentiles. */
const SOAK_MIN_WINDOW_MS = 1000

/** One trend limit, parsed: the figure may move at most `perHour` (in `unit`) in its bad direction. */
export interface SoakLimit {
  figure: SoakFigure
  /** The limit as the user wrote it, e.g. `'+5%/h'`. */
  text: string
  /** The signed rate: +5 for '+5%/h', -5 for '-5%/h', +200 for '+200/h'. */
  perHour: number
  unit: '%/h' | 'MiB/h'
  /** `rise`: a latency or memory that must not grow faster; `fall`: a throughput that must not fall faster. */
  bad: 'rise' | 'fall'
}

/** A soak with every option checked and defaulted ({@link planSoak}). */
export interface ResolvedSoak {
  durationMs: number
  windowMs: number
  limits: SoakLimit[]
  /** Most failed requests as a share of all; undefined: not judged. */
  maxErrorRate: number | undefined
  recovery: { withinMs: number; gpuMemoryMarginMiB: number }
  level: number
}

const SOAK_KEYS = ['durationMs', 'windowMs', 'expect', 'recovery'] as const satisfies ReadonlyArray<keyof SoakOptions>
const EXPECT_KEYS = ['ttftMs', 'tpotMs', 'e2eMs', 'outputTokensPerSec', 'gpuMemoryMiB', 'errors'] as const
const LATENCY_KEYS = ['ttftMs', 'tpotMs', 'e2eMs'] as const
const EXAMPLE = "`soak: { durationMs: 3_600_000, windowMs: 60_000, expect: { ttftMs: { p99: '+5%/h' } } }`"

function positive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
}

/** Parses `'+5%/h'` (relative) or `'+200/h'` (absolute, `absolute` true) into a signed rate per hour. */
function parseRate(value: unknown, option: string, absolute: boolean, sign: '+' | '-'): number {
  const pattern = absolute ? /^\+(\d+(?:\.\d+)?)\/h$/ : /^([+-])(\d+(?:\.\d+)?)%\/h$/
  const match = typeof value === 'string' ? pattern.exec(value.replace(/\s+/g, '')) : null
  const example = absolute ? "'+200/h' (MiB per hour)" : `'${sign}5%/h'`
  if (!match || (!absolute && match[1] !== sign)) {
    throw new OptionsError(option, `must be a rate per hour such as ${example}, got ${JSON.stringify(value)}`, EXAMPLE)
  }
  const amount = Number(absolute ? match[1] : match[2])
  return sign === '-' ? -amount : amount
}

function checkKeys(value: unknown, known: readonly string[], option: string): Record<string, unknown> {
  if (!isRecord(value)) throw new OptionsError(option, `must be an object, got ${JSON.stringify(value)}`, EXAMPLE)
  rejectUnknownKeys(value, known, option)
  return value
}

function parseLimits(expect: Record<string, unknown>): SoakLimit[] {
  const limits: SoakLimit[] = []
  for (const metric of LATENCY_KEYS) {
    if (expect[metric] === undefined) continue
    const percentiles = checkKeys(expect[metric], ['p50', 'p99'], `soak.expect.${metric}`)
    for (const p of ['p50', 'p99'] as const) {
      const text = percentiles[p]
      if (text === undefined) continue
      const option = `soak.expect.${metric}.${p}`
      const perHour = parseRate(text, option, false, '+')
      limits.push({ figure: `${metric}.${p}`, text: String(text), perHour, unit: '%/h', bad: 'rise' })
    }
  }
  const throughput = expect.outputTokensPerSec
  if (throughput !== undefined) {
    const perHour = parseRate(throughput, 'soak.expect.outputTokensPerSec', false, '-')
    limits.push({ figure: 'outputTokensPerSec', text: String(throughput), perHour, unit: '%/h', bad: 'fall' })
  }
  if (expect.gpuMemoryMiB !== undefined) {
    const memory = checkKeys(expect.gpuMemoryMiB, ['growth'], 'soak.expect.gpuMemoryMiB')
    const perHour = parseRate(memory.growth, 'soak.expect.gpuMemoryMiB.growth', true, '+')
    limits.push({ figure: 'gpuMemoryMiB', text: String(memory.growth), perHour, unit: 'MiB/h', bad: 'rise' })
  }
  return limits
}

function parseMaxErrorRate(errors: unknown): number | undefined {
  if (errors === undefined) return undefined
  const checked = checkKeys(errors, ['maxRate'], 'soak.expect.errors')
  const { maxRate } = checked
  if (!(typeof maxRate === 'number' && maxRate >= 0 && maxRate <= 1)) {
    throw new OptionsError(
      'soak.expect.errors.maxRate',
      `must be a share from 0 to 1, got ${JSON.stringify(maxRate)}`,
      'e.g. `errors: { maxRate: 0.001 }` (one request in a thousand).',
    )
  }
  return maxRate
}

function parseRecovery(recovery: unknown): ResolvedSoak['recovery'] {
  const given = recovery === undefined ? {} : checkKeys(recovery, ['withinMs', 'gpuMemoryMarginMiB'], 'soak.recovery')
  const { withinMs = SOAK_DEFAULTS.recoveryWithinMs, gpuMemoryMarginMiB = SOAK_DEFAULTS.gpuMemoryMarginMiB } = given
  if (!positive(withinMs)) {
    throw new OptionsError(
      'soak.recovery.withinMs',
      `must be a positive number of ms, got ${String(withinMs)}`,
      'Leave it out for the default of 60000 (one minute).',
    )
  }
  if (!(typeof gpuMemoryMarginMiB === 'number' && Number.isFinite(gpuMemoryMarginMiB) && gpuMemoryMarginMiB >= 0)) {
    throw new OptionsError(
      'soak.recovery.gpuMemoryMarginMiB',
      `must be a number of MiB >= 0, got ${String(gpuMemoryMarginMiB)}`,
      'Leave it out for the default of 1024 MiB.',
    )
  }
  return { withinMs, gpuMemoryMarginMiB }
}

/**
 * Checks `soak` against the load and resolves it; undefined without one. A soak runs for its duration,
 * so the load gets `durationMs` from it and may not bound itself by a request count.
 * @throws {OptionsError} naming the first wrong option.
 */
export function planSoak(soak: unknown, load: LoadOptions, workers: number): ResolvedSoak | undefined {
  if (soak === undefined) return undefined
  const given = checkKeys(soak, SOAK_KEYS, 'soak')
  const { durationMs, windowMs = SOAK_DEFAULTS.windowMs } = given
  if (!positive(durationMs)) {
    throw new OptionsError('soak.durationMs', `must be a positive number of ms, got ${String(durationMs)}`, EXAMPLE)
  }
  if (!(positive(windowMs) && windowMs >= SOAK_MIN_WINDOW_MS)) {
    throw new OptionsError(
      'soak.windowMs',
      `must be at least ${SOAK_MIN_WINDOW_MS} ms, got ${String(windowMs)}`,
      EXAMPLE,
    )
  }
  if (Math.floor(durationMs / windowMs) < SOAK_MIN_WINDOWS) {
    throw new OptionsError(
      'soak.windowMs',
      `${windowMs} ms gives ${Math.floor(durationMs / windowMs)} windows in soak.durationMs ${durationMs} ms`,
      `Use windows at most ${Math.floor(durationMs / SOAK_MIN_WINDOWS)} ms long: a trend needs ${SOAK_MIN_WINDOWS} or more.`,
    )
  }
  if (load.requests !== undefined) {
    throw new OptionsError('load.requests', 'cannot bound a soak', 'Leave it out: a soak runs for soak.durationMs.')
  }
  if (load.durationMs !== undefined && load.durationMs !== durationMs) {
    throw new OptionsError(
      'load.durationMs',
      `${load.durationMs} ms differs from soak.durationMs ${durationMs} ms`,
      'Leave load.durationMs out: the soak sets it.',
    )
  }
  if (workers > 1) {
    throw new OptionsError(
      'workers',
      'a soak runs its load on one thread (its windows read every request as it finishes)',
      'Leave `workers` out of a soak.',
    )
  }
  const expect = given.expect === undefined ? {} : checkKeys(given.expect, EXPECT_KEYS, 'soak.expect')
  return {
    durationMs,
    windowMs,
    limits: parseLimits(expect),
    maxErrorRate: parseMaxErrorRate(expect.errors),
    recovery: parseRecovery(given.recovery),
    level: SOAK_DEFAULTS.level,
  }
}
