import { OptionsError } from '../core/contract/errors.ts'
import { isRecord } from '../core/contract/is-record.ts'
import type { LoadOptions } from '../core/contract/options.ts'
import { validateScenario, type ScenarioSpec } from '../core/scenario/index.ts'
import {
  axisOf,
  validateCapacitySearch,
  validatePointLoad,
  validateSaturation,
  validateSweepExpectations,
  type BetweenPoints,
  type CapacitySearch,
  type SaturationOptions,
  type SweepAxis,
  type SweepExpectations,
  type SweepPointLoad,
} from '../core/sweep/index.ts'
import type { BenchLlmOptions } from './bench-options.ts'
import { validateBenchLlmOptions } from './plan-bench.ts'

/** Default test timeout of a sweep, milliseconds: sweeps run many benchmarks. */
export const DEFAULT_SWEEP_TIMEOUT_MS = 3_600_000

/**
 * Options of `bench.llm.sweep(name, options)`: those of `bench.llm` with exactly one of `over`
 * (a curve over given values), `capacity` (the highest Poisson rate within latency limits) or
 * `scenario` (an MLPerf LoadGen scenario preset). `slo` is replaced by `expect`, and `baseline`
 * is on or off: the baseline holds the whole curve.
 */
export interface BenchSweepOptions extends Omit<BenchLlmOptions, 'load' | 'slo' | 'baseline'> {
  /**
   * The values to run: `{ concurrency: [1, 2, 4, 8, 16] }`, `{ rate: [5, 10, 20] }` (requests per second), or one
   * argument of the launched server, `{ serverArg: { '-np': [1, 2, 4] } }`: a server started with each value in turn
   * (stopped before the next starts), every point running `load` as given.
   */
  over?: SweepAxis
  /** Search for the highest Poisson rate within latency limits (MLPerf's Server metric). */
  capacity?: CapacitySearch
  /** An MLPerf LoadGen scenario: `serverScenario({...})`, `offlineScenario({...})`, `singleStreamScenario({...})`. */
  scenario?: ScenarioSpec
  /** Load of every point besides the swept value (`requests` and/or `durationMs`; required with `over` and `capacity`). */
  load?: SweepPointLoad
  /** How the knee is found. Default: output tokens/s, 10 %. */
  saturation?: SaturationOptions
  /**
   * Between points: `resetPrefixCache` empties the server's prefix cache; `restartServer` starts a
   * new server for every point (the simulator or a launched server, not one only connected to).
   * Every point always sends a fresh prompt salt. Default: neither.
   */
  between?: BetweenPoints & { restartServer?: boolean }
  /** Assertions on the curve, knee, capacity or scenario metric, e.g. `{ throughput: [{ at: 64, minVsBaseline: 0.9 }], knee: { notEarlierThanBaseline: true } }`. */
  expect?: SweepExpectations
  /** `false`: neither read nor write a baseline. Default true. */
  baseline?: boolean
  /** Test timeout, milliseconds. Default 3600000 (one hour). */
  timeoutMs?: number
}

const OWN_KEYS = ['over', 'capacity', 'scenario', 'load', 'saturation', 'between', 'expect', 'baseline'] as const
const SHARED_KEYS = [
  'server',
  'target',
  'workload',
  'warmup',
  'seed',
  'recordRequests',
  'goodput',
  'cost',
  'serverMetrics',
  'timeoutMs',
] as const

/** A load one point would run with, to check the shared options with `bench.llm`'s validation. */
function sampleLoad(options: BenchSweepOptions): LoadOptions {
  if (options.over) {
    const { axis, values, serverArg } = axisOf(options.over)
    validatePointLoad(requiredLoad(options), axis)
    if (serverArg !== undefined) {
      checkLaunchedServer(options, serverArg)
      return { ...options.load }
    }
    const value = values[0] as number
    return axis === 'concurrency' ? { ...options.load, concurrency: value } : { ...options.load, rate: value }
  }
  if (options.capacity) {
    validateCapacitySearch(options.capacity)
    validatePointLoad(requiredLoad(options), 'rate')
    return { ...options.load, rate: options.capacity.rate.min }
  }
  validateScenario(options.scenario as ScenarioSpec)
  const extra = Object.keys(options.load ?? {}).filter((key) => key !== 'drainGraceMs')
  if (extra.length > 0) {
    throw new OptionsError(
      `load.${extra[0]}`,
      'is set by the scenario',
      'A scenario fixes its own load; only `load.drainGraceMs` may be given.',
    )
  }
  return { ...options.load, concurrency: 1, requests: 1 }
}

/** A sweep over a server argument starts a server per point: it needs a launch spec to set the argument in. */
function checkLaunchedServer(options: BenchSweepOptions, flag: string): void {
  const server = options.server
  if (server?.kind === 'launch' && options.target?.baseUrl === undefined) return
  const what =
    options.target?.baseUrl !== undefined || server?.kind === 'connect'
      ? 'this bench only connects to a server'
      : server?.kind === 'simulator'
        ? 'the built-in simulator takes options, not command-line arguments'
        : 'this bench has no server of its own'
  throw new OptionsError(
    `over.serverArg.${flag}`,
    `needs a server the bench launches, with ${flag} set per point, but ${what}`,
    'Give the bench `server: llamaCpp({...})`, `vllm({...})`, `sglang({...})` or `command([...])`.',
  )
}

function requiredLoad(options: BenchSweepOptions): SweepPointLoad {
  if (!isRecord(options.load)) {
    throw new OptionsError(
      'load',
      'is missing',
      'Give the stop rule of every point, e.g. `load: { requests: 200 }` or `load: { durationMs: 30000 }`.',
    )
  }
  return options.load
}

/**
 * Validates `bench.llm.sweep` options at collection, before any server starts: unknown keys,
 * exactly one of over / capacity / scenario, the shared load, the knee, the expectations, and
 * the options it shares with `bench.llm`. Throws {@link OptionsError}.
 */
export function validateBenchSweepOptions(name: unknown, options: unknown): asserts options is BenchSweepOptions {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new OptionsError(
      'name',
      `must be a non-empty string, got ${JSON.stringify(name)}`,
      "Call bench.llm.sweep('what is measured', { workload, over, load }).",
    )
  }
  if (!isRecord(options))
    throw new OptionsError(
      'options',
      `bench.llm.sweep('${name}', options) needs an options object`,
      'Pass `{ workload, over, load }` at least.',
    )
  const known: readonly string[] = [...OWN_KEYS, ...SHARED_KEYS]
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      const hint = key === 'slo' ? 'Use `expect` for assertions on the curve. ' : ''
      throw new OptionsError(
        key,
        `is not an option of bench.llm.sweep('${name}')`,
        `${hint}Options: ${known.join(', ')}.`,
      )
    }
  }
  const sweep = options as unknown as BenchSweepOptions
  const modes = (['over', 'capacity', 'scenario'] as const).filter((key) => sweep[key] !== undefined)
  if (modes.length !== 1) {
    throw new OptionsError(
      modes.length === 0 ? 'over' : modes.join(', '),
      modes.length === 0 ? 'is missing' : 'cannot be combined',
      'Give exactly one of `over` (a curve), `capacity` (a rate search) or `scenario` (an MLPerf scenario).',
    )
  }
  const load = sampleLoad(sweep)
  validateSaturation(sweep.saturation)
  validateSweepExpectations(sweep.expect, sweep.over ? axisOf(sweep.over).values : undefined)
  if (sweep.baseline !== undefined && typeof sweep.baseline !== 'boolean') {
    throw new OptionsError(
      'baseline',
      `must be true or false, got ${String(sweep.baseline)}`,
      'Use `expect` for the limits against the baseline.',
    )
  }
  if (sweep.between !== undefined) {
    if (!isRecord(sweep.between))
      throw new OptionsError('between', 'must be an object', 'Write e.g. `between: { resetPrefixCache: true }`.')
    for (const key of Object.keys(sweep.between)) {
      if (key !== 'resetPrefixCache' && key !== 'restartServer')
        throw new OptionsError(`between.${key}`, 'is not an option', 'Use resetPrefixCache or restartServer.')
    }
    if (sweep.between.restartServer && (sweep.target?.baseUrl !== undefined || sweep.server?.kind === 'connect')) {
      throw new OptionsError(
        'between.restartServer',
        'needs a server the bench starts, but this one is only connected to',
        'Use a launch preset (vllm({...}), ...) or the simulator, or drop restartServer.',
      )
    }
  }
  const shared: Record<string, unknown> = { load }
  for (const key of SHARED_KEYS) if (sweep[key] !== undefined) shared[key] = sweep[key]
  validateBenchLlmOptions(name, shared)
}
