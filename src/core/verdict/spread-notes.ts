import { formatSpread } from '../platform/format-figure.ts'
import type { BaselineEntry } from '../baseline/baseline-entry.ts'
import type { ParsedRegressionPolicy } from './regression-policy.ts'
import { figuresOf, pooledSpread, supportedTolerance } from './trial-interval.ts'
import type { TrialFigure } from './trial-interval.ts'

/** A supported tolerance above this share of the gate's tolerance is called marginal. */
const MARGINAL = 0.8

const pct = (fraction: number): string => `${Number((fraction * 100).toPrecision(2))}%`

/**
 * What a freshly recorded entry's trials say about its gates: one line with each gated figure's
 * between-trial spread, and for every gate whose tolerance this spread cannot support (an unchanged
 * run would not pass even after `maxTrials` trials) the tolerance the data can support.
 */
export function spreadNotes(entry: BaselineEntry, parsed: ParsedRegressionPolicy, maxTrials: number): string[] {
  const trials = entry.trials ?? []
  if (trials.length < 2) return []
  const gates: Array<{ figure: TrialFigure; label: string; tolerance: number }> = [
    ...parsed.latency.map((rule) => ({
      figure: rule,
      label: `${rule.metric} ${rule.statistic}`,
      tolerance: rule.tolerance,
    })),
    ...parsed.throughput.map((rule) => ({
      figure: { metric: rule.metric, statistic: 'value' as const },
      label: rule.metric,
      tolerance: rule.tolerance,
    })),
  ]
  const spreads: string[] = []
  const problems: string[] = []
  for (const gate of gates) {
    const values = figuresOf(trials, gate.figure)
    const spread = pooledSpread(values, [])
    if (spread === undefined) continue
    spreads.push(`${gate.label} ${formatSpread(Math.exp(spread.logStdDev) - 1)}`)
    // A throughput passes when its interval stays above 1 - tolerance: the same width, measured downwards.
    const downward = (up: number): number => (gate.figure.statistic === 'value' ? 1 - 1 / (1 + up) : up)
    const once = downward(supportedTolerance(spread, values.length, 1, parsed.confidence))
    const most = downward(supportedTolerance(spread, values.length, maxTrials, parsed.confidence))
    const sign = gate.figure.statistic === 'value' ? '-' : '+'
    const needs = `an unchanged run passes only with a tolerance of at least ${sign}${pct(once)} (1 trial) or ${sign}${pct(most)} (${maxTrials} trials)`
    if (most > gate.tolerance) {
      problems.push(
        `${gate.label}: the recorded trials spread ${formatSpread(Math.exp(spread.logStdDev) - 1)}, too much for ${sign}${pct(gate.tolerance)} to decide: ${needs}. ` +
          'Record more trials (`trials.record`), widen the tolerance, or gate a steadier figure.',
      )
    } else if (most > MARGINAL * gate.tolerance) {
      // A spread estimated from a few trials is itself uncertain: a tolerance this close to what it supports often stays undecided.
      problems.push(
        `${gate.label}: ${sign}${pct(gate.tolerance)} is close to what the recorded spread supports (${needs}): expect inconclusive verdicts; more recorded trials would tell.`,
      )
    }
  }
  if (spreads.length === 0) return []
  return [`between-trial spread over ${trials.length} recorded trials: ${spreads.join(', ')}`, ...problems]
}
