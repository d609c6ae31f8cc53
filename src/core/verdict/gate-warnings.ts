import type { LoadOptions } from '../contract/options.ts'
import { minSamplesForQuantile } from './quantile-bootstrap.ts'
import type { ParsedRegressionPolicy } from './regression-policy.ts'

const QUANTILES: Record<string, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 }

/**
 * Gates of a bench that cannot decide by construction, one sentence each, known before anything
 * runs: a throughput gate on an open loop (the offered rate sets it, so it moves only when the
 * server cannot keep up) and a percentile gate on fewer requests than its interval needs.
 */
export function undecidableGates(parsed: ParsedRegressionPolicy, load: LoadOptions): string[] {
  const warnings: string[] = []
  const openLoop = load.rate !== undefined && load.rate !== Number.POSITIVE_INFINITY && load.concurrency === undefined
  if (openLoop) {
    for (const rule of parsed.throughput) {
      warnings.push(
        `${rule.metric} is gated on an open loop (rate ${load.rate}/s): the offered rate sets it, so it changes only once the server falls behind and the gate cannot decide. ` +
          'Gate TTFT, TPOT or goodput on this bench, and throughput on a closed loop (`concurrency`).',
      )
    }
  }
  if (load.requests !== undefined) {
    for (const rule of parsed.latency) {
      const quantile = QUANTILES[rule.statistic]
      if (quantile === undefined) continue
      const needed = minSamplesForQuantile(quantile, parsed.confidence)
      if (load.requests < needed) {
        warnings.push(
          `${rule.metric} ${rule.statistic} needs at least ${needed} requests for a verdict, and this bench sends ${load.requests}: raise load.requests or gate p50.`,
        )
      }
    }
  }
  return warnings
}
