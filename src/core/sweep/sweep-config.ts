import { baselineConfigOf } from '../baseline/index.ts'
import type { BenchmarkResult } from '../contract/result.ts'
import { canonicalConfig } from '../plan/index.ts'
import type { SweepPointLoad } from './sweep-options.ts'

/**
 * What a sweep measured, for its baseline's config hash: the workload, endpoint kind and model of
 * its runs (as `baselineConfigOf` picks them, file paths reduced to base names), the load shared
 * by every point, and `extra` (the swept values, the search limits, the scenario). Two sweeps
 * with different scenarios or limits therefore never share a baseline.
 */
export function sweepConfigOf(
  first: BenchmarkResult | undefined,
  load: SweepPointLoad,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const base: Record<string, unknown> = first ? { ...baselineConfigOf(first.config) } : {}
  return canonicalConfig({ ...base, load: { ...load }, ...extra }) as Record<string, unknown>
}
