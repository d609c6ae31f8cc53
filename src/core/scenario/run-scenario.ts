import { endToEndMs } from '../metrics/request-latency.ts'
import type { RunContext } from '../run.ts'
import type { RequestRecord } from '../contract/request-record.ts'
import { searchCapacity } from '../sweep/capacity-search.ts'
import { curvePointOf } from '../sweep/curve-point.ts'
import { earlyStoppingEstimate, LOADGEN_CONFIDENCE } from '../sweep/early-stopping.ts'
import { describeLimits, percentileLabel } from '../sweep/latency-limits.ts'
import { runPoint, type PointJudge, type PointRunnerState } from '../sweep/run-point.ts'
import { pointWarnings } from '../sweep/run-sweep.ts'
import { sweepConfigOf } from '../sweep/sweep-config.ts'
import type { SweepOptions, SweepPointLoad } from '../sweep/sweep-options.ts'
import { SWEEP_SCHEMA_VERSION, type ScenarioOutcome, type SweepResult } from '../sweep/sweep-result.ts'
import {
  SCENARIO_DEFAULTS,
  serverLimits,
  type OfflineScenario,
  type ScenarioSpec,
  type ServerScenario,
  type SingleStreamScenario,
} from './scenario-spec.ts'
import { validateScenario } from './validate-scenario.ts'
import { formatFigure } from '../platform/format-figure.ts'

/** Options of {@link runScenario}: a sweep's options with a scenario in place of the swept values and the load. */
export interface ScenarioOptions extends Omit<SweepOptions, 'over' | 'load'> {
  scenario: ScenarioSpec
  /** Drain grace after the stop, ms (the only load option a scenario leaves open). Default 30000. */
  load?: Pick<SweepPointLoad, 'drainGraceMs'>
}

function summaryOf(outcome: Omit<ScenarioOutcome, 'summary'>): string {
  const { metric } = outcome
  const figure =
    metric.value === undefined ? 'no result' : `${formatFigure(metric.value)} ${metric.unit} ${metric.name}`
  const constraint = outcome.constraint === 'none' ? '' : ` with ${outcome.constraint}`
  const reasons = outcome.valid ? '' : `: ${outcome.reasons.join('; ')}`
  return `${outcome.name}: ${figure}${constraint} (${outcome.valid ? 'VALID' : 'INVALID'}${reasons})`
}

function withSummary(outcome: Omit<ScenarioOutcome, 'summary'>): ScenarioOutcome {
  return { ...outcome, summary: summaryOf(outcome) }
}

/** The scenario as its baseline config holds it, defaults filled in. */
function scenarioConfig(spec: ScenarioSpec): Record<string, unknown> {
  switch (spec.name) {
    case 'Server':
      return {
        ...spec,
        percentile: spec.percentile ?? SCENARIO_DEFAULTS.serverPercentile,
        requests: spec.requests ?? SCENARIO_DEFAULTS.serverRequests,
        confidence: LOADGEN_CONFIDENCE,
      }
    case 'SingleStream':
      return {
        ...spec,
        percentile: spec.percentile ?? SCENARIO_DEFAULTS.singleStreamPercentile,
        requests: spec.requests ?? SCENARIO_DEFAULTS.singleStreamRequests,
        confidence: LOADGEN_CONFIDENCE,
      }
    case 'Offline':
      return { ...spec }
  }
}

/**
 * Runs one of MLPerf LoadGen's scenarios and states its result as LoadGen does: the scenario, the
 * constraint and the metric together, with validity by LoadGen's rules where they apply here.
 * - Server: a capacity search (Poisson arrivals) for the highest rate whose p99 TTFT and p99 TPOT
 *   (LoadGen's percentile, latency from the scheduled send) stay within the limits and whose
 *   early-stopping check passes for both; invalid when no rate in the range does.
 * - Offline: every request sent at once; the metric is output tokens per second over the run
 *   (LoadGen reports tokens per second for LLMs); invalid when a request failed.
 * - SingleStream: one request after another; the metric is LoadGen's early-stopping estimate of
 *   the 90th-percentile end-to-end latency; invalid with too few requests for it or a failure.
 * LoadGen's minimum durations (600 s) are not enforced: set `requests`/`durationMs` for that.
 * The scenario is part of the result's `config`, so its baseline is never shared with another.
 */
export async function runScenario(options: ScenarioOptions, context: RunContext = {}): Promise<SweepResult> {
  validateScenario(options.scenario)
  const spec = options.scenario
  switch (spec.name) {
    case 'Server':
      return runServer(spec, options, context)
    case 'Offline':
      return runSinglePoint(spec, options, context)
    case 'SingleStream':
      return runSinglePoint(spec, options, context)
  }
}

async function runServer(spec: ServerScenario, options: ScenarioOptions, context: RunContext): Promise<SweepResult> {
  const { scenario: _scenario, load, ...rest } = options
  const percentile = spec.percentile ?? SCENARIO_DEFAULTS.serverPercentile
  const pointLoad: SweepPointLoad = { ...load }
  if (spec.durationMs !== undefined) pointLoad.durationMs = spec.durationMs
  if (spec.requests !== undefined || spec.durationMs === undefined)
    pointLoad.requests = spec.requests ?? SCENARIO_DEFAULTS.serverRequests
  const result = await searchCapacity(
    {
      ...rest,
      load: pointLoad,
      capacity: {
        limits: serverLimits(spec),
        percentile,
        rate: spec.rate,
        ...(spec.precision !== undefined ? { precision: spec.precision } : {}),
        earlyStopping: true,
        from: 'scheduled',
        maxFailedShare: 0,
      },
    },
    context,
  )
  const capacity = result.capacity
  const constraint = describeLimits(serverLimits(spec), percentile)
  const reasons: string[] = []
  if (capacity?.rate === undefined) {
    const lowest = result.points[0]
    reasons.push(
      `no rate down to ${spec.rate.min} req/s was valid${lowest?.reasons?.length ? ` (at ${formatFigure(lowest.value)} req/s: ${lowest.reasons.join('; ')})` : ''}`,
    )
  }
  const scenario = withSummary({
    name: 'Server',
    constraint,
    metric: {
      name: 'max Poisson rate',
      ...(capacity?.rate !== undefined ? { value: capacity.rate } : {}),
      unit: 'req/s',
    },
    valid: reasons.length === 0,
    reasons,
  })
  return { ...result, kind: 'scenario', scenario, config: { ...result.config, scenario: scenarioConfig(spec) } }
}

function e2eOf(records: RequestRecord[]): number[] {
  return records.filter((record) => record.ok && record.firstTokenAt !== undefined).map((record) => endToEndMs(record))
}

async function runSinglePoint(
  spec: OfflineScenario | SingleStreamScenario,
  options: ScenarioOptions,
  context: RunContext,
): Promise<SweepResult> {
  const { scenario: _scenario, load, ...rest } = options
  const startedAt = new Date().toISOString()
  const started = performance.now()
  const state: PointRunnerState = { target: options.target, context, warnedNoPrefixReset: false, warnings: [] }
  let outcome: Omit<ScenarioOutcome, 'summary'> | undefined
  let pointLoad: SweepPointLoad
  let value: number
  let judge: PointJudge

  if (spec.name === 'Offline') {
    // A closed loop as wide as the request count sends every request at once, as LoadGen's one query of all samples.
    value = spec.requests
    pointLoad = { ...load, requests: spec.requests }
    judge = (result) => {
      const reasons =
        result.counts.failed > 0 ? [`${result.counts.failed} of ${result.counts.total} requests failed`] : []
      outcome = {
        name: 'Offline',
        constraint: 'none',
        metric: { name: 'output throughput', value: result.throughput.outputTokensPerSec, unit: 'tokens/s' },
        valid: reasons.length === 0,
        reasons,
      }
      return { valid: reasons.length === 0, reasons }
    }
  } else {
    const percentile = spec.percentile ?? SCENARIO_DEFAULTS.singleStreamPercentile
    value = 1
    pointLoad = { ...load }
    if (spec.durationMs !== undefined) pointLoad.durationMs = spec.durationMs
    if (spec.requests !== undefined || spec.durationMs === undefined)
      pointLoad.requests = spec.requests ?? SCENARIO_DEFAULTS.singleStreamRequests
    const label = percentileLabel(percentile)
    judge = (result, records) => {
      const estimate = earlyStoppingEstimate(e2eOf(records), percentile)
      const reasons: string[] = []
      if (!estimate.ok) reasons.push(estimate.message)
      if (result.counts.failed > 0) reasons.push(`${result.counts.failed} of ${result.counts.total} requests failed`)
      outcome = {
        name: 'SingleStream',
        constraint: 'none',
        metric: {
          name: `${label} E2E latency (early-stopping estimate)`,
          ...(estimate.ok ? { value: estimate.estimate } : {}),
          unit: 'ms',
        },
        valid: reasons.length === 0,
        reasons,
        earlyStopping: {
          queries: estimate.queries,
          minQueries: estimate.minQueries,
          percentile,
          ...(estimate.ok ? { discarded: estimate.discarded } : {}),
        },
      }
      return { valid: reasons.length === 0, reasons }
    }
  }

  const point = await runPoint({ ...rest, load: pointLoad }, state, {
    axis: 'concurrency',
    value,
    order: 0,
    judge,
  })
  const scenario = withSummary(
    outcome ?? {
      name: spec.name,
      constraint: 'none',
      metric: { name: 'none', unit: '' },
      valid: false,
      reasons: ['the run produced no result'],
    },
  )
  return {
    schemaVersion: SWEEP_SCHEMA_VERSION,
    kind: 'scenario',
    axis: 'concurrency',
    startedAt,
    durationMs: performance.now() - started,
    points: [point],
    curve: [curvePointOf(point.value, point.result, point.valid)],
    scenario,
    config: sweepConfigOf(point.result, pointLoad, { scenario: scenarioConfig(spec) }),
    warnings: [...state.warnings, ...pointWarnings('concurrency', [point])],
  }
}
