import type { BenchmarkResult } from '../core/contract/result.ts'
import { canonicalConfig, type RunPlan } from '../core/plan/index.ts'
import { mergeTrials } from '../core/trials/index.ts'

/**
 * A bench's raw options as one slice of its load ran them, so that the result's config says what ran: the
 * slice's own seed and share of the requests or duration (arms together cut each arm's load into slices).
 */
export function sliceOptions<O extends { seed?: number; load?: object }>(options: O, slice: RunPlan): O {
  const { requests, durationMs } = slice.load
  const length = {
    ...(requests !== undefined ? { requests } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
  }
  return { ...options, seed: slice.seed, ...(options.load ? { load: { ...options.load, ...length } } : {}) }
}

/**
 * An arm's slices of one pair merged, with the config of its whole load (the options' own seed and length) rather
 * than its first slice's: what the pair measured is the bench as written (a stored baseline's identity matches it).
 */
export function mergeSlices<O extends { seed?: number; workload?: unknown; load?: unknown }>(
  slices: readonly BenchmarkResult[],
  options: O,
): BenchmarkResult {
  const merged = mergeTrials(slices)
  const { load } = canonicalConfig({ workload: options.workload, load: options.load } as Parameters<
    typeof canonicalConfig
  >[0])
  const { seed: _seed, ...config } = merged.config as typeof merged.config & { seed?: number }
  return { ...merged, config: { ...config, ...(options.seed !== undefined ? { seed: options.seed } : {}), load } }
}
