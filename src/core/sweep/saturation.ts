import type { SweepThroughputMetric } from './sweep-axis.ts'
import type { ApiKind } from '../contract/api-kinds.ts'
import { takesInputs } from '../contract/api-kinds.ts'
import type { SaturationOptions } from './sweep-options.ts'
import type { SaturationPoint } from './sweep-result.ts'

/** Default {@link SaturationOptions.minGain}: beyond the knee no point gains more than 10 %. */
export const DEFAULT_SATURATION_MIN_GAIN = 0.1
/** Default {@link SaturationOptions.metric}. */
export const DEFAULT_SATURATION_METRIC: SweepThroughputMetric = 'outputTokensPerSec'

/**
 * The saturation options of a sweep over `api`, defaults filled: the embeddings and rerank APIs
 * produce no output tokens, so their knee is read from `totalTokensPerSec` (all input) unless told.
 */
export function saturationFor(api: ApiKind | undefined, given: SaturationOptions | undefined): SaturationOptions {
  const metric =
    given?.metric ?? (api !== undefined && takesInputs(api) ? 'totalTokensPerSec' : DEFAULT_SATURATION_METRIC)
  return { ...given, metric }
}

/**
 * The saturation point of a curve: the first point, in increasing swept value, beyond which no
 * point's throughput exceeds its own by more than `minGain` (a share). Comparing with every later
 * point rather than the next one keeps one noisy dip from passing for the knee. The knee is the
 * last point, with `saturated: false`, when throughput was still rising there. Undefined without
 * points.
 */
export function findSaturation(
  curve: ReadonlyArray<{ value: number } & Record<SweepThroughputMetric, number>>,
  options: SaturationOptions = {},
): SaturationPoint | undefined {
  const metric = options.metric ?? DEFAULT_SATURATION_METRIC
  const minGain = options.minGain ?? DEFAULT_SATURATION_MIN_GAIN
  const sorted = [...curve].sort((a, b) => a.value - b.value)
  if (sorted.length === 0) return undefined
  let peak = sorted[0] as (typeof sorted)[number]
  for (const point of sorted) if (point[metric] > peak[metric]) peak = point
  // Scanning from the end keeps the best later throughput at hand: O(n).
  let bestLater = -Infinity
  let knee = sorted[sorted.length - 1] as (typeof sorted)[number]
  let kneeIndex = sorted.length - 1
  for (let i = sorted.length - 1; i >= 0; i--) {
    const point = sorted[i] as (typeof sorted)[number]
    if (bestLater <= point[metric] * (1 + minGain)) {
      knee = point
      kneeIndex = i
    }
    bestLater = Math.max(bestLater, point[metric])
  }
  return {
    value: knee.value,
    throughput: knee[metric],
    metric,
    minGain,
    saturated: kneeIndex < sorted.length - 1,
    peak: { value: peak.value, throughput: peak[metric] },
  }
}
