import type { DiscreteDistribution } from './quantile-bootstrap.ts'

/** P(U / V <= r) for independent U, V (positive values, ascending), in O(|U| + |V|). */
function ratioCdf(numerator: DiscreteDistribution, denominator: DiscreteDistribution, r: number): number {
  const u = numerator.values
  const pu = numerator.probabilities
  let i = 0
  let below = 0
  let total = 0
  // r * v grows with v, so the share of U at or below it only grows: one pass with two pointers.
  for (let j = 0; j < denominator.values.length; j++) {
    const limit = r * (denominator.values[j] ?? 0)
    while (i < u.length && (u[i] ?? 0) <= limit) below += pu[i++] ?? 0
    total += (denominator.probabilities[j] ?? 0) * below
  }
  return total
}

/** Smallest atom r of U / V with P(U / V <= r) >= target, by bisection in log space. */
function ratioQuantile(
  numerator: DiscreteDistribution,
  denominator: DiscreteDistribution,
  target: number,
  mass: number,
): number {
  const u = numerator.values
  const v = denominator.values
  let low = Math.log((u[0] ?? 0) / (v[v.length - 1] ?? 1)) - 1e-9
  let high = Math.log((u[u.length - 1] ?? 0) / (v[0] ?? 1)) + 1e-9
  // Invariant: CDF(e^low) < target <= CDF(e^high); 200 halvings reach the atom to double precision.
  for (let step = 0; step < 200 && high - low > 1e-13; step++) {
    const mid = (low + high) / 2
    if (ratioCdf(numerator, denominator, Math.exp(mid)) / mass < target) low = mid
    else high = mid
  }
  return Math.exp(high)
}

/**
 * The central `confidence` interval of U / V for independent discrete U (numerator) and V
 * (denominator) with positive values: the alpha/2 and 1 - alpha/2 quantiles of the ratio, computed
 * exactly (no resampling). Masses need not sum to exactly 1 (negligible tails may be trimmed).
 */
export function ratioInterval(
  numerator: DiscreteDistribution,
  denominator: DiscreteDistribution,
  confidence: number,
): { low: number; high: number } {
  const mass = ratioCdf(numerator, denominator, Number.POSITIVE_INFINITY)
  const tail = (1 - confidence) / 2
  return {
    low: ratioQuantile(numerator, denominator, tail, mass),
    high: ratioQuantile(numerator, denominator, 1 - tail, mass),
  }
}
