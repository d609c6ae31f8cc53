import type { MetricSummary } from '../contract/types.ts'

/** All output tokens of the measured requests, from their per-request distribution (mean × count, rounded). */
export function outputTokenTotal(outputTokens: Pick<MetricSummary, 'mean' | 'count'>): number {
  return Math.round(outputTokens.mean * outputTokens.count)
}
