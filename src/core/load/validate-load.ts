import { OptionsError } from '../contract/errors.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'
import type { LoadOptions } from '../contract/options.ts'

const LOAD_KEYS = [
  'concurrency',
  'rate',
  'arrival',
  'burstiness',
  'rampUp',
  'requests',
  'sessions',
  'durationMs',
  'drainGraceMs',
] as const satisfies ReadonlyArray<keyof LoadOptions>
const RAMP_KEYS = ['from', 'durationMs', 'curve'] as const satisfies ReadonlyArray<
  keyof NonNullable<LoadOptions['rampUp']>
>
const ARRIVALS = ['constant', 'poisson', 'gamma']
const CURVES = ['linear', 'exponential']

/** Where the load is validated: a trace supplies its own arrival times and its own end. */
export interface LoadValidationContext {
  /** Trace replay: `requests` and `durationMs` become optional, the arrival process is unused. */
  trace?: boolean
  /** A session workload: the load counts sessions, so `sessions` replaces `requests`. */
  sessions?: boolean
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && !Number.isNaN(value)
const show = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : String(value))

const isRecordLike = (value: unknown): value is object => typeof value === 'object' && value !== null

/**
 * Throws an {@link OptionsError} naming the first invalid `load` option and how to fix it.
 * Runs before any request is sent.
 */
export function validateLoad(load: LoadOptions, context: LoadValidationContext = {}): void {
  if (typeof load !== 'object' || load === null) {
    throw new OptionsError(
      'load',
      `must be an object, got ${show(load)}`,
      'Pass e.g. `{ concurrency: 8, requests: 200 }`.',
    )
  }
  rejectUnknownKeys(load, LOAD_KEYS, 'load')
  if (isRecordLike(load.rampUp)) rejectUnknownKeys(load.rampUp, RAMP_KEYS, 'load.rampUp')
  const { concurrency, rate, arrival, burstiness, rampUp, durationMs, drainGraceMs } = load
  if (context.sessions && load.requests !== undefined) {
    throw new OptionsError(
      'load.requests',
      'does not apply to a session workload, whose load counts sessions',
      'Set `load.sessions` (sessions to run) instead; `concurrency` is users, `rate` sessions per second.',
    )
  }
  if (!context.sessions && load.sessions !== undefined) {
    throw new OptionsError(
      'load.sessions',
      'applies only to session workloads (`sessions`, `agentic-trace`)',
      'Set `load.requests` (requests to send) instead.',
    )
  }
  if (
    load.sessions !== undefined &&
    (!isNumber(load.sessions) || !Number.isInteger(load.sessions) || load.sessions < 1)
  ) {
    throw new OptionsError(
      'load.sessions',
      `must be a whole number >= 1, got ${show(load.sessions)}`,
      'Set how many measured sessions to run, e.g. 20.',
    )
  }
  // From here on, the stop count is the unit's: requests, or sessions of a session workload.
  const requests = context.sessions ? load.sessions : load.requests
  const count = context.sessions ? '`sessions`' : '`requests`'

  if (concurrency !== undefined && (!isNumber(concurrency) || !Number.isInteger(concurrency) || concurrency < 1)) {
    throw new OptionsError(
      'load.concurrency',
      `must be a whole number >= 1, got ${show(concurrency)}`,
      'Set the number of requests kept in flight, e.g. 8.',
    )
  }
  if (rate !== undefined && (!isNumber(rate) || rate <= 0)) {
    throw new OptionsError(
      'load.rate',
      `must be a number of requests per second > 0 (or Infinity), got ${show(rate)}`,
      'Set e.g. `rate: 10`, or leave it out for a closed loop at `concurrency`.',
    )
  }
  if (arrival !== undefined) {
    if (!ARRIVALS.includes(arrival)) {
      throw new OptionsError(
        'load.arrival',
        `must be one of ${ARRIVALS.join(', ')}, got ${show(arrival)}`,
        'Use `poisson` (the default) unless you need evenly spaced or bursty arrivals.',
      )
    }
    if (rate === undefined && !context.trace) {
      throw new OptionsError(
        'load.arrival',
        'applies only to an open loop, but `load.rate` is not set',
        'Set `load.rate` (requests per second) or remove `load.arrival`.',
      )
    }
  }
  if (burstiness !== undefined) {
    if (!isNumber(burstiness) || burstiness <= 0 || burstiness === Infinity) {
      throw new OptionsError(
        'load.burstiness',
        `must be a finite number > 0, got ${show(burstiness)}`,
        'Use 1 for Poisson, below 1 for burstier, above 1 for more even arrivals (or `arrival: "constant"`).',
      )
    }
    if (rate === undefined && !context.trace) {
      throw new OptionsError(
        'load.burstiness',
        'applies only to an open loop, but `load.rate` is not set',
        'Set `load.rate` (requests per second) or remove `load.burstiness`.',
      )
    }
    if (arrival !== undefined && arrival !== 'gamma' && !(arrival === 'poisson' && burstiness === 1)) {
      throw new OptionsError(
        'load.burstiness',
        `applies only to gamma arrivals, but \`load.arrival\` is ${show(arrival)}`,
        'Set `arrival: "gamma"` or remove `load.burstiness`.',
      )
    }
  }
  if (requests !== undefined && (!isNumber(requests) || !Number.isInteger(requests) || requests < 1)) {
    throw new OptionsError(
      'load.requests',
      `must be a whole number >= 1, got ${show(requests)}`,
      'Set how many measured requests to send, e.g. 200.',
    )
  }
  if (durationMs !== undefined && (!isNumber(durationMs) || durationMs <= 0 || durationMs === Infinity)) {
    throw new OptionsError(
      'load.durationMs',
      `must be a finite number of milliseconds > 0, got ${show(durationMs)}`,
      'Set e.g. `durationMs: 60000` for one minute.',
    )
  }
  if (requests === undefined && durationMs === undefined && !context.trace) {
    throw new OptionsError(
      'load',
      `sets neither ${count} nor \`durationMs\`, so the run would never stop`,
      `Set ${count} (e.g. 200), \`durationMs\` (e.g. 60000), or both (whichever comes first).`,
    )
  }
  if (rate === Infinity && requests === undefined && concurrency === undefined && !context.trace) {
    throw new OptionsError(
      'load.rate',
      `is Infinity without \`load.${count.slice(1, -1)}\` or \`load.concurrency\`, which would send requests without bound`,
      `Set \`load.${count.slice(1, -1)}\` (all sent at once) or \`load.concurrency\` (a cap).`,
    )
  }
  if (drainGraceMs !== undefined && (!isNumber(drainGraceMs) || drainGraceMs < 0)) {
    throw new OptionsError(
      'load.drainGraceMs',
      `must be a number of milliseconds >= 0, got ${show(drainGraceMs)}`,
      'Set how long in-flight requests may finish after the stop, e.g. 30000.',
    )
  }
  if (rampUp !== undefined) validateRampUp(load, context)
}

function validateRampUp(load: LoadOptions, context: LoadValidationContext): void {
  const rampUp = load.rampUp
  if (typeof rampUp !== 'object' || rampUp === null) {
    throw new OptionsError(
      'load.rampUp',
      `must be an object, got ${show(rampUp)}`,
      'Pass e.g. `{ from: 1, durationMs: 10000 }`.',
    )
  }
  if (context.trace) {
    throw new OptionsError(
      'load.rampUp',
      'cannot be combined with trace replay, whose timestamps fix every send time',
      'Remove `load.rampUp`.',
    )
  }
  if (rampUp.curve !== undefined && !CURVES.includes(rampUp.curve)) {
    throw new OptionsError(
      'load.rampUp.curve',
      `must be ${CURVES.join(' or ')}, got ${show(rampUp.curve)}`,
      'Leave it out for a linear ramp.',
    )
  }
  if (load.rate === Infinity) {
    throw new OptionsError(
      'load.rampUp',
      'cannot ramp an infinite rate',
      'Set a finite `load.rate` or remove `load.rampUp`.',
    )
  }
  // Left out, the curve is linear (the plan's LOAD_DEFAULTS).
  const curve = rampUp.curve === 'exponential' ? 'exponential' : 'linear'
  const minimum = curve === 'exponential' ? 'greater than 0' : 'at least 0'
  if (
    !isNumber(rampUp.from) ||
    rampUp.from === Infinity ||
    rampUp.from < 0 ||
    (curve === 'exponential' && rampUp.from === 0)
  ) {
    throw new OptionsError(
      'load.rampUp.from',
      `must be a finite number ${minimum} for a ${curve} ramp, got ${show(rampUp.from)}`,
      `Set the starting ${load.rate !== undefined ? 'rate (requests per second)' : 'concurrency'}, e.g. 1.`,
    )
  }
  if (!isNumber(rampUp.durationMs) || rampUp.durationMs <= 0 || rampUp.durationMs === Infinity) {
    throw new OptionsError(
      'load.rampUp.durationMs',
      `must be a finite number of milliseconds > 0, got ${show(rampUp.durationMs)}`,
      'Set how long the ramp lasts, e.g. 10000.',
    )
  }
}
