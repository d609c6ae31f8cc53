import { dirname } from 'node:path'
import type { TestContext } from 'vitest'
import { BaselineStore, baselinePathFor } from '../core/baseline/index.ts'
import { OptionsError } from '../core/contract/errors.ts'
import type { RunContext } from '../core/run.ts'
import { runScenario, validateScenario, type ScenarioSpec } from '../core/scenario/index.ts'
import { startServer, type RunningServer } from '../core/server/index.ts'
import {
  axisOf,
  checkSweep,
  formatSweepHeadlines,
  formatSweepTable,
  runSweep,
  searchCapacity,
  sweepBaselineEntryOf,
  sweepCurveOf,
  validateCapacitySearch,
  validatePointLoad,
  validateSaturation,
  validateSweepExpectations,
  type BetweenPoints,
  type CapacitySearch,
  type SaturationOptions,
  type SweepAxis,
  type SweepBaselineCurve,
  type SweepCheck,
  type SweepExpectations,
  type SweepPointLoad,
  type SweepResult,
} from '../core/sweep/index.ts'
import type { LoadOptions, TargetOptions } from '../core/contract/types.ts'
import type { BenchLlmOptions } from '../bench/bench-options.ts'
import { benchNameOf } from './bench-name.ts'
import { acquireTarget, type AcquiredTarget } from '../bench/bench-target.ts'
import { injectProvided } from './inject-provided.ts'
import type { LlmBenchProvided } from '../bench/provided.ts'
import { benchRegistrar } from './register-bench.ts'
import type { LlmBenchSweepTaskMeta } from '../bench/sweep-meta.ts'
import { validateBenchLlmOptions } from '../bench/plan-bench.ts'
import { benchUpdateCommand } from './update-command.ts'
import { withUpdateCommand } from '../bench/with-update-command.ts'
import { isRecord } from '../core/contract/is-record.ts'

/** Default test timeout of a sweep, milliseconds: sweeps run many benchmarks. */
export const DEFAULT_SWEEP_TIMEOUT_MS = 3_600_000

/**
 * Options of `bench.llm.sweep(name, options)`: those of `bench.llm` with exactly one of `over`
 * (a curve over given values), `capacity` (the highest Poisson rate within latency limits) or
 * `scenario` (an MLPerf LoadGen scenario preset). `slo` is replaced by `expect`, and `baseline`
 * is on or off: the baseline holds the whole curve.
 */
export interface BenchSweepOptions extends Omit<BenchLlmOptions, 'load' | 'slo' | 'baseline'> {
  /** The values to run, e.g. `{ concurrency: [1, 2, 4, 8, 16] }` or `{ rate: [5, 10, 20] }` (requests per second). */
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
const SHARED_KEYS = ['server', 'target', 'workload', 'warmup', 'seed', 'recordRequests', 'goodput', 'cost', 'serverMetrics', 'timeoutMs'] as const

/** A load one point would run with, to check the shared options with `bench.llm`'s validation. */
function sampleLoad(options: BenchSweepOptions): LoadOptions {
  if (options.over) {
    const { axis, values } = axisOf(options.over)
    validatePointLoad(requiredLoad(options), axis)
    const value = values[0] as number
    return axis === 'concurrency' ? { ...options.load, concurrency: value } : { arrival: 'poisson', ...options.load, rate: value }
  }
  if (options.capacity) {
    validateCapacitySearch(options.capacity)
    validatePointLoad(requiredLoad(options), 'rate')
    return { arrival: 'poisson', ...options.load, rate: options.capacity.rate.min }
  }
  validateScenario(options.scenario as ScenarioSpec)
  const extra = Object.keys(options.load ?? {}).filter((key) => key !== 'drainGraceMs')
  if (extra.length > 0) {
    throw new OptionsError(`load.${extra[0]}`, 'is set by the scenario', 'A scenario fixes its own load; only `load.drainGraceMs` may be given.')
  }
  return { ...options.load, concurrency: 1, requests: 1 }
}

function requiredLoad(options: BenchSweepOptions): SweepPointLoad {
  if (!isRecord(options.load)) {
    throw new OptionsError('load', 'is missing', 'Give the stop rule of every point, e.g. `load: { requests: 200 }` or `load: { durationMs: 30000 }`.')
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
    throw new OptionsError('name', `must be a non-empty string, got ${JSON.stringify(name)}`, "Call bench.llm.sweep('what is measured', { workload, over, load }).")
  }
  if (!isRecord(options)) throw new OptionsError('options', `bench.llm.sweep('${name}', options) needs an options object`, 'Pass `{ workload, over, load }` at least.')
  const known: readonly string[] = [...OWN_KEYS, ...SHARED_KEYS]
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      const hint = key === 'slo' ? 'Use `expect` for assertions on the curve. ' : ''
      throw new OptionsError(key, `is not an option of bench.llm.sweep('${name}')`, `${hint}Options: ${known.join(', ')}.`)
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
    throw new OptionsError('baseline', `must be true or false, got ${String(sweep.baseline)}`, 'Use `expect` for the limits against the baseline.')
  }
  if (sweep.between !== undefined) {
    if (!isRecord(sweep.between)) throw new OptionsError('between', 'must be an object', 'Write e.g. `between: { resetPrefixCache: true }`.')
    for (const key of Object.keys(sweep.between)) {
      if (key !== 'resetPrefixCache' && key !== 'restartServer') throw new OptionsError(`between.${key}`, 'is not an option', 'Use resetPrefixCache or restartServer.')
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

/** The target of one point and how to let go of it; a fresh server per point under `restartServer`. */
class PointTargets {
  readonly #options: BenchSweepOptions
  readonly #shared: LlmBenchProvided
  #current: AcquiredTarget | undefined
  #launched: RunningServer | undefined

  constructor(options: BenchSweepOptions, shared: LlmBenchProvided) {
    this.#options = options
    this.#shared = shared
  }

  async first(): Promise<AcquiredTarget> {
    this.#current = await acquireTarget(this.#options.server, this.#options.target, { url: this.#shared.serverUrl, server: this.#shared.server })
    return this.#current
  }

  /** Stops the current server and starts a new one; returns the new target. */
  async restart(): Promise<TargetOptions> {
    await this.release()
    const server = this.#options.server
    if (server?.kind === 'launch') {
      // Not through the shared pool: a pooled server outlives its lease for a few seconds, a restart must not.
      this.#launched = await startServer(server)
      const model = this.#options.target?.model ?? this.#launched.model
      const apiKey = this.#options.target?.apiKey ?? this.#launched.apiKey
      return { ...this.#options.target, baseUrl: this.#launched.baseUrl, ...(model ? { model } : {}), ...(apiKey ? { apiKey } : {}) }
    }
    if (server === undefined && this.#shared.serverUrl) {
      throw new OptionsError(
        'between.restartServer',
        "needs a server the bench starts, but it uses the plugin's shared server",
        'Give the bench its own `server` (a launch preset or simulator()), or drop restartServer.',
      )
    }
    return (await this.first()).target
  }

  async release(): Promise<void> {
    const current = this.#current
    const launched = this.#launched
    this.#current = undefined
    this.#launched = undefined
    await current?.release()
    await launched?.stop()
  }
}

/**
 * The body of a `bench.llm.sweep` test (exported for tests): acquires the target, runs the sweep,
 * search or scenario, records and compares the baseline, puts the result on
 * `ctx.task.meta.llmBenchSweep`, and throws an `LlmBenchAssertionError` naming every failed check.
 */
export async function runSweepBench(ctx: TestContext, options: BenchSweepOptions): Promise<void> {
  const shared = injectProvided()
  if (options.between?.restartServer && options.server === undefined && options.target?.baseUrl === undefined && shared.serverUrl) {
    throw new OptionsError(
      'between.restartServer',
      "needs a server the bench starts, but it uses the plugin's shared server",
      'Give the bench its own `server` (a launch preset or simulator()), or drop restartServer.',
    )
  }
  const targets = new PointTargets(options, shared)
  let result: SweepResult
  try {
    const acquired = await targets.first()
    const controller = new AbortController()
    ctx.signal?.addEventListener('abort', () => controller.abort(ctx.signal.reason), { once: true })
    // Dataset and tokenizer paths written in a bench file are relative to that file.
    const context: RunContext = { ...acquired.context, baseDir: dirname(ctx.task.file.filepath) }
    const restart = options.between?.restartServer === true
    const common = {
      target: acquired.target,
      workload: options.workload,
      signal: controller.signal,
      ...(options.warmup ? { warmup: options.warmup } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.recordRequests !== undefined ? { recordRequests: options.recordRequests } : {}),
      ...(options.goodput ? { goodput: options.goodput } : {}),
      ...(options.cost ? { cost: options.cost } : {}),
      ...(options.serverMetrics !== undefined ? { serverMetrics: options.serverMetrics } : {}),
      ...(options.saturation ? { saturation: options.saturation } : {}),
      ...(options.between?.resetPrefixCache ? { between: { resetPrefixCache: true } } : {}),
      ...(restart ? { beforePoint: async ({ order }: { order: number }) => (order === 0 ? undefined : targets.restart()) } : {}),
    }
    if (options.over) result = await runSweep({ ...common, over: options.over, load: options.load as SweepPointLoad }, context)
    else if (options.capacity) result = await searchCapacity({ ...common, capacity: options.capacity, load: options.load as SweepPointLoad }, context)
    else result = await runScenario({ ...common, scenario: options.scenario as ScenarioSpec, ...(options.load ? { load: options.load } : {}) }, context)
  } finally {
    await targets.release()
  }

  const name = benchNameOf(ctx.task)
  const blocks: string[] = []
  const meta: LlmBenchSweepTaskMeta = { result, checks: [] }
  let baselineCurve: SweepBaselineCurve | undefined
  if (options.baseline !== false && result.points.some((point) => point.result.counts.completed > 0)) {
    const path = baselinePathFor(ctx.task.file.filepath, shared.baselineDir)
    meta.baselinePath = path
    const store = await BaselineStore.open(path, { updateMode: shared.update, ci: shared.ci })
    const entry = sweepBaselineEntryOf(result)
    if (entry) {
      const match = store.match(name, entry)
      meta.baselineState = match.state
      if (match.state === 'compare') {
        baselineCurve = sweepCurveOf(match.entry)
        if (!baselineCurve) blocks.push(`The baseline entry for '${name}' in ${path} holds no sweep curve (it was recorded by bench.llm?): run \`vitest bench -u\` and commit ${path}.`)
      } else if (match.state === 'missing' || match.state === 'mismatch') {
        blocks.push(match.error.message)
      }
      // Entries of benches that did not run yet in this session are not obsolete: the plugin decides that at the end of the run.
      for (const stored of store.names()) store.markChecked(stored)
      await store.save()
    }
  }
  const checks: SweepCheck[] = checkSweep(result, options.expect, baselineCurve)
  meta.checks = checks
  ctx.task.meta.llmBenchSweep = meta
  const failed = checks.filter((check) => check.status === 'fail')
  if (failed.length > 0 || blocks.length > 0) {
    const headline = `${name}: ${result.points.length} points in ${(result.durationMs / 1000).toFixed(1)} s`
    const failures = failed.map((check) => `${check.name}: ${check.message}`).join('\n')
    const parts = [headline, ...(failures ? [failures] : []), formatSweepHeadlines(result).join('\n'), formatSweepTable(result), ...blocks]
    // Messages that suggest an update name this sweep's own command, not `vitest bench -u` (every bench).
    const error = new Error(withUpdateCommand(parts.filter((part) => part !== '').join('\n\n'), benchUpdateCommand(ctx.task)))
    error.name = 'LlmBenchAssertionError'
    throw error
  }
}

/** Registers one sweep: `bench.llm.sweep(name, options)`. */
export type BenchSweepFn = (name: string, options: BenchSweepOptions) => void

const register = benchRegistrar<BenchSweepOptions, void>({ plan: validateBenchSweepOptions, run: runSweepBench, defaultTimeoutMs: DEFAULT_SWEEP_TIMEOUT_MS })

/** `bench.llm.sweep` with its variants. */
export interface BenchSweep extends BenchSweepFn {
  /** Registers the sweep as skipped; its baseline entry is kept. */
  skip: BenchSweepFn
  /** Runs only this sweep (and other `.only` tests) in its file. */
  only: BenchSweepFn
}

/**
 * `bench.llm.sweep(name, options)`: a Vitest test that runs one benchmark per point of a curve
 * (`over`), searches the highest rate within latency limits (`capacity`), or runs an MLPerf
 * scenario (`scenario`); finds the knee; records the curve as one baseline entry keyed by the
 * test's full name; and fails on `expect` assertions, an invalid scenario, or a missing or
 * mismatched baseline (as `bench.llm` does). The result is on `task.meta.llmBenchSweep`.
 */
export const sweep: BenchSweep = Object.assign(register('run'), { skip: register('skip'), only: register('only') })

declare module './bench-llm.ts' {
  interface BenchLlm {
    /** Curves, capacity searches and MLPerf scenarios: see {@link BenchSweepOptions}. */
    sweep: BenchSweep
  }
}
