import { dirname } from 'node:path'
import type { Progress } from '../core/contract/types.ts'
import { formatFigure } from '../core/platform/format-figure.ts'
import { canonicalConfig } from '../core/plan/index.ts'
import { BaselineStore, baselinePathFor } from '../core/baseline/index.ts'
import { OptionsError } from '../core/contract/errors.ts'
import type { RunContext } from '../core/run.ts'
import { runScenario, type ScenarioSpec } from '../core/scenario/index.ts'
import { withServerArg, type LaunchSpec } from '../core/server/index.ts'
import {
  axisOf,
  checkSweep,
  sweepFailureChecks,
  formatSweepHeadlines,
  formatSweepTable,
  runSweep,
  searchCapacity,
  sweepBaselineEntryOf,
  sweepCurveOf,
  type SweepBaselineCurve,
  type PointTarget,
  type SweepCheck,
  type SweepPointLoad,
  type SweepPointStart,
  type SweptValues,
  type SweepResult,
} from '../core/sweep/index.ts'
import { acquireTarget, type AcquiredTarget } from './bench-target.ts'
import type { LlmBenchProvided } from './provided.ts'
import { FORCE_BASELINE_ENV } from './bench-judgement.ts'
import type { BenchSweepOptions } from './sweep-bench-options.ts'
import type { LlmBenchSweepTaskMeta } from './sweep-meta.ts'
import { shownPath } from '../core/platform/shown-path.ts'
import { disturbancesText } from '../core/contract/disturbances-text.ts'
import { PROVISIONAL } from './baseline-state.ts'

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
export interface SweepBenchOutcome {
  meta: LlmBenchSweepTaskMeta
  failure?: string
}

/**
 * Runs a sweep bench: acquires the target, runs the sweep, search or scenario, records and
 * compares the baseline, and checks the curve. The failure text names every failed check.
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

  const blocks: string[] = []
  const meta: LlmBenchSweepTaskMeta = { result, checks: [] }
  let baselineCurve: SweepBaselineCurve | undefined
  let provisionalBaseline: string[] | undefined
  const recording: SweepCheck[] = []
  // A curve of a failing server is neither compared nor recorded, as a bench.llm run is not.
  const serverFailing = sweepFailureChecks(result).some((check) => check.status === 'fail')
  if (serverFailing && options.baseline !== false)
    recording.push({ name: 'baseline', status: 'skip', message: 'not compared or written: points lost requests' })
  if (
    options.baseline !== false &&
    !serverFailing &&
    result.points.some((point) => point.result.counts.completed > 0)
  ) {
    const path = baselinePathFor(run.file, shared.baselineDir)
    meta.baselinePath = path
    const store = await BaselineStore.open(path, {
      updateMode: shared.update,
      ci: shared.ci,
      identity: canonicalConfig,
    })
    const entry = sweepBaselineEntryOf(result)
    if (entry) {
      const forced = process.env[FORCE_BASELINE_ENV] === '1'
      if (forced) delete entry.provisional
      const match = store.match(name, entry)
      meta.baselineState = match.state
      if ((match.state === 'written' || match.state === 'updated') && entry.provisional !== undefined) {
        // As a bench's: not a pass in the reports.
        meta.baselineState = PROVISIONAL
        const shown = disturbancesText(entry.provisional)
        recording.push({
          name: 'baseline',
          status: 'skip',
          message: `recorded provisionally: the machine was disturbed (${shown}); no check passes against it until a quiet run replaces it (\`vitest bench\`, or \`-u\`)`,
        })
      }
      if (match.state === 'compare') {
        provisionalBaseline = match.entry.provisional
        baselineCurve = sweepCurveOf(match.entry)
        if (!baselineCurve)
          blocks.push(
            `The baseline entry for '${name}' in ${path} holds no sweep curve (it was recorded by bench.llm?): run \`vitest bench -u\` and commit ${shownPath(path)}.`,
          )
      } else if (match.state === 'missing' || match.state === 'mismatch') {
        blocks.push(match.error.message)
      }
      await store.save()
    }
  }
  const checks: SweepCheck[] = [...recording, ...checkSweep(result, options.expect, baselineCurve)]
  if (provisionalBaseline !== undefined) {
    // One rule with bench.llm: against a baseline recorded while the machine was disturbed nothing passes.
    for (const [i, check] of checks.entries()) {
      if (check.status === 'pass' && check.name.endsWith('vs baseline')) {
        checks[i] = {
          ...check,
          status: 'skip',
          message: `${check.message}; not a pass: the baseline was recorded while the machine was disturbed (${provisionalBaseline[0] ?? ''}), record it again on a quiet machine`,
        }
      }
    }
  }
  meta.checks = checks
  const failed = checks.filter((check) => check.status === 'fail')
  if (failed.length === 0 && blocks.length === 0) return { meta }
  const headline = `${name}: ${result.points.length} points in ${(result.durationMs / 1000).toFixed(1)} s`
  const failures = failed.map((check) => `${check.name}: ${check.message}`).join('\n')
  const parts = [
    headline,
    ...(failures ? [failures] : []),
    formatSweepHeadlines(result).join('\n'),
    formatSweepTable(result),
    ...blocks,
  ]
  return { meta, failure: parts.filter((part) => part !== '').join('\n\n') }
}
