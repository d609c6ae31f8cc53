import { OptionsError } from '../contract/errors.ts'
import {
  brandParsedPolicy,
  DEFAULT_ASSUMED_SESSION_SPREAD,
  isParsedPolicy,
  parseRegressionPolicy,
  type ParsedRegressionPolicy,
  type RegressionPolicy,
} from './regression-policy.ts'

/** The policy parsed: as given when it is parsed already (its brand), else parsed now. */
export function asParsedPolicy(
  policy: RegressionPolicy | ParsedRegressionPolicy,
  optionPath: string = 'baseline',
): ParsedRegressionPolicy {
  if (isParsedPolicy(policy)) return policy
  return parseRegressionPolicy(policy, optionPath)
}

/**
 * A {@link ParsedRegressionPolicy} read back from JSON (a segment file): its shape checked, then
 * known as parsed, so that it is not parsed again as a policy written by hand.
 * @throws {OptionsError} when `value` is not a parsed policy.
 */
export function restoreParsedPolicy(value: unknown, source: string): ParsedRegressionPolicy {
  const policy = value as Partial<ParsedRegressionPolicy> | null
  const numbers =
    policy !== null &&
    typeof policy === 'object' &&
    [policy.confidence, policy.assumedThroughputNoise, policy.throughputNoiseFloor].every(
      (n) => typeof n === 'number' && Number.isFinite(n),
    )
  if (!numbers || !Array.isArray(policy.latency) || !Array.isArray(policy.throughput)) {
    throw new OptionsError(
      'policy',
      `in ${source} is not a regression policy written by vitest-llm-bench`,
      'Merge segment files written by the same version of vitest-llm-bench.',
    )
  }
  // Written by a version before sessions: the default assumed between-session spread.
  const restored = { assumedSessionSpread: DEFAULT_ASSUMED_SESSION_SPREAD, ...policy }
  return isParsedPolicy(policy) ? policy : brandParsedPolicy(restored as Omit<ParsedRegressionPolicy, symbol>)
}
