import { OptionsError } from '../contract/errors.ts'
import { parseRegressionPolicy, type ParsedRegressionPolicy, type RegressionPolicy } from './regression-policy.ts'

/** Policies parsed by {@link asParsedPolicy}: handed on, they are not parsed again. */
const parsedPolicies = new WeakSet<ParsedRegressionPolicy>()

/** The policy parsed: as given when it was parsed here before (a bench parses its policy once), else parsed now. */
export function asParsedPolicy(
  policy: RegressionPolicy | ParsedRegressionPolicy,
  optionPath: string = 'baseline',
): ParsedRegressionPolicy {
  if (parsedPolicies.has(policy as ParsedRegressionPolicy)) return policy as ParsedRegressionPolicy
  const parsed = parseRegressionPolicy(policy as RegressionPolicy, optionPath)
  parsedPolicies.add(parsed)
  return parsed
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
  const parsed = policy as ParsedRegressionPolicy
  parsedPolicies.add(parsed)
  return parsed
}
