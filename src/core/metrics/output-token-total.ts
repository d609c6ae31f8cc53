import type { MetricSummary } from '../contract/result.ts'

/** All output tokens of a result's completed requests, from their distribution (mean × count, rounded): for readers of a result (the accumulator that made it returns the exact sum, `outputTokensTotal`). */
export function outputTokenTotal(outputTokens: Pick<MetricSummary, 'mean' | 'count'>): number {
  return Math.round(outputTokens.mean * outputTokens.count)
}
