import { baselineConfigOf, baselineEntryFrom, baselineMismatchOf, softwareChanges } from '../core/baseline/index.ts'
import { compare, asParsedPolicy, defaultRegressionPolicy } from '../core/verdict/index.ts'
import type { BaselineEntry } from '../core/baseline/index.ts'
import type { RegressionPolicy, Verdict } from '../core/verdict/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { canonicalConfig } from '../core/plan/index.ts'
import { failureRuling, RUN_MAY_LOSE } from '../core/slo/index.ts'

/** One bench of a saved run, as a JSON report holds it. */
export interface SavedBench {
  /** The bench's full name (its baseline key). */
  name: string
  result: BenchmarkResult
  /** The verdict the run gave it against its stored baseline, if any: its checks are the bench's own gates. */
  verdict?: Verdict
}

/** What {@link diffRuns} found for one bench. */
export type BenchDiff =
  /** Compared: `verdict.status` is pass, fail or inconclusive; `gates`: the bench's own (as its second run judged it) or the default. */
  | { name: string; state: 'compared'; verdict: Verdict; gates: 'own' | 'default'; changed: string[] }
  /**
   * Not compared: the machine, or the workload and load, differ (`reasons`), a side has nothing measured, the first
   * run lost more requests than a baseline may, or the second did on a disturbed machine (timeouts only: excused).
   */
  | { name: string; state: 'not comparable'; reasons: string[]; changed: string[] }
  /** Not compared, and failed: the second run lost more requests than a run may and still be judged (`reasons`). */
  | { name: string; state: 'failed'; reasons: string[]; changed: string[] }
  /** In the second run only. */
  | { name: string; state: 'new' }
  /** In the first run only. */
  | { name: string; state: 'gone' }

/** The gates a verdict checked, as a policy: a bench's own gates, read back from what its run judged. */
export function policyOfVerdict(verdict: Verdict): RegressionPolicy {
  const policy: Record<string, unknown> = { confidence: verdict.confidence }
  for (const check of verdict.checks) {
    if (check.statistic === 'value') policy[check.metric] = Math.abs(check.tolerance)
    else policy[check.metric] = { ...(policy[check.metric] as object | undefined), [check.statistic]: check.tolerance }
  }
  // How far the machine moved between sessions where that run knew it (its stored sessions, or its bench's assumed
  // spread): the widest of its gates', as a log sd. Unknown: the policy's default.
  const spreads = verdict.checks.flatMap((check) => (check.sessions ? [Math.log1p(check.sessions.spread)] : []))
  if (spreads.length > 0) policy.assumedSessionSpread = Math.max(...spreads)
  return policy as RegressionPolicy
}

/** The entry a saved result would have been recorded as, keyed by the config with every default written out. */
function entryOf(result: BenchmarkResult): BaselineEntry {
  return baselineEntryFrom(result, {
    config: { ...canonicalConfig(baselineConfigOf(result.config)) },
    recordedAt: result.startedAt,
  })
}

/** What decides where two saved runs cannot: both measured side by side. */
export const DIFF_ADVICE =
  'measure both side by side instead: `npx vitest-llm-bench ab --base <ref>` for two revisions, `bench.llm.compare` for two servers'

/**
 * Two saved runs judged as a baseline and a run are (`before` as the baseline): each bench of both
 * with the same verdict machinery as `vitest bench` (intervals, pass / fail / inconclusive), with
 * the bench's own gates where the second run judged it against a baseline, else the default gates;
 * not compared when the machine or the workload and load differ; what changed in the software
 * under test named either way.
 */
export function diffRuns(
  before: readonly SavedBench[],
  after: readonly SavedBench[],
  policy?: RegressionPolicy,
): BenchDiff[] {
  const earlier = new Map(before.map((bench) => [bench.name, bench]))
  const diffs: BenchDiff[] = []
  for (const bench of after) {
    const base = earlier.get(bench.name)
    if (base === undefined) {
      diffs.push({ name: bench.name, state: 'new' })
      continue
    }
    earlier.delete(bench.name)
    const changed = softwareChanges(base.result, bench.result)
    const empty = [base, bench].filter((side) => side.result.counts.completed === 0)
    if (empty.length > 0) {
      diffs.push({
        name: bench.name,
        state: 'not comparable',
        reasons: [
          `${empty.length === 2 ? 'neither run' : empty[0] === base ? 'the first run' : 'the second run'} completed a request`,
        ],
        changed,
      })
      continue
    }
    // The failure rule of `vitest bench`: a run that lost more requests than it allows is failed, never judged.
    const lost = failureRuling(bench.result, RUN_MAY_LOSE)
    if (lost?.status === 'fail') {
      diffs.push({ name: bench.name, state: 'failed', reasons: [`the second run: ${lost.text}`], changed })
      continue
    }
    const lostBefore = failureRuling(base.result, 'a baseline may lose')
    if (lost !== undefined || lostBefore !== undefined) {
      const reasons = [
        ...(lostBefore ? [`the first run: ${lostBefore.text}`] : []),
        ...(lost ? [`the second run: ${lost.text}; not failed either: the machine was disturbed`] : []),
      ]
      diffs.push({ name: bench.name, state: 'not comparable', reasons, changed })
      continue
    }
    const [was, is] = [entryOf(base.result), entryOf(bench.result)]
    const mismatch = baselineMismatchOf(bench.name, 'the first run', was, is)
    if (mismatch) {
      const reasons = [
        ...(mismatch.environmentChanges.length > 0
          ? [`environment changed: ${mismatch.environmentChanges.join('; ')}`]
          : []),
        ...(mismatch.configChanges.length > 0
          ? [`workload or load changed: ${mismatch.configChanges.join('; ')}`]
          : []),
      ]
      diffs.push({ name: bench.name, state: 'not comparable', reasons, changed })
      continue
    }
    const gates =
      policy ??
      (bench.verdict && bench.verdict.checks.length > 0
        ? policyOfVerdict(bench.verdict)
        : defaultRegressionPolicy(bench.result.config.target))
    // Two runs are two sessions: the interval allows for how far the machine moves between them, as `vitest bench`
    // allows against a stored baseline (judged on their own intervals, 16 of 60 diffs of unchanged llama-server runs
    // failed: perf/llama-run-vs-bench.ts, docs/run.md).
    const verdict = compare(was, bench.result, asParsedPolicy(gates), { stored: true, sessionAdvice: DIFF_ADVICE })
    // Named from the launches too (args, env), not only the fingerprint.
    if (changed.length > 0) verdict.changed = changed
    else delete verdict.changed
    diffs.push({
      name: bench.name,
      state: 'compared',
      verdict,
      gates: policy === undefined && bench.verdict && bench.verdict.checks.length > 0 ? 'own' : 'default',
      changed,
    })
  }
  for (const name of earlier.keys()) diffs.push({ name, state: 'gone' })
  return diffs
}
