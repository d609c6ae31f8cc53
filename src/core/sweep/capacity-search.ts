import type { RunContext } from '../run.ts'
import { CAPACITY_DEFAULTS, type CapacitySearchOptions } from './capacity-options.ts'
import { curvePointOf } from './curve-point.ts'
import { checkLatencyLimits, describeLimits } from './latency-limits.ts'
import { runPoint, type PointJudge, type PointRunnerState } from './run-point.ts'
import { pointWarnings } from './run-sweep.ts'
import { findSaturation, saturationFor } from './saturation.ts'
import { sweepConfigOf } from './sweep-config.ts'
import { SWEEP_SCHEMA_VERSION, type CapacityResult, type SweepResult } from './sweep-result.ts'
import { validateCapacitySearch, validatePointLoad, validateSaturation } from './validate-sweep.ts'
import { runCampaign } from '../campaign/index.ts'
import { bracketOf, capacityProfile, maxPointsWarning } from './sweep-profiles.ts'

/**
 * Finds the highest Poisson request rate whose latencies stay within `capacity.limits` at
 * `capacity.percentile` (MLPerf's Server-scenario metric): starting at `rate.start`, it doubles
 * after a passing rate and halves after a failing one until one of each is known (or the range
 * ends), then bisects between the highest passing and the lowest failing rate until they are
 * within `precision` of each other. Every rate tried is a point of the result, with its validity
 * and reasons. A point is judged by {@link checkLatencyLimits} (LoadGen's percentile, optionally its
 * early stopping). Assumes latency grows with the rate; a noisy point can still mislead it. The search is a profile
 * of the campaign driver ({@link capacityProfile}).
 */
export async function searchCapacity(options: CapacitySearchOptions, context: RunContext = {}): Promise<SweepResult> {
  const search = options.capacity
  validateCapacitySearch(search)
  validatePointLoad(options.load, 'rate')
  validateSaturation(options.saturation)
  const percentile = search.percentile ?? CAPACITY_DEFAULTS.percentile
  const precision = search.precision ?? CAPACITY_DEFAULTS.precision
  const earlyStopping = search.earlyStopping ?? CAPACITY_DEFAULTS.earlyStopping
  const maxPoints = search.maxPoints ?? CAPACITY_DEFAULTS.maxPoints
  const judge: PointJudge = (_result, records) =>
    checkLatencyLimits(records, search.limits, {
      percentile,
      earlyStopping,
      from: search.from ?? CAPACITY_DEFAULTS.from,
      maxFailedShare: search.maxFailedShare ?? CAPACITY_DEFAULTS.maxFailedShare,
    })

  const startedAt = new Date().toISOString()
  const started = performance.now()
  const state: PointRunnerState = { target: options.target, context, warnedNoPrefixReset: false, warnings: [] }
  const plan = {
    start: search.rate.start ?? Math.sqrt(search.rate.min * search.rate.max),
    range: search.rate,
    precision,
    maxPoints,
  }
  const campaign = await runCampaign({
    profile: capacityProfile(plan, options.signal),
    measure: (rate, order) => runPoint(options, state, { axis: 'rate', value: rate, order, judge }),
    judge: () => undefined,
  })
  const points = campaign.measured
  if (campaign.stopped === maxPointsWarning(plan)) state.warnings.push(campaign.stopped)
  const best = bracketOf(points)

  const sorted = [...points].sort((a, b) => a.value - b.value)
  const curve = sorted.map((point) => curvePointOf(point.value, point.result, point.valid))
  const capacity: CapacityResult = {
    bracketed: best.valid !== undefined && best.invalid !== undefined,
    precision,
    limits: { ...search.limits },
    percentile,
    earlyStopping,
    tried: points.map((point) => point.value),
    constraint: describeLimits(search.limits, percentile),
  }
  if (best.valid !== undefined) capacity.rate = best.valid
  if (best.invalid !== undefined) capacity.failedRate = best.invalid
  const warnings = [...state.warnings]
  if (best.valid === undefined) warnings.push(`No rate down to ${search.rate.min} req/s met ${capacity.constraint}.`)
  else if (best.invalid === undefined)
    warnings.push(
      `Every rate up to ${search.rate.max} req/s met ${capacity.constraint}: the capacity is at least that; raise capacity.rate.max.`,
    )
  const result: SweepResult = {
    schemaVersion: SWEEP_SCHEMA_VERSION,
    kind: 'capacity',
    axis: 'rate',
    startedAt,
    durationMs: performance.now() - started,
    points: sorted,
    curve,
    capacity,
    config: sweepConfigOf(points[0]?.result, options.load, {
      capacity: {
        limits: search.limits,
        percentile,
        precision,
        earlyStopping,
        from: search.from ?? CAPACITY_DEFAULTS.from,
        rate: search.rate,
      },
    }),
    warnings: [...warnings, ...pointWarnings('rate', sorted)],
  }
  if (curve.length >= 2) {
    const knee = findSaturation(curve, saturationFor(options.target.api, options.saturation))
    if (knee) result.knee = knee
  }
  return result
}
