/**
 * `bench.llm.compare`: the same load on two or more servers, measured side by side in one job. A
 * stored baseline cannot tell a change from the machine drifting since it was recorded; arms
 * measured in counterbalanced pairs can, because a drift or a disturbance that hits both arms of
 * a pair cancels in their ratio (docs/verdicts.md, "Side by side").
 */
import { baselineEntryFrom, softwareChanges } from '../core/baseline/index.ts'
import { compare } from '../core/verdict/index.ts'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { duetOrder, pairsProfile, runCampaign, sliceRunPlan, type PairStep } from '../core/campaign/index.ts'
import { cpuTicksOf, PROC_TICKS_PER_SECOND, procStatFields } from '../core/platform/proc-stat.ts'
import type { RunPlan } from '../core/plan/index.ts'
import type { RunContext } from '../core/run.ts'
import { outOfMemoryBeside, ServerPool } from '../core/server/index.ts'
import { judgePairedGate, lookConfidence, type PairedCheck, type PairRatio } from '../core/verdict/index.ts'
import { failureRuling } from '../core/slo/index.ts'
import { acquireTarget, type AcquiredTarget } from './bench-target.ts'
import { failIfEnded, runLoadOn } from './load-on.ts'
import type { ArmsPlacement } from './arms-placement.ts'
import { mergeSlices } from './slice-options.ts'
import type { BenchCompareOptions, CompareArm, ComparePlan } from './compare-bench-options.ts'
import { formatCompareTable, intervalText as interval } from './compare-table.ts'

export { formatCompareTable }

/** One trial of one arm. */
export interface CompareTrial {
  /** The arm's label. */
  label: string
  /** Pair number, from 1. */
  pair: number
  /** Position in the job, from 1 (arms together: the arm's place in the pair's starting order). */
  position: number
  /** What the trial measured (per-request records left out unless `recordRequests`); arms together: its slices merged. */
  result: BenchmarkResult
  /** Arms together: each slice of the arm's load in this pair, in order (the pair's ratio is the mean of the slices' log-ratios). */
  slices?: BenchmarkResult[]
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

/** How the arms of the pairs shared the machine. */
export interface CompareArmsUsed extends ArmsPlacement {
  /** Arms together: slices of each arm's load per pair. */
  slices?: number
  /**
   * Arms together: the most CPU an idle arm's launched server used while another arm was loaded, as a
   * share of one core (0.02 = 2 %), over every slice; absent where no launched server's CPU can be read.
   */
  idleCpu?: number
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
  /** Together or apart, and why; absent in results of `ab` (its arms are apart). */
  arms?: CompareArmsUsed
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

/** The trials of one pair, and the fault that ends the comparison, if one arm's server was failing. */
interface MeasuredPair {
  trials: CompareTrial[]
  fault?: string
  /** Arms together: the most CPU an idle arm used while another was loaded, share of one core. */
  idleCpu?: number
}

/** Runs the pairs, judges every variant against the control, and says whether the bench fails. */
export async function runCompareBench(
  run: CompareBenchRun,
): Promise<{ result: CompareResult; failure: string | undefined; notes: string[] }> {
  const { plan } = run
  const labels = plan.arms.map((arm) => arm.label)
  const levelAt: GateConfidence = (pairs) => lookConfidence(plan.policy.confidence, plan.limits, pairs)
  const together = plan.placement.mode === 'together'
  run.log?.(`${run.name}: arms ${plan.placement.mode}: ${plan.placement.why}`)
  const measure = together ? measureTogether : measureApart
  const judge = (pairs: readonly MeasuredPair[]): CompareVariantVerdict[] => {
    const trials = pairs.flatMap((pair) => pair.trials)
    return labels.filter((label) => label !== plan.control).map((label) => judgeVariant(label, plan, trials, levelAt))
  }
  const campaign = await runCampaign({
    profile: pairsProfile<CompareArm, MeasuredPair, CompareVariantVerdict[]>(plan.arms, plan.limits, {
      // A variant that failed or passed is decided: only an undecided one is worth another pair.
      undecided: (variants) =>
        variants.filter((variant) => variant.status === 'inconclusive').flatMap((variant) => variant.checks),
      fault: (pair) => pair.fault,
    }),
    measure: (step) => measure(run, step),
    judge,
    ...(run.signal ? { signal: run.signal } : {}),
  })
  const pairs = campaign.measured
  const idle = pairs.flatMap((pair) => (pair.idleCpu === undefined ? [] : [pair.idleCpu]))
  const result: CompareResult = {
    control: plan.control,
    order: pairs.map((pair) => orderOf(pair.trials)),
    trials: pairs.flatMap((pair) => pair.trials),
    variants: campaign.judgement ?? [],
    stopped: campaign.stopped,
    confidence: plan.policy.confidence,
    lastLookConfidence: levelAt(pairs.length),
    durationMs: campaign.durationMs,
    arms: {
      ...plan.placement,
      ...(together ? { slices: plan.slices } : {}),
      ...(idle.length > 0 ? { idleCpu: Math.max(...idle) } : {}),
    },
  }
  const fault = pairs.at(-1)?.fault
  if (fault !== undefined) return { result, failure: `${run.name}: ${fault}`, notes: [] }
  const notes: string[] = []
  const failures: string[] = []
  for (const variant of result.variants) {
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
  // The table leads the notes, failed or not: a reporter prints it once, beside the failure's gates.
  const table = formatCompareTable(result)
  if (failures.length === 0) return { result, failure: undefined, notes: [table, ...notes] }
  return {
    result,
    failure: [
      `${run.name}: side by side, ${result.order.length} pairs (${result.stopped})`,
      ...failures.map((line) => `  - ${line}`),
    ].join('\n'),
    notes: [table, ...notes],
  }
}

/** The arms of a pair in the order they were measured (arms together: started and first loaded). */
const orderOf = (trials: readonly CompareTrial[]): string[] =>
  [...trials].sort((a, b) => a.position - b.position).map((trial) => trial.label)

/** A trial as the result keeps it: per-request records only with `recordRequests`. */
const kept = (run: CompareBenchRun, result: BenchmarkResult): BenchmarkResult =>
  run.options.recordRequests ? result : { ...result, requests: undefined }

/** Apart: every arm of the pair in turn, each on a freshly started server; the first fault ends the pair. */
async function measureApart(run: CompareBenchRun, step: PairStep<CompareArm>): Promise<MeasuredPair> {
  const trials: CompareTrial[] = []
  for (const arm of step.order) {
    run.log?.(`${run.name}: pair ${step.pair}, ${arm.label}`)
    const acquired = await acquireTarget(arm.server, run.options.target, run.shared, { fresh: true })
    let result: BenchmarkResult
    try {
      result = await measureOn(run, arm, acquired, arm.plan.run)
    } finally {
      await acquired.release()
    }
    trials.push({ label: arm.label, pair: step.pair, position: trials.length + 1, result: kept(run, result) })
    const fault = faultOf(arm.label, result)
    if (fault !== undefined) return { trials, fault }
    if (run.signal?.aborted) throw run.signal.reason
  }
  return { trials }
}

/** An arm kept up for a pair: its server and what it measured so far. */
interface ArmUp {
  arm: CompareArm
  acquired: AcquiredTarget
  slices: BenchmarkResult[]
}

/**
 * Together: every arm's server started in the pair's order (one after the other: two vLLM processes
 * starting at once on one GPU have run out of memory) and kept up, then the load in slices, one arm
 * loaded at a time in the duet order (A B B A A B B A), each arm's first slice carrying its warm-up.
 * The idle arms' CPU is read around every slice: an idle server that spins takes the loaded one's cores.
 */
async function measureTogether(run: CompareBenchRun, step: PairStep<CompareArm>): Promise<MeasuredPair> {
  const { plan } = run
  const up: ArmUp[] = []
  try {
    for (const arm of step.order) {
      run.log?.(`${run.name}: pair ${step.pair}, starting ${arm.label}`)
      try {
        // A pool of its own: an A/A comparison's two arms have one spec and must get two servers.
        const pool = new ServerPool({ idleTimeoutMs: 0 })
        up.push({
          arm,
          acquired: await acquireTarget(arm.server, run.options.target, run.shared, { pool }),
          slices: [],
        })
      } catch (error) {
        if (error instanceof Error && up.length > 0) {
          const beside = up.map((a) => a.arm.label).join(', ')
          const memory = outOfMemoryBeside(error.message, beside)
          error.message = `${arm.label} (arms together, beside ${beside}): ${error.message}${memory ? `\n${memory}` : ''}`
        }
        throw error
      }
    }
    let idleCpu: number | undefined
    const trialsSoFar = (): CompareTrial[] =>
      up
        .filter((a) => a.slices.length > 0)
        .map((a, index) => ({
          label: a.arm.label,
          pair: step.pair,
          position: index + 1,
          result: kept(run, mergeSlices(a.slices, run.options)),
          slices: a.slices.map((slice) => kept(run, slice)),
        }))
    for (const loaded of duetOrder(up, plan.slices)) {
      const idle = up.filter((a) => a !== loaded).map((a) => a.acquired.context.serverPgid)
      const before = idle.map(cpuSecondsOf)
      const sliceStarted = performance.now()
      const slice = sliceRunPlan(loaded.arm.plan.run, loaded.slices.length, plan.slices)
      const result = await measureOn(run, loaded.arm, loaded.acquired, slice)
      const seconds = (performance.now() - sliceStarted) / 1000
      idle.forEach((pid, i) => {
        const [was, now] = [before[i], cpuSecondsOf(pid)]
        if (was !== undefined && now !== undefined && seconds > 0)
          idleCpu = Math.max(idleCpu ?? 0, (now - was) / seconds)
      })
      for (const other of up)
        if (other !== loaded)
          failIfEnded(
            other.acquired,
            (ended) => `${other.arm.label}: ${ended} while idle beside ${loaded.arm.label}; nothing is judged.`,
          )
      loaded.slices.push(result)
      const fault = faultOf(loaded.arm.label, result)
      if (fault !== undefined) return { trials: trialsSoFar(), fault }
      if (run.signal?.aborted) throw run.signal.reason
    }
    return { trials: trialsSoFar(), ...(idleCpu !== undefined ? { idleCpu } : {}) }
  } finally {
    for (const a of [...up].reverse()) await a.acquired.release()
  }
}

/** CPU seconds a process has used so far (Linux `/proc`), undefined where it cannot be read. */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  const fields = pid === undefined ? undefined : procStatFields(pid)
  return fields === undefined ? undefined : cpuTicksOf(fields) / PROC_TICKS_PER_SECOND
}

/** One trial or slice of an arm's load on its server; a server that ended meanwhile fails the comparison, named. */
async function measureOn(
  run: CompareBenchRun,
  arm: CompareArm,
  acquired: AcquiredTarget,
  plan: RunPlan,
): Promise<BenchmarkResult> {
  // The result's config says what ran: a slice's own seed and share of the load.
  const result = await runLoadOn(run, acquired, plan, { asPlanned: true })
  failIfEnded(acquired, (ended) => `${arm.label}: ${ended} during its trial; nothing is judged.`)
  return result
}

/** A trial that cannot be part of a comparison: its server was failing (a busy machine does not excuse errors here). */
export function faultOf(label: string, result: BenchmarkResult): string | undefined {
  if (result.counts.completed === 0) {
    const top = result.errors[0]
    return `${label}: no request completed${top ? ` (${top.count} x ${top.kind}: ${top.message})` : ''}. Check that the server starts and serves the model.`
  }
  const ruling = failureRuling(result, 'a compared trial may lose', { excuseDisturbed: false })
  return ruling === undefined ? undefined : `${label}: ${ruling.text}; nothing is judged.`
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
    const controlTrial = trials.find((trial) => trial.pair === pair && trial.label === plan.control)
    const variantTrial = trials.find((trial) => trial.pair === pair && trial.label === label)
    if (!controlTrial || !variantTrial) continue
    const [control, variant] = [wholeOf(controlTrial), wholeOf(variantTrial)]
    const sliced = slicedRatios(controlTrial, variantTrial, plan.policy)
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
      // Arms together: the pair's figure is the mean of its slices' log-ratios (judgePairedGate takes it from them);
      // the interval of the slices merged (their whole samples) gives the within-run width.
      const sliceRatios = sliced?.get(key)
      if (check.ratio !== null && check.ratio > 0) {
        // The figures shown beside the ratio are those of the pairs it is taken over.
        if (c.length > 0 && check.statistic === 'value') {
          entry.busy++
          entry.busyControl.push(check.baseline)
          entry.busyVariant.push(check.current)
        } else {
          entry.ratios.push({
            ratio: check.ratio,
            ciLow: check.ciLow,
            ciHigh: check.ciHigh,
            pair,
            ...(sliceRatios ? { slices: sliceRatios } : {}),
          })
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
    if (voided.length + busy > 0) check.leftOut = voided.length + busy
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

/**
 * A trial as one run: arms together, its slices merged and not counted as trials, so that the pair's within-run
 * interval is its samples' alone, not the spread between its slices (which the slice ratios carry, paired).
 */
const wholeOf = (trial: CompareTrial): BenchmarkResult =>
  trial.slices === undefined ? trial.result : { ...trial.result, trials: undefined }

/**
 * Arms together: each gate's slice-pair ratios (slice k of the variant against slice k of the control, loaded
 * next to each other in time), whose geometric mean is the pair's ratio; undefined for trials measured apart,
 * and no entry for a gate some slice pair gives no ratio for.
 */
function slicedRatios(
  control: CompareTrial,
  variant: CompareTrial,
  policy: ComparePlan['policy'],
): Map<string, number[]> | undefined {
  const [cs, vs] = [control.slices, variant.slices]
  if (cs === undefined || vs === undefined || cs.length === 0 || cs.length !== vs.length) return undefined
  const ratios = new Map<string, number[]>()
  cs.forEach((slice, k) => {
    for (const check of compare(baselineEntryFrom(slice), vs[k] as BenchmarkResult, policy).checks) {
      const key = `${check.metric}:${check.statistic}`
      const list = ratios.get(key) ?? []
      if (check.ratio !== null && check.ratio > 0 && Number.isFinite(check.ratio)) list.push(check.ratio)
      ratios.set(key, list)
    }
  })
  for (const [key, list] of ratios) if (list.length !== cs.length) ratios.delete(key)
  return ratios
}
