import { OptionsError } from '../contract/errors.ts'
import { rejectUnknownKeys } from '../contract/known-keys.ts'
import { validateLoad } from '../load/index.ts'
import type { CapacitySearch } from './capacity-options.ts'
import type { SweepAxis, SweepAxisName } from './sweep-axis.ts'
import type { SaturationOptions, SweepPointLoad } from './sweep-options.ts'

const THROUGHPUTS = ['outputTokensPerSec', 'requestsPerSec', 'totalTokensPerSec']
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const finitePositive = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0

/** The swept axis, its values in increasing order, and for a server-argument sweep the argument's flag. */
export interface SweptValues {
  axis: SweepAxisName
  values: number[]
  /** The launch argument swept (`-np`, `--max-num-seqs`); only with `axis: 'serverArg'`. */
  serverArg?: string
}

const AXIS_EXAMPLE =
  "`over: { concurrency: [1, 2, 4, 8] }`, `over: { rate: [2, 4, 8] }` or `over: { serverArg: { '-np': [1, 2, 4] } }`"

/** The swept axis and its values; throws {@link OptionsError} on an empty, repeating or invalid list. */
export function axisOf(over: SweepAxis, option = 'over'): SweptValues {
  if (!isObject(over)) throw new OptionsError(option, 'must be an object', `Write e.g. ${AXIS_EXAMPLE}.`)
  const keys = Object.keys(over)
  const axis = keys[0]
  if (keys.length !== 1 || (axis !== 'concurrency' && axis !== 'rate' && axis !== 'serverArg')) {
    const got = keys.length === 0 ? 'none' : keys.join(', ')
    throw new OptionsError(
      option,
      `must have exactly one key, concurrency, rate or serverArg, got ${got}`,
      'Sweep one value at a time.',
    )
  }
  if (axis === 'serverArg') return serverArgAxis((over as Record<string, unknown>).serverArg, `${option}.serverArg`)
  const values = (over as Record<string, unknown>)[axis]
  const want = axis === 'concurrency' ? 'a whole number >= 1' : 'a finite number of requests per second > 0'
  const ok = (value: unknown): boolean =>
    axis === 'concurrency' ? Number.isInteger(value) && (value as number) >= 1 : finitePositive(value)
  return { axis, values: sortedValues(values, `${option}.${axis}`, ok, want) }
}

/** `{ '-np': [1, 2, 4] }`: one launch argument and its numeric values. */
function serverArgAxis(spec: unknown, option: string): SweptValues {
  const example =
    "Write e.g. `serverArg: { '-np': [1, 2, 4] }` (llama.cpp) or `serverArg: { '--max-num-seqs': [16, 64, 256] }` (vLLM)."
  if (!isObject(spec)) throw new OptionsError(option, 'must be an object', example)
  const flags = Object.keys(spec)
  const flag = flags[0]
  if (flags.length !== 1 || flag === undefined) {
    throw new OptionsError(
      option,
      `must name exactly one argument, got ${flags.length === 0 ? 'none' : flags.join(', ')}`,
      example,
    )
  }
  if (!/^--?[A-Za-z0-9][\w.-]*$/.test(flag)) {
    throw new OptionsError(
      option,
      `must be keyed by the argument as written on the command line, got ${JSON.stringify(flag)}`,
      example,
    )
  }
  if (flag === '--port' || flag === '--host') {
    throw new OptionsError(`${option}.${flag}`, 'is chosen by the bench', 'Sweep an argument of the server itself.')
  }
  const ok = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value)
  return {
    axis: 'serverArg',
    serverArg: flag,
    values: sortedValues(spec[flag], `${option}.${flag}`, ok, 'a finite number'),
  }
}

function sortedValues(values: unknown, option: string, ok: (value: unknown) => boolean, want: string): number[] {
  if (!Array.isArray(values) || values.length === 0) {
    throw new OptionsError(option, 'must be a non-empty array', 'Write e.g. `[1, 2, 4, 8]`.')
  }
  const seen = new Set<number>()
  values.forEach((value: unknown, i) => {
    if (!ok(value))
      throw new OptionsError(`${option}[${i}]`, `must be ${want}, got ${String(value)}`, 'Fix the value or remove it.')
    if (seen.has(value as number))
      throw new OptionsError(`${option}[${i}]`, `repeats ${String(value)}`, 'List each value once.')
    seen.add(value as number)
  })
  return [...(values as number[])].sort((a, b) => a - b)
}

/**
 * Checks the load shared by every point; throws {@link OptionsError}. A concurrency or rate sweep sets that value
 * itself; a server-argument sweep runs the given load (a concurrency or a rate) at every point.
 */
export function validatePointLoad(load: SweepPointLoad, axis: SweepAxisName, option = 'load'): void {
  if (!isObject(load))
    throw new OptionsError(
      option,
      'must be an object',
      'Give the stop rule of every point, e.g. `load: { requests: 200 }`.',
    )
  if ((load as Record<string, unknown>).rampUp !== undefined) {
    throw new OptionsError(
      `${option}.rampUp`,
      'is not allowed in a sweep',
      'Remove it: each point measures one steady load.',
    )
  }
  if (axis === 'serverArg') {
    validateLoad(load)
    return
  }
  if ((load as Record<string, unknown>).rate !== undefined) {
    throw new OptionsError(`${option}.rate`, 'is set by the sweep', 'Remove it: the sweep sets the rate of each point.')
  }
  if (axis === 'concurrency') {
    if (load.concurrency !== undefined)
      throw new OptionsError(
        `${option}.concurrency`,
        'is set by the sweep',
        'Remove it: the sweep sets the concurrency of each point.',
      )
    for (const key of ['arrival', 'burstiness'] as const) {
      if (load[key] !== undefined)
        throw new OptionsError(
          `${option}.${key}`,
          'applies only to rate sweeps',
          `Remove it, or sweep \`rate\` instead of \`concurrency\`.`,
        )
    }
  }
  validateLoad(axis === 'concurrency' ? { ...load, concurrency: 1 } : { ...load, rate: 1 })
}

/** Checks {@link SaturationOptions}; throws {@link OptionsError}. */
export function validateSaturation(saturation: SaturationOptions | undefined, option = 'saturation'): void {
  if (saturation === undefined) return
  if (!isObject(saturation))
    throw new OptionsError(option, 'must be an object', 'Write e.g. `saturation: { minGain: 0.1 }`.')
  rejectUnknownKeys(saturation, ['metric', 'minGain'], option)
  if (saturation.metric !== undefined && !THROUGHPUTS.includes(saturation.metric as string)) {
    throw new OptionsError(
      `${option}.metric`,
      `must be one of ${THROUGHPUTS.join(', ')}, got ${String(saturation.metric)}`,
      'Leave it out for output tokens per second.',
    )
  }
  if (
    saturation.minGain !== undefined &&
    !(typeof saturation.minGain === 'number' && Number.isFinite(saturation.minGain) && saturation.minGain >= 0)
  ) {
    throw new OptionsError(
      `${option}.minGain`,
      `must be a share >= 0, got ${String(saturation.minGain)}`,
      'Use e.g. 0.1 for 10 %.',
    )
  }
}

/** The keys of a {@link CapacitySearch}. */
const CAPACITY_KEYS = [
  'limits',
  'percentile',
  'rate',
  'precision',
  'earlyStopping',
  'from',
  'maxFailedShare',
  'maxPoints',
]

/** Checks a {@link CapacitySearch}; throws {@link OptionsError}. */
export function validateCapacitySearch(search: CapacitySearch, option = 'capacity'): void {
  if (!isObject(search))
    throw new OptionsError(
      option,
      'must be an object',
      'Write e.g. `capacity: { limits: { ttftMs: 500 }, rate: { min: 1, max: 64 } }`.',
    )
  rejectUnknownKeys(search, CAPACITY_KEYS, option)
  const limits = search.limits
  if (!isObject(limits))
    throw new OptionsError(`${option}.limits`, 'must be an object', 'Write e.g. `limits: { ttftMs: 500, tpotMs: 50 }`.')
  let any = false
  for (const [key, value] of Object.entries(limits)) {
    if (value === undefined) continue
    if (!['ttftMs', 'tpotMs', 'e2eMs'].includes(key))
      throw new OptionsError(`${option}.limits.${key}`, 'is not a limit', 'Use ttftMs, tpotMs or e2eMs.')
    if (!finitePositive(value))
      throw new OptionsError(
        `${option}.limits.${key}`,
        `must be a number of milliseconds > 0, got ${String(value)}`,
        'Use e.g. 500.',
      )
    any = true
  }
  if (!any) throw new OptionsError(`${option}.limits`, 'sets no limit', 'Set at least one of ttftMs, tpotMs, e2eMs.')
  if (
    search.percentile !== undefined &&
    !(typeof search.percentile === 'number' && search.percentile > 0 && search.percentile < 1)
  ) {
    throw new OptionsError(
      `${option}.percentile`,
      `must be a share between 0 and 1 (exclusive), got ${String(search.percentile)}`,
      'Use 0.99 for p99.',
    )
  }
  const rate = search.rate
  if (isObject(rate)) rejectUnknownKeys(rate, ['min', 'max', 'start'], `${option}.rate`)
  if (!isObject(rate) || !finitePositive(rate.min) || !finitePositive(rate.max) || rate.min > rate.max) {
    throw new OptionsError(
      `${option}.rate`,
      'must be `{ min, max }` with 0 < min <= max, in requests per second',
      'Write e.g. `rate: { min: 1, max: 64 }`.',
    )
  }
  if (rate.start !== undefined && (!finitePositive(rate.start) || rate.start < rate.min || rate.start > rate.max)) {
    throw new OptionsError(
      `${option}.rate.start`,
      `must lie within [${rate.min}, ${rate.max}], got ${String(rate.start)}`,
      'Leave it out to start at the geometric mean of min and max.',
    )
  }
  if (search.precision !== undefined && !(finitePositive(search.precision) && search.precision < 1)) {
    throw new OptionsError(
      `${option}.precision`,
      `must be a share between 0 and 1, got ${String(search.precision)}`,
      'Use e.g. 0.05 for 5 %.',
    )
  }
  if (search.from !== undefined && search.from !== 'scheduled' && search.from !== 'sent') {
    throw new OptionsError(
      `${option}.from`,
      `must be 'scheduled' or 'sent', got ${String(search.from)}`,
      'Leave it out to measure from the planned send time, as LoadGen.',
    )
  }
  if (
    search.maxFailedShare !== undefined &&
    !(typeof search.maxFailedShare === 'number' && search.maxFailedShare >= 0 && search.maxFailedShare <= 1)
  ) {
    throw new OptionsError(
      `${option}.maxFailedShare`,
      `must be a share between 0 and 1, got ${String(search.maxFailedShare)}`,
      'Use 0 to allow no failed request.',
    )
  }
  if (search.maxPoints !== undefined && !(Number.isInteger(search.maxPoints) && search.maxPoints >= 2)) {
    throw new OptionsError(
      `${option}.maxPoints`,
      `must be a whole number >= 2, got ${String(search.maxPoints)}`,
      'Leave it out for 16.',
    )
  }
}
