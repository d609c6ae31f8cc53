import { parseRegressionPolicy, type ParsedRegressionPolicy, type RegressionPolicy } from './regression-policy.ts'

/** Policies parsed by {@link asParsedPolicy}: handed on, they are not parsed again. */
const parsedPolicies = new WeakSet<ParsedRegressionPolicy>()

/** The policy parsed: as given when it was parsed here before (a bench parses its policy once), else parsed now. */
export function asParsedPolicy(policy: RegressionPolicy | ParsedRegressionPolicy, optionPath: string = 'baseline'): ParsedRegressionPolicy {
  if (parsedPolicies.has(policy as ParsedRegressionPolicy)) return policy as ParsedRegressionPolicy
  const parsed = parseRegressionPolicy(policy as RegressionPolicy, optionPath)
  parsedPolicies.add(parsed)
  return parsed
}
