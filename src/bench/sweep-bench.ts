import { dirname } from 'node:path'
import type { Progress } from '../core/contract/options.ts'
import { formatFigure } from '../core/platform/format-figure.ts'
import { OptionsError } from '../core/contract/errors.ts'
import type { RunContext } from '../core/run.ts'
import { runScenario, type ScenarioSpec } from '../core/scenario/index.ts'
import { withServerArg, type LaunchSpec } from '../core/server/index.ts'
import {
  axisOf,
  runSweep,
  searchCapacity,
  type PointTarget,
  type SweepPointLoad,
  type SweepPointStart,
  type SweptValues,
  type SweepResult,
} from '../core/sweep/index.ts'
import { acquireTarget, type AcquiredTarget } from './bench-target.ts'
import type { LlmBenchProvided } from './provided.ts'
import type { BenchSweepOptions } from './sweep-bench-options.ts'
import { judgeSweep, type SweepJudgement } from './sweep-judgement.ts'

/**
 * The target of each point and how to let go of it: one server for the whole sweep, a fresh one per point under
 * `restartServer`, or per point a server started with that point's value of the swept argument.
 */
class PointTargets {
  readonly #options: BenchSweepOptions
  readonly #shared: LlmBenchProvided
  readonly #swept: SweptValues | undefined
  #current: AcquiredTarget | undefined

  constructor(options: BenchSweepOptions, shared: LlmBenchProvided) {
    this.#options = options
    this.#shared = shared
    this.#swept = options.over ? axisOf(options.over) : undefined
  }

  /** The first point's target; a server-argument sweep starts its server with the lowest value. */
  async first(): Promise<AcquiredTarget> {
    const shared = { url: this.#shared.serverUrl, server: this.#shared.server }
    const first = this.#swept?.values[0] as number
    const spec = this.#swept?.serverArg === undefined ? this.#options.server : this.#specFor(first)
    this.#current = await acquireTarget(spec, this.#options.target, shared, {
      fresh: this.#swept?.serverArg !== undefined,
    })
    return this.#current
  }

  /** Before a point: stops the current server and starts the next where the sweep asks for it. */
  async beforePoint(point: SweepPointStart): Promise<PointTarget | undefined> {
    if (point.order === 0) return undefined
    if (this.#swept?.serverArg === undefined && this.#options.between?.restartServer !== true) return undefined
    await this.release()
    const shared = { url: this.#shared.serverUrl, server: this.#shared.server }
    const spec = this.#swept?.serverArg === undefined ? this.#options.server : this.#specFor(point.value)
    // A fresh server, not a pooled one: a pooled server outlives its lease for a few seconds, a restart must not.
    this.#current = await acquireTarget(spec, this.#options.target, shared, { fresh: true })
    return { target: this.#current.target, context: this.#current.context }
  }

  #specFor(value: number): LaunchSpec {
    return withServerArg(this.#options.server as LaunchSpec, this.#swept?.serverArg as string, value)
  }

  async release(): Promise<void> {
    const current = this.#current
    this.#current = undefined
    await current?.release()
  }
}

/** A point's progress, named by its value and place: `-np 4, point 3 of 4`; a search's count is open. */
function pointProgress(
  options: BenchSweepOptions,
  onProgress: NonNullable<SweepBenchRun['onProgress']>,
): (point: SweepPointStart, progress: Progress) => void {
  const swept = options.over ? axisOf(options.over) : undefined
  const label = swept ? (swept.serverArg ?? swept.axis) : options.capacity ? 'rate' : 'scenario'
  const unit = label === 'rate' ? '/s' : ''
  const of = swept ? ` of ${swept.values.length}` : ''
  return (point, progress) =>
    onProgress(progress, `${label} ${formatFigure(point.value)}${unit}, point ${point.order + 1}${of}`)
}

/** One sweep bench run: what `bench.llm.sweep` under Vitest (and any runner adapter) does. */
export interface SweepBenchRun {
  /** The baseline key: the sweep's name with its describe path. */
  name: string
  /** Absolute path of the bench file; its baseline file is `__llm_baselines__/<file name>.json` beside it. */
  file: string
  options: BenchSweepOptions
  provided: LlmBenchProvided
  /** Stops the run (the runner's timeout). */
  signal?: AbortSignal
  /** Live progress of each point; `stage` names it (`-np 4, point 3 of 4`, `rate 12/s, point 5`). */
  onProgress?: (progress: Progress, stage: string) => void
}

/** What a sweep bench measured and concluded; `failure` is the assertion text when it failed. */
export type SweepBenchOutcome = SweepJudgement

/**
 * Runs a sweep bench: acquires the target, runs the sweep, search or scenario, and judges it ({@link judgeSweep}:
 * records or compares the baseline, checks the curve). The failure text names every failed check.
 */
export async function runSweepBenchmark(run: SweepBenchRun): Promise<SweepBenchOutcome> {
  const { options, provided: shared, name } = run
  if (
    options.between?.restartServer &&
    options.server === undefined &&
    options.target?.baseUrl === undefined &&
    shared.serverUrl
  ) {
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
    // Dataset and tokenizer paths written in a bench file are relative to that file.
    const context: RunContext = { ...acquired.context, baseDir: dirname(run.file) }
    const common = {
      target: acquired.target,
      workload: options.workload,
      ...(run.signal ? { signal: run.signal } : {}),
      ...(options.warmup ? { warmup: options.warmup } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.recordRequests !== undefined ? { recordRequests: options.recordRequests } : {}),
      ...(options.goodput ? { goodput: options.goodput } : {}),
      ...(options.cost ? { cost: options.cost } : {}),
      ...(options.serverMetrics !== undefined ? { serverMetrics: options.serverMetrics } : {}),
      ...(options.saturation ? { saturation: options.saturation } : {}),
      ...(options.between?.resetPrefixCache ? { between: { resetPrefixCache: true } } : {}),
      beforePoint: (point: SweepPointStart) => targets.beforePoint(point),
      ...(run.onProgress ? { onPointProgress: pointProgress(options, run.onProgress) } : {}),
    }
    if (options.over)
      result = await runSweep({ ...common, over: options.over, load: options.load as SweepPointLoad }, context)
    else if (options.capacity)
      result = await searchCapacity(
        { ...common, capacity: options.capacity, load: options.load as SweepPointLoad },
        context,
      )
    else
      result = await runScenario(
        { ...common, scenario: options.scenario as ScenarioSpec, ...(options.load ? { load: options.load } : {}) },
        context,
      )
  } finally {
    await targets.release()
  }

  return judgeSweep({
    name,
    file: run.file,
    result,
    expect: options.expect,
    baseline: options.baseline !== false,
    provided: shared,
  })
}
