import { baselineEntryFrom, roundFigures, type BaselineEntry } from '../baseline/index.ts'
import type { SweepAxisName, SweepThroughputMetric } from './sweep-axis.ts'
import { withArg } from '../server/server-arg.ts'
import { axisLabelOf, type ScenarioName, type SweepCurvePoint, type SweepResult } from './sweep-result.ts'

/** What a sweep over a server argument stores in place of that argument's value in its entry's launch. */
const SWEPT_VALUE = '{swept}'

/** The curve a sweep's baseline keeps beside the usual entry fields (figures rounded as the file holds them). */
export interface SweepBaselineCurve {
  kind: SweepResult['kind']
  axis: SweepAxisName
  /** The launch argument a `serverArg` sweep varied (`-np`); absent otherwise. */
  serverArg?: string
  /** Headline figures of every point, by increasing value. */
  points: SweepCurvePoint[]
  /** Knee: its value and whether throughput had stopped rising. */
  knee?: { value: number; saturated: boolean; metric: SweepThroughputMetric }
  /** Capacity found, requests per second (absent when no rate met the limits). */
  capacity?: { rate?: number }
  /** The scenario's metric. */
  scenario?: { name: ScenarioName; metricName: string; value?: number; unit: string; valid: boolean }
}

/**
 * A baseline entry for a sweep: the entry of its highest-throughput point (so the shared file
 * format, fingerprint check and `-u` flow apply unchanged) whose `configHash` and `config` cover
 * the whole sweep, scenario included, plus the curve under `sweep`.
 */
export interface SweepBaselineEntry extends BaselineEntry {
  sweep: SweepBaselineCurve
}

/** The baseline entry of a sweep result; undefined when it has no point. */
export function sweepBaselineEntryOf(
  result: SweepResult,
  options: { recordedAt?: string } = {},
): SweepBaselineEntry | undefined {
  const metric = result.knee?.metric ?? 'outputTokensPerSec'
  let best = result.points[0]
  for (const point of result.points)
    if (best && point.result.throughput[metric] > best.result.throughput[metric]) best = point
  if (!best) return undefined
  const entry = baselineEntryFrom(best.result, {
    config: result.config,
    ...(options.recordedAt ? { recordedAt: options.recordedAt } : {}),
  })
  // The curve holds every point: the entry is provisional when any of them was measured disturbed.
  const provisional = result.points.flatMap((point) =>
    (point.result.client.selfCheck?.disturbed ?? []).map((why) => `${axisLabelOf(result)} ${point.value}: ${why}`),
  )
  if (provisional.length > 0) entry.provisional = provisional
  else delete entry.provisional
  const curve: SweepBaselineCurve = { kind: result.kind, axis: result.axis, points: result.curve }
  if (result.serverArg !== undefined) {
    curve.serverArg = result.serverArg
    // The entry is one point's: its value of the swept argument is the curve's, not the server's software.
    if (entry.launch)
      entry.launch = { ...entry.launch, args: withArg(entry.launch.args, result.serverArg, SWEPT_VALUE) }
  }
  if (result.knee)
    curve.knee = { value: result.knee.value, saturated: result.knee.saturated, metric: result.knee.metric }
  if (result.capacity) curve.capacity = result.capacity.rate === undefined ? {} : { rate: result.capacity.rate }
  if (result.scenario) {
    const { name, metric, valid } = result.scenario
    curve.scenario = {
      name,
      metricName: metric.name,
      unit: metric.unit,
      valid,
      ...(metric.value !== undefined ? { value: metric.value } : {}),
    }
  }
  return { ...entry, sweep: roundFigures(curve) }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The curve of a stored entry, or undefined when the entry is not a sweep's (or was edited out of shape). */
export function sweepCurveOf(entry: BaselineEntry): SweepBaselineCurve | undefined {
  const curve = (entry as Partial<SweepBaselineEntry>).sweep
  if (!isObject(curve) || !Array.isArray(curve.points)) return undefined
  const pointsOk = curve.points.every(
    (point: unknown) =>
      isObject(point) && typeof point.value === 'number' && typeof point.outputTokensPerSec === 'number',
  )
  return pointsOk ? curve : undefined
}
