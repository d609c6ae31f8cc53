/**
 * `bench.llm.compare`: the same load on two or more servers, measured side by side in one job. A
 * stored baseline cannot tell a change from the machine drifting since it was recorded; arms
 * measured in counterbalanced pairs can, because a drift or a disturbance that hits both arms of
 * a pair cancels in their ratio (docs/verdicts.md, "Side by side").
 */
import { dirname } from 'node:path'
import { baselineEntryFrom, compare, softwareChanges } from '../core/baseline/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { formatFigure } from '../core/platform/format-figure.ts'
import { checkTarget } from '../core/plan/index.ts'
import { runPlan, type RunContext } from '../core/run.ts'
import {
  counterbalancedOrder,
  judgePairedGate,
  nextPair,
  lookConfidence,
  type PairedCheck,
  type PairRatio,
} from '../core/verdict/index.ts'
import { DEFAULT_MAX_ERROR_RATE } from '../core/slo/index.ts'
import { acquireTarget } from './bench-target.ts'
import type { BenchCompareOptions, CompareArm, ComparePlan } from './compare-bench-options.ts'

/** One trial of one arm. */
export interface CompareTrial {
  /** The arm's label. */
  label: string
  /** Pair number, from 1. */
  pair: number
  /** Position in the job, from 1. */
  position: number
  /** What the trial measured (per-request records left out unless `recordRequests`). */
  result: BenchmarkResult
}

/** A variant against the control. */
export interface CompareVariantVerdict {
  label: string
  status: 'pass' | 'fail' | 'inconclusive'
  /** One per gate; `baseline`/`current` style figures are the geometric means of the kept pairs' control and variant figures. */
  checks: (PairedCheck & { control: number; variant: number })[]
  /** Pairs left out of this variant's verdict, and why (one arm of the pair measured on a disturbed machine). */
  voided: string[]
  /** Pairs kept although both arms were disturbed: the disturbance hit both, and cancels in their ratio. */
  bothDisturbed: number
  /** What differs in the software under test from the control (`llama.cpp args: added -ub 1`, `vllm 0.10.1 -> 0.11.0`); empty when nothing does. */
  changed: string[]
}

/** What a comparison measured and decided. */
export interface CompareResult {
  control: string
  /** The order of each pair, e.g. `[['default', 'ub 1'], ['ub 1', 'default'], …]`. */
  order: string[][]
  trials: CompareTrial[]
  variants: CompareVariantVerdict[]
  /** Why no further pair was measured. */
  stopped: string
  /** Confidence the sequence keeps over all its looks (the policy's, e.g. 0.95). */
  confidence: number
  /**
   * Confidence of the intervals the verdicts were judged at: the last look's, set so that the whole
   * sequence of looks keeps the policy's confidence (see `lookConfidence`), e.g. 0.9759 after 6 of 3-6 pairs.
   */
  lastLookConfidence: number
  durationMs: number
}

/** One comparison to run. */
export interface CompareBenchRun {
  name: string
  /** Absolute path of the bench file (workload paths are relative to it). */
  file: string
  options: BenchCompareOptions
  plan: ComparePlan
  signal?: AbortSignal
  /** The test runner's shared server, for a variant that names none. */
  shared?: { url?: string; server?: RunContext['server'] }
  /** Progress lines ("pair 2 of at least 3: 'ub 1' …"). */
  log?: (line: string) => void
}

/** Runs the pairs, judges every variant against the control, and says whether the bench fails. */
export async function runCompareBench(
  run: CompareBenchRun,
): Promise<{ result: CompareResult; failure: string | undefined; notes: string[] }> {
  const { plan } = run
  const started = performance.now()
  const labels = plan.arms.map((arm) => arm.label)
  const trials: CompareTrial[] = []
  const order: string[][] = []
  const levelAt: GateConfidence = (pairs) => lookConfidence(plan.policy.confidence, plan.limits, pairs)
  let longestPairMs = 0
  let variants: CompareVariantVerdict[] = []
  let stopped = ''
  for (let pair = 0; ; pair++) {
    const pairStarted = performance.now()
    const arms = counterbalancedOrder(plan.arms, pair)
    order.push(arms.map((arm) => arm.label))
    const results = new Map<string, BenchmarkResult>()
    for (const arm of arms) {
      run.log?.(`${run.name}: pair ${pair + 1}, ${arm.label} (trial ${trials.length + 1})`)
      const result = await measureArm(run, arm)
      trials.push({
        label: arm.label,
        pair: pair + 1,
        position: trials.length + 1,
        result: run.options.recordRequests ? result : { ...result, requests: undefined },
      })
      results.set(arm.label, result)
      const fault = faultOf(arm.label, result)
      if (fault !== undefined) {
        const partial: CompareResult = {
          control: plan.control,
          order,
          trials,
          variants,
          stopped: fault,
          confidence: plan.policy.confidence,
          lastLookConfidence: levelAt(order.length),
          durationMs: performance.now() - started,
        }
        return { result: partial, failure: `${run.name}: ${fault}`, notes: [] }
      }
      if (run.signal?.aborted) throw run.signal.reason
    }
    longestPairMs = Math.max(longestPairMs, performance.now() - pairStarted)
    variants = labels
      .filter((label) => label !== plan.control)
      .map((label) => judgeVariant(label, plan, trials, levelAt))
    const next = nextPair(
      // A variant that failed or passed is decided: only an undecided one is worth another pair.
      variants.filter((variant) => variant.status === 'inconclusive').flatMap((variant) => variant.checks),
      { pairs: pair + 1, elapsedMs: performance.now() - started, longestPairMs },
      plan.limits,
    )
    stopped = next.why
    if (!next.another) break
  }
  const result: CompareResult = {
    control: plan.control,
    order,
    trials,
    variants,
    stopped,
    confidence: plan.policy.confidence,
    lastLookConfidence: levelAt(order.length),
    durationMs: performance.now() - started,
  }
  const notes: string[] = []
  const failures: string[] = []
  for (const variant of variants) {
    for (const line of variant.voided) notes.push(`${run.name}: ${variant.label}: ${line}`)
    for (const check of variant.checks) {
      const what = `${variant.label} vs ${plan.control}: ${variant.changed.length > 0 ? `${variant.changed.join('; ')}: ` : ''}${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`} ${check.ratio.toFixed(3)}x ${interval(check)}`
      const limit = `${check.tolerance >= 0 ? '+' : ''}${Math.round(check.tolerance * 100)} %`
      if (check.status === 'fail')
        failures.push(`${what}, beyond ${limit} on every pair together (${check.pairs} pairs)`)
      else if (check.status === 'inconclusive' && plan.onInconclusive !== 'pass') {
        const more =
          check.pairsToDecide !== undefined ? `; about ${check.pairsToDecide} pairs would decide at this noise` : ''
        const line = `${what} undecided against ${limit}: ${check.reason ?? ''}${more}`
        if (plan.onInconclusive === 'fail') failures.push(line)
        else notes.push(`inconclusive: ${run.name}: ${line}`)
      }
    }
  }
  const table = formatCompareTable(result)
  if (failures.length === 0) return { result, failure: undefined, notes: [table, ...notes] }
  return {
    result,
    failure: [
      `${run.name}: side by side, ${order.length} pairs (${stopped})`,
      ...failures.map((line) => `  - ${line}`),
      '',
      table,
    ].join('\n'),
    notes,
  }
}

/** One trial of one arm on a freshly started server (a launched one is stopped before the next arm starts). */
async function measureArm(run: CompareBenchRun, arm: CompareArm): Promise<BenchmarkResult> {
  const {
    target,
    variants: _variants,
    control: _control,
    baseline: _baseline,
    pairs: _pairs,
    budgetMs: _budget,
    onInconclusive: _on,
    timeoutMs: _timeout,
    ...rest
  } = run.options
  const acquired = await acquireTarget(arm.server, target, run.shared, { fresh: true })
  try {
    const result = await runPlan(
      {
        target: checkTarget(acquired.target),
        run: arm.plan.run,
        options: { ...rest, target: acquired.target, ...(run.signal ? { signal: run.signal } : {}) },
      },
      { ...acquired.context, baseDir: dirname(run.file) },
    )
    const ended = acquired.serverEnded()
    if (ended) {
      const tail =
        ended.logTail.length > 0
          ? `\nLast lines of its log${ended.logPath ? ` (${ended.logPath})` : ''}:\n${ended.logTail.map((line) => `  ${line}`).join('\n')}`
          : ''
      throw new Error(`${arm.label}: ${ended.name} ${ended.how} during its trial; nothing is judged.${tail}`)
    }
    return result
  } finally {
    await acquired.release()
  }
}

/** A trial that cannot be part of a comparison: its server was failing (a busy machine does not excuse errors here). */
export function faultOf(label: string, result: BenchmarkResult): string | undefined {
  const { failed, total, completed } = result.counts
  if (completed === 0) {
    const top = result.errors[0]
    return `${label}: no request completed${top ? ` (${top.count} x ${top.kind}: ${top.message})` : ''}. Check that the server starts and serves the model.`
  }
  if (total > 0 && failed / total > DEFAULT_MAX_ERROR_RATE) {
    const top = result.errors[0]
    return `${label}: ${failed} of ${total} requests failed, above the ${DEFAULT_MAX_ERROR_RATE * 100} % a compared trial may lose${top ? ` (most often ${top.count} x ${top.kind}: ${top.message})` : ''}; nothing is judged.`
  }
  return undefined
}

const disturbedOf = (result: BenchmarkResult): string[] => result.client.selfCheck?.disturbed ?? []

/**
 * The confidence of a gate's interval from the pairs the gate uses (`lookConfidence` of a sequence): a gate
 * that left pairs out (one arm disturbed) is judged at the level of the pairs it has, not of the pairs measured.
 */
export type GateConfidence = (pairs: number) => number

/** One variant against the control on every pair measured so far (a pair only one arm of which was measured disturbed is left out, named). */
export function judgeVariant(
  label: string,
  plan: Pick<ComparePlan, 'control' | 'policy'>,
  trials: readonly CompareTrial[],
  confidence: GateConfidence,
): CompareVariantVerdict {
  const voided: string[] = []
  let bothDisturbed = 0
  let changed: string[] | undefined
  const perGate = new Map<
    string,
    {
      ratios: PairRatio[]
      control: number[]
      variant: number[]
      busy: number
      busyControl: number[]
      busyVariant: number[]
      gate: { metric: string; statistic: string; unit: string; tolerance: number }
    }
  >()
  const pairs = Math.max(0, ...trials.map((trial) => trial.pair))
  for (let pair = 1; pair <= pairs; pair++) {
    const control = trials.find((trial) => trial.pair === pair && trial.label === plan.control)?.result
    const variant = trials.find((trial) => trial.pair === pair && trial.label === label)?.result
    if (!control || !variant) continue
    changed ??= softwareChanges(control, variant)
    const [c, v] = [disturbedOf(control), disturbedOf(variant)]
    if (c.length > 0 !== v.length > 0) {
      const [who, why] = c.length > 0 ? [plan.control, c] : [label, v]
      voided.push(`pair ${pair} left out: only ${who} was measured on a disturbed machine (${why.join('; ')})`)
      continue
    }
    if (c.length > 0) bothDisturbed++
    // The ratio of each gate and its within-run interval, from the verdict machinery a stored baseline uses.
    const verdict = compare(baselineEntryFrom(control), variant, plan.policy)
    for (const check of verdict.checks) {
      const key = `${check.metric}:${check.statistic}`
      const entry = perGate.get(key) ?? {
        ratios: [],
        control: [],
        variant: [],
        busy: 0,
        busyControl: [],
        busyVariant: [],
        gate: { metric: check.metric, statistic: check.statistic, unit: check.unit, tolerance: check.tolerance },
      }
      // A run-level figure (tokens over the run's duration) carries every stall a busy machine adds, and those differ from
      // trial to trial: they do not cancel in a pair as a shift of a percentile does (docs/verdicts.md, "Disturbances").
      if (check.ratio !== null && check.ratio > 0) {
        // The figures shown beside the ratio are those of the pairs it is taken over.
        if (c.length > 0 && check.statistic === 'value') {
          entry.busy++
          entry.busyControl.push(check.baseline)
          entry.busyVariant.push(check.current)
        } else {
          entry.ratios.push({ ratio: check.ratio, ciLow: check.ciLow, ciHigh: check.ciHigh, pair })
          entry.control.push(check.baseline)
          entry.variant.push(check.current)
        }
      }
      perGate.set(key, entry)
    }
  }
  const geo = (values: number[]): number =>
    values.length === 0 ? Number.NaN : Math.exp(values.reduce((sum, x) => sum + Math.log(x), 0) / values.length)
  const checks = [...perGate.values()].map(({ gate, ratios, control, variant, busy, busyControl, busyVariant }) => {
    // Every pair left out (all busy): the figures of those pairs, shown for what they are.
    const shown = control.length > 0 ? { control, variant } : { control: busyControl, variant: busyVariant }
    const check: PairedCheck & { control: number; variant: number } = {
      ...judgePairedGate(gate, ratios, confidence(ratios.length)),
      control: geo(shown.control),
      variant: geo(shown.variant),
    }
    if (ratios.length === 0 && shown.control.length > 0) check.ratio = check.variant / check.control
    if (busy > 0) {
      const why = `${busy} pair${busy === 1 ? '' : 's'} with both arms disturbed left out of this run-level figure (a busy machine's stalls differ from trial to trial)`
      check.reason = [check.reason, why].filter(Boolean).join('; ')
    }
    return check
  })
  const status = checks.some((check) => check.status === 'fail')
    ? 'fail'
    : checks.some((check) => check.status === 'inconclusive') || checks.length === 0
      ? 'inconclusive'
      : 'pass'
  return { label, status, checks, voided, bothDisturbed, changed: changed ?? [] }
}

const interval = (check: PairedCheck): string =>
  check.ciLow === null || check.ciHigh === null
    ? '[no interval]'
    : `[${check.ciLow.toFixed(3)}, ${check.ciHigh.toFixed(3)}]`

/** The table of every variant's gates: control and variant figures, ratio, interval and verdict, one screen. */
export function formatCompareTable(result: CompareResult): string {
  const rows = [['variant', 'gate', result.control, 'variant', 'ratio', 'interval', 'pairs', 'verdict']]
  for (const variant of result.variants) {
    for (const check of variant.checks) {
      const unit = check.unit === 'ms' ? ' ms' : ` ${check.unit}`
      rows.push([
        variant.label,
        `${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`} (${check.tolerance >= 0 ? '+' : ''}${Math.round(check.tolerance * 100)} %)`,
        `${formatFigure(check.control)}${unit}`,
        `${formatFigure(check.variant)}${unit}`,
        check.ratio.toFixed(3),
        interval(check),
        String(check.pairs),
        check.status,
      ])
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? []
  const lines = rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  )
  const orders = result.order.map((pair) => pair.join(' ')).join(' | ')
  const head = `side by side: ${result.order.length} pairs in ${(result.durationMs / 1000).toFixed(1)} s (${result.stopped}); order ${orders}; intervals at ${(result.lastLookConfidence * 100).toFixed(2)} % (this look's level, so that all looks keep ${(result.confidence * 100).toFixed(0)} %)`
  const changes = result.variants
    .filter((variant) => variant.changed.length > 0)
    .map((variant) => `${variant.label} against ${result.control}: ${variant.changed.join('; ')}`)
  // Kept pairs a busy machine hit on both arms are said, so a verdict on them never hides the disturbance.
  const busy = result.variants
    .filter((variant) => variant.bothDisturbed > 0)
    .map(
      (variant) =>
        `${variant.label} against ${result.control}: ${variant.bothDisturbed} pair${variant.bothDisturbed === 1 ? '' : 's'} kept although both arms were measured on a disturbed machine (it cancels in their ratio)`,
    )
  return [head, ...changes, ...busy, ...lines].join('\n')
}
