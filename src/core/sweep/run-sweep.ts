import type { RunContext } from '../run.ts'
import { curvePointOf } from './curve-point.ts'
import { runPoint, type PointRunnerState } from './run-point.ts'
import { findSaturation, saturationFor } from './saturation.ts'
import { sweepConfigOf } from './sweep-config.ts'
import type { SweepOptions } from './sweep-options.ts'
import { SWEEP_SCHEMA_VERSION, type SweepPoint, type SweepResult } from './sweep-result.ts'
import { axisOf, validatePointLoad, validateSaturation } from './validate-sweep.ts'
import { runCampaign } from '../campaign/index.ts'
import { axisProfile } from './sweep-profiles.ts'

/**
 * Warnings of points, each text once, prefixed with the values that gave it (`-np 1, 2: ...`), or
 * `every point: ...` when all of them did.
 */
export function pointWarnings(axis: string, points: SweepPoint[]): string[] {
  const byText = new Map<string, number[]>()
  for (const point of points) {
    for (const warning of new Set(point.result.warnings))
      byText.set(warning, [...(byText.get(warning) ?? []), point.value])
  }
  return [...byText].map(([warning, values]) =>
    values.length === points.length && points.length > 1
      ? `every point: ${warning}`
      : `${axis} ${values.join(', ')}: ${warning}`,
  )
}

/**
 * Runs one benchmark per swept value, lowest first, and returns the curve with its saturation
 * point. Each point is a full `runBenchmark` (warm-up included, a fresh prompt salt), with the
 * shared `load` plus the swept concurrency or rate (Poisson arrivals unless `load.arrival` says
 * otherwise); a sweep over a server argument runs the shared load at every value, on the server `beforePoint`
 * starts with it. Options are validated before anything is sent (throws `OptionsError`). The values are a profile
 * of the campaign driver ({@link axisProfile}).
 */
export async function runSweep(options: SweepOptions, context: RunContext = {}): Promise<SweepResult> {
  const { axis, values, serverArg } = axisOf(options.over)
  validatePointLoad(options.load, axis)
  validateSaturation(options.saturation)
  const startedAt = new Date().toISOString()
  const started = performance.now()
  const state: PointRunnerState = { target: options.target, context, warnedNoPrefixReset: false, warnings: [] }
  const { measured: points } = await runCampaign({
    profile: axisProfile(values, options.signal),
    measure: (value, order) => runPoint(options, state, { axis, value, order }),
    judge: () => undefined,
  })
  const label = serverArg ?? axis
  const swept = serverArg === undefined ? { [axis]: values } : { serverArg: { [serverArg]: values } }
  const curve = points.map((point) => curvePointOf(point.value, point.result))
  const result: SweepResult = {
    schemaVersion: SWEEP_SCHEMA_VERSION,
    kind: 'sweep',
    axis,
    ...(serverArg === undefined ? {} : { serverArg }),
    startedAt,
    durationMs: performance.now() - started,
    points,
    curve,
    config: sweepConfigOf(points[0]?.result, options.load, { sweep: swept }),
    warnings: [...state.warnings, ...pointWarnings(label, points)],
  }
  const knee = findSaturation(curve, saturationFor(options.target.api, options.saturation))
  if (knee) result.knee = knee
  return result
}
