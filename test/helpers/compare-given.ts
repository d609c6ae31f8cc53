import { type BaselineEntry } from '../../src/core/baseline/index.ts'
import {
  compare as compareParsed,
  parseRegressionPolicy,
  type RegressionPolicy,
  type Verdict,
} from '../../src/core/verdict/index.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'

/**
 * The verdict on a policy as a bench writes it: parsed first, as a bench's plan parses it once
 * (the verdict takes only a parsed policy). For tests that state their gates inline.
 */
export function compare(
  baseline: BaselineEntry,
  result: BenchmarkResult,
  policy: RegressionPolicy,
  options?: Parameters<typeof compareParsed>[3],
): Verdict {
  return compareParsed(baseline, result, parseRegressionPolicy(policy), options)
}
