import { OptionsError } from '../core/contract/errors.ts'
import { parseOnInconclusive, type OnInconclusive } from '../core/verdict/index.ts'
import { isRecord } from '../core/contract/is-record.ts'
import { rejectUnknownKeys } from '../core/contract/known-keys.ts'

/**
 * How many times a bench measures (`trials` of `bench.llm`). One run cannot see the noise between
 * runs (a fresh server start, another batch phase), which on real servers is most of it: a baseline
 * keeps several trials, and the verdict counts each trial as one observation.
 */
export interface TrialOptions {
  /** Trials measured when a baseline entry is written (a first local run, `-u`). Default 5. */
  record?: number
  /**
   * Most trials a compared run takes: one first, then one more until every check passes, up to
   * this many (a fail is confirmed on every trial together; an undecided check gets more data).
   * 1 measures once. Default 3.
   */
  max?: number
  /**
   * Start a launched server afresh before every trial after the first: `true` always, `'record'`
   * only while a baseline is recorded, `false` never. A fresh server is part of the noise between
   * runs (memory placement, caches: on llama-server, unchanged runs in new processes drifted 12 %
   * from a baseline whose trials shared one server), so a baseline should see it. Default `'record'`.
   */
  restartServer?: boolean | 'record'
  /** What an inconclusive verdict does to the bench: `warn` (passes, prints why), `fail`, or `pass` (passes quietly). Default `warn`. */
  onInconclusive?: OnInconclusive
}

/** {@link TrialOptions} with every default applied. */
export interface ResolvedTrials {
  record: number
  max: number
  /** When a launched server is started afresh between trials. */
  restartServer: 'always' | 'record' | 'never'
  onInconclusive: OnInconclusive
}

export const DEFAULT_RECORD_TRIALS = 5
export const DEFAULT_MAX_TRIALS = 3
/** More trials than this per bench are refused (a typo such as 300 would run for hours). */
const MAX_TRIALS_ALLOWED = 20

function count(name: 'record' | 'max', value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TRIALS_ALLOWED) {
    throw new OptionsError(
      `trials.${name}`,
      `must be a whole number from 1 to ${MAX_TRIALS_ALLOWED}, got ${JSON.stringify(value)}`,
      `e.g. \`trials: { ${name}: 3 }\`.`,
    )
  }
  return value
}

/** The bench's `trials` option, checked and with defaults. @throws {OptionsError} naming the field and what to give. */
export function resolveTrials(value: unknown): ResolvedTrials {
  if (value !== undefined && !isRecord(value)) {
    throw new OptionsError(
      'trials',
      `must be an object, got ${JSON.stringify(value)}`,
      'e.g. `trials: { record: 5, max: 3 }`.',
    )
  }
  const options = (value ?? {}) as Record<string, unknown>
  rejectUnknownKeys(options, ['record', 'max', 'restartServer', 'onInconclusive'], 'trials')
  const restart = options.restartServer ?? 'record'
  if (restart !== true && restart !== false && restart !== 'record') {
    throw new OptionsError(
      'trials.restartServer',
      `must be true, false or 'record', got ${JSON.stringify(restart)}`,
      'e.g. `trials: { restartServer: true }`.',
    )
  }
  const onInconclusive = parseOnInconclusive(
    options.onInconclusive,
    'trials.onInconclusive',
    "trials: { onInconclusive: 'fail' }",
  )
  return {
    record: count('record', options.record, DEFAULT_RECORD_TRIALS),
    max: count('max', options.max, DEFAULT_MAX_TRIALS),
    restartServer: restart === true ? 'always' : restart === false ? 'never' : 'record',
    onInconclusive,
  }
}

/** A bench's whole time limit and what it is made of. */
export interface BenchLimit {
  /** `timeoutMs`: the limit of one trial, ms. */
  perTrialMs: number
  /** The trials the bench may run: `record` (a recording) or `max` (a comparison), whichever is more, plus two re-measured disturbed trials. */
  trials: number
  /** The whole limit, `perTrialMs` times `trials`, ms. */
  ms: number
}

/** Re-measures a bench may add for trials measured on a disturbed machine. */
export const DISTURBED_REMEASURES = 2

/** A bench's whole time limit: `timeoutMs` holds for one trial, times the trials it may run. */
export function benchLimit(timeoutMs: number, trials: ResolvedTrials): BenchLimit {
  const count = Math.max(trials.record, trials.max) + DISTURBED_REMEASURES
  return { perTrialMs: timeoutMs, trials: count, ms: timeoutMs * count }
}
