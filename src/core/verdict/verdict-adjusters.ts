import type { ClientLateness } from '../contract/result.ts'
import { disturbancesText, STEAL_LIMIT } from '../contract/disturbances-text.ts'
import type { VerdictStatus } from './verdict.ts'

/**
 * Steal from this share up (and up to the disturbance limit, {@link STEAL_LIMIT}) still moves latency: a fail is
 * kept only beyond what that much steal can cost. On llama-server (-t 2, 2 vCPUs, 2026-12-01) quiet runs had
 * 0.02-0.23 % steal; unchanged code at 0.67-3.0 % steal failed 5 of 14 runs with TTFT p50 1.25-1.46x, its
 * intervals' lower bounds up to 23x the steal share above 1 (a server whose threads meet at a barrier waits for
 * the one the hypervisor took).
 */
export const STEAL_NOTICE = 0.005

/** The latency ratio that steal of share s can explain is 1 + this × s (about twice the worst seen). */
export const STEAL_SLOWDOWN_PER_SHARE = 40

/**
 * What the downgrade rules read of one judged run: fields of its result (`client.*`) and of the baseline it is
 * judged against. A sweep gives the fields of all its points (see `judgedSweepOf`).
 */
export interface JudgedRun {
  /** `client.keptUp`: false when the client, not the server, shaped the load. */
  keptUp: boolean
  /** Why the client fell behind (its first warning); absent when it kept up or said nothing. */
  keptUpWarning?: string
  /** `client.lateness`: how late the client read the responses, ms. */
  lateness?: ClientLateness
  /** `client.selfCheck.stealShare`: the hypervisor's share of the CPU while the run measured, 0..1. */
  stealShare?: number
  /**
   * What disturbed the machine while the run measured (`client.selfCheck.disturbed`), and a machine slower than
   * when the baseline was recorded; empty when nothing did.
   */
  disturbed: readonly string[]
  /** The baseline entry's `provisional`: what disturbed the machine when it was recorded; absent when quiet. */
  baselineProvisional?: readonly string[]
}

/**
 * A check as the downgrade rules read it: a bench verdict's `Check`, or a sweep's relative check (which has no
 * interval: the rules that read figures leave it alone).
 */
export interface AdjustableCheck {
  status: VerdictStatus
  /** Why it is inconclusive, or what it assumed. */
  reason?: string
  /** Unit of `baseline` and `current`; `ms` marks a latency. */
  unit?: string
  /** The statistic (`p50`, `p99`, `value`). */
  statistic?: string
  /** The baseline's figure, in `unit`. */
  baseline?: number
  /** This run's figure, in `unit`. */
  current?: number
  /** Confidence interval of the ratio current / baseline; `null` when there is none. */
  ciLow?: number | null
  ciHigh?: number | null
  /** Signed tolerance as a fraction of the baseline: >= 0 for a latency (the limit is 1 + tolerance). */
  tolerance?: number
}

/** What one rule does to a check: its new status, and the reason put before the check's own. */
export interface Downgrade {
  status: VerdictStatus
  reason: string
}

/** What one rule does to a run's checks: a note for the verdict, and a downgrade per check (undefined: left). */
export interface Adjustment {
  note?: string
  check: (check: AdjustableCheck) => Downgrade | undefined
}

/** One rule that turns a fail (or a pass) inconclusive; undefined when the run gives it nothing to do. */
export type VerdictAdjuster = (run: JudgedRun) => Adjustment | undefined

const capitalized = (text: string): string => `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`

/** A client that fell behind its schedule sent another load than the baseline's: its fails are inconclusive. */
export const clientFellBehind: VerdictAdjuster = (run) => {
  if (run.keptUp) return undefined
  const why = run.keptUpWarning
  return {
    note:
      `The client could not keep up with the planned load${why ? ` (${why})` : ''}: ` +
      'the server saw another load than the baseline did, so failures are reported as inconclusive.',
    check: (check) =>
      check.status === 'fail' ? { status: 'inconclusive', reason: 'the client could not keep up' } : undefined,
  }
}

/**
 * A latency change no larger than how late the client read is not the server's to answer for: a median against
 * the median lateness, a tail statistic against the tail.
 */
export const lateReads: VerdictAdjuster = (run) => {
  const late = run.lateness
  if (!late || late.lateRequests === 0) return undefined
  return {
    check: (check) => {
      if (check.unit !== 'ms' || check.status !== 'fail') return undefined
      if (check.current === undefined || check.baseline === undefined) return undefined
      const change = Math.abs(check.current - check.baseline)
      const [label, bound] = check.statistic === 'p50' ? ['p50', late.p50Ms] : ['p99', late.p99Ms]
      if (change > bound) return undefined
      return {
        status: 'inconclusive',
        reason:
          `the change (${change.toFixed(2)} ms) is within the client's measured lateness (${label} ` +
          `${bound.toFixed(2)} ms, ${late.lateRequests} of ${late.watchedRequests} requests read more than ` +
          `${late.thresholdMs} ms late)`,
      }
    },
  }
}

/** Below the disturbance limit steal still costs latency: a fail stands only beyond what it can explain. */
export const stealBelowLimit: VerdictAdjuster = (run) => {
  const steal = run.stealShare
  if (steal === undefined || !(steal > STEAL_NOTICE && steal <= STEAL_LIMIT)) return undefined
  const allowance = STEAL_SLOWDOWN_PER_SHARE * steal
  const shown = `${(steal * 100).toFixed(1)} %`
  return {
    check: (check) => {
      const { ciLow, ciHigh, tolerance } = check
      if (check.status !== 'fail' || ciLow == null || ciHigh == null || tolerance === undefined) return undefined
      const latency = tolerance >= 0
      // A slowdown by (1 + allowance) lengthens a latency by that factor and divides a throughput by it.
      const explained = latency ? ciLow <= 1 + tolerance + allowance : ciHigh >= (1 + tolerance) / (1 + allowance)
      if (!explained) return undefined
      const move = latency ? `+${Math.round(allowance * 100)}` : `-${Math.round((1 - 1 / (1 + allowance)) * 100)}`
      return {
        status: 'inconclusive',
        reason:
          `the hypervisor took ${shown} of the CPU (steal), which can move this by ${move} % ` +
          `(${STEAL_SLOWDOWN_PER_SHARE}x its share); the interval [${ciLow.toFixed(3)}, ${ciHigh.toFixed(3)}] ` +
          'is not beyond that',
      }
    },
  }
}

/** On a machine disturbed while the run measured, nothing but a pass stands: a fail is the machine's as likely. */
export const disturbedMachine: VerdictAdjuster = (run) => {
  if (run.disturbed.length === 0) return undefined
  const why = `the machine was disturbed while this run measured (${disturbancesText(run.disturbed)})`
  return {
    note: `${capitalized(why)}: failures are reported as inconclusive. Run it again on a quiet machine.`,
    check: (check) => (check.status !== 'pass' ? { status: 'inconclusive', reason: why } : undefined),
  }
}

/**
 * A baseline measured on a disturbed machine is slower than the server was: a fail against it stands (the run is
 * slower still), a pass cannot (the slowed baseline can hide a slowdown).
 */
export const provisionalBaseline: VerdictAdjuster = (run) => {
  if (run.baselineProvisional === undefined) return undefined
  const shown = disturbancesText(run.baselineProvisional)
  const why = `the baseline was recorded while the machine was disturbed (${shown}) and can hide a slowdown`
  return {
    note:
      `${capitalized(why)}: no check passes against it. Run the bench on a quiet machine to replace it ` +
      '(`vitest bench` replaces a provisional entry, `-u` any).',
    check: (check) => (check.status === 'pass' ? { status: 'inconclusive', reason: why } : undefined),
  }
}

/** The downgrade rules of every verdict against a baseline (`bench.llm` and `bench.llm.sweep`), in order. */
export const VERDICT_ADJUSTERS: readonly VerdictAdjuster[] = [
  clientFellBehind,
  lateReads,
  stealBelowLimit,
  disturbedMachine,
  provisionalBaseline,
]

/**
 * The checks after each rule in turn (a later rule sees what the earlier ones made of a check), each downgraded
 * check's reason led by the rule's; and the rules' notes, in order.
 */
export function adjustChecks<C extends AdjustableCheck>(
  checks: readonly C[],
  run: JudgedRun,
  adjusters: readonly VerdictAdjuster[] = VERDICT_ADJUSTERS,
): { checks: C[]; notes: string[] } {
  let adjusted = [...checks]
  const notes: string[] = []
  for (const adjuster of adjusters) {
    const adjustment = adjuster(run)
    if (adjustment === undefined) continue
    if (adjustment.note !== undefined) notes.push(adjustment.note)
    adjusted = adjusted.map((check) => {
      const downgrade = adjustment.check(check)
      if (downgrade === undefined) return check
      const reason = [downgrade.reason, check.reason].filter(Boolean).join('; ')
      return { ...check, status: downgrade.status, reason }
    })
  }
  return { checks: adjusted, notes }
}
