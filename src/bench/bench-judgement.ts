import { BaselineStore, baselineEntryFrom, baselinePathFor, type BaselineEntry } from '../core/baseline/index.ts'
import { compare, formatVerdict, type ParsedRegressionPolicy, type Verdict } from '../core/verdict/index.ts'
import { canonicalConfig } from '../core/plan/index.ts'
import { trialFiguresOf } from '../core/trials/index.ts'
import { NOT_JUDGED, PROVISIONAL, STOPPED, type BaselineState } from './baseline-state.ts'
import { describeMachine, throughputSeriesOf } from '../core/baseline/index.ts'
import {
  evaluateSlo,
  failureRuling,
  RUN_MAY_LOSE,
  formatSloChecks,
  type SloCheck,
  type SloOptions,
} from '../core/slo/index.ts'
import type { BenchmarkResult, StopReport } from '../core/contract/result.ts'
import type { LlmBenchProvided } from './provided.ts'
import { endedLines, type ServerEnded } from './bench-target.ts'
import { resolveTrials, type ResolvedTrials } from './bench-trials.ts'
import { spreadNotes } from '../core/verdict/index.ts'
import { describeRegressions } from './regression-summary.ts'
import type { SegmentJudge } from './segment-judge.ts'
import { shownPath } from '../core/platform/shown-path.ts'
import { disturbancesText } from '../core/contract/disturbances-text.ts'
import { capitalized, stopText } from '../core/contract/stop-text.ts'
import { formatSoak } from '../core/soak/index.ts'

/** What one bench's result means against its SLOs and baseline. */
export interface BenchJudgement {
  /** The assertion message when the bench fails; undefined when it passes. */
  failure: string | undefined
  sloChecks: SloCheck[]
  verdict?: Verdict
  baselinePath?: string
  baselineState?: BaselineState
  /** Lines for the console (baseline written, inconclusive checks). */
  notes: string[]
  /** A segment of a load over several machines is judged after the merge, with these. */
  deferred?: SegmentJudge
}

export interface JudgeInput {
  /** Bench name with its describe path, the key of its baseline entry. */
  name: string
  /** Absolute path of the bench file. */
  file: string
  result: BenchmarkResult
  /** The SLOs, already checked (`validateSloOptions`; a bench checks them at collection). */
  slo: SloOptions | undefined
  /** The bench's policy as planned (`BenchPlan.policy`); `false`: no baseline. */
  policy: ParsedRegressionPolicy | false
  provided: Pick<LlmBenchProvided, 'update' | 'ci' | 'baselineDir' | 'addSession'>
  /** The launched server ended on its own during the run: the run cannot be judged. */
  serverEnded?: ServerEnded
  /** The bench's trials (what an inconclusive verdict does, how many trials a compared run may take). Default: the defaults. */
  trials?: ResolvedTrials
  /** Environment the force switch ({@link FORCE_BASELINE_ENV}) is read from. Default `process.env`. */
  env?: Record<string, string | undefined>
}

/** Set to 1 to record a run whose self-check says the machine was disturbed as a trusted (not provisional) baseline. */
export const FORCE_BASELINE_ENV = 'LLM_BENCH_FORCE_BASELINE'

/**
 * The recording rule, one for every bench: a run measured while its self-check says the machine was
 * disturbed is still written, as a provisional entry (`BaselineEntry.provisional`), and says so in
 * one line: what disturbed it and how it becomes trusted. With the force switch it is written as a
 * trusted entry. Undefined when this run writes no entry or was measured on a quiet machine.
 */
function provisionalRecording(input: JudgeInput, entry: BaselineEntry, exists: boolean): string | undefined {
  const writes = input.provided.update === 'all' || (input.provided.update === 'new' && !input.provided.ci && !exists)
  if (!writes || entry.provisional === undefined) return undefined
  if ((input.env ?? process.env)[FORCE_BASELINE_ENV] === '1') {
    const reasons = entry.provisional
    delete entry.provisional
    return `baseline recorded as trusted although the machine was disturbed (${disturbancesText(reasons)}): ${FORCE_BASELINE_ENV}=1`
  }
  return (
    `baseline recorded provisionally: the machine was disturbed while this run measured (${disturbancesText(entry.provisional)}). ` +
    'No verdict passes against it; the next run on a quiet machine replaces it (`vitest bench`, or `-u`).'
  )
}

/** Why a stopped run is neither compared with nor recorded as a baseline. */
const STOPPED_NOT_JUDGED =
  'not judged against the baseline, and no baseline is written (not with -u either): ' +
  "its figures describe a server in trouble and a load cut short, not the server's performance"

/** Why a bench whose load `stopWhen` stopped, not expecting it, fails: when, why, and what to do. */
export function stopFailure(stopped: StopReport): string {
  return (
    `${capitalized(stopText(stopped))}. The run is ${STOPPED_NOT_JUDGED}. ` +
    'Check the server (its log, its load from other users), start lower and raise slowly (`load.rampUp`), ' +
    'or set `stopWhen.expected: true` when finding this limit is what the bench is for.'
  )
}

/** Why a run cannot be compared with (or become) a baseline, and what excuses it from failing. */
interface Unjudgeable {
  text: string
  /** The disturbances that excuse the run's failed requests (see {@link failureRuling}); absent: it fails. */
  excusedBy?: readonly string[]
}

/**
 * Why a run cannot be compared with (or become) a baseline; undefined when it can, or when an
 * expected stop passes unjudged.
 */
function unjudgeable(input: JudgeInput): Unjudgeable | undefined {
  const { result } = input
  if (result.stopped) return result.stopped.expected ? undefined : { text: stopFailure(result.stopped) }
  if (input.serverEnded) {
    const [ended, ...log] = endedLines(input.serverEnded)
    const text = [
      `${ended} during the run: ${result.counts.failed} of ${result.counts.total} requests failed. The run is not judged and no baseline is written.`,
      ...log,
    ].join('\n')
    return { text }
  }
  if (result.stall) {
    const { inFlight, silentMs, stallTimeoutMs } = result.stall
    return {
      text:
        `The server stopped answering: no byte from any of the ${inFlight} requests in flight for ${Math.round(silentMs / 1000)} s (target.stallTimeoutMs: ${stallTimeoutMs} ms), and the run was stopped. ` +
        `The run is not judged and no baseline is written; the ${result.counts.completed} requests that completed before are in the reports. ` +
        'Check the server (its log; nvidia-smi for a hung GPU), or raise `target.stallTimeoutMs` if it may rightly send nothing that long (a long prompt before its first token).',
    }
  }
  // Failures on a disturbed machine (requests cut off at the drain, timeouts) are the machine's, not the server's;
  // a server that sent nothing for stallTimeoutMs (above) is the server's on any machine.
  // A bench's own error limit replaces the rule: an SLO, or a soak's `expect.errors` (judged with its trends).
  const soakErrors = result.soak?.checks.some((check) => check.figure === 'errors.rate') === true
  const ruling = input.slo?.errors === undefined && !soakErrors ? failureRuling(result, RUN_MAY_LOSE) : undefined
  if (ruling === undefined) return undefined
  // A soak is never compared with a baseline: its failure names its own limit instead.
  const what = result.soak
    ? 'Fix the failures, or set `soak: { expect: { errors: { maxRate } } }` to judge soaks with more.'
    : 'No baseline is compared or written. Fix the failures, or set `slo: { errors: { maxRate } }` to judge runs with more.'
  return {
    text: `${ruling.text}. ${what}`,
    ...(ruling.status === 'excused' ? { excusedBy: ruling.disturbed } : {}),
  }
}

function headline(input: JudgeInput): string {
  const { result } = input
  return `${input.name}: ${result.counts.completed} of ${result.counts.total} requests completed in ${(result.durationMs / 1000).toFixed(1)} s`
}

/**
 * This run counted as one more session of its stored entry (`LLM_BENCH_ADD_SESSION=1`), or why not: a failed run may
 * be a regression, and a disturbed one measured the other processes; neither says how far a quiet machine moves.
 */
function addedSession(
  input: JudgeInput,
  store: BaselineStore,
  stored: BaselineEntry,
  verdict: Verdict,
  path: string,
): string {
  const disturbed = input.result.client.selfCheck?.disturbed ?? []
  const why =
    verdict.status === 'fail'
      ? 'it failed a gate'
      : disturbed.length > 0
        ? `the machine was disturbed (${disturbancesText(disturbed)})`
        : stored.provisional !== undefined
          ? 'the stored entry is provisional'
          : undefined
  if (why !== undefined) return `session not added: ${why}`
  const count = store.addSession(input.name, stored, {
    at: new Date().toISOString(),
    source: 'added',
    figures: trialFiguresOf(input.result),
  })
  return `session added to ${shownPath(path)} [${input.name}]: ${count} stored on this machine`
}

/**
 * Checks SLOs, then the baseline (read, compare or record, save), and builds one readable
 * failure block naming every metric, limit, measured and baseline value, ratio and sample size.
 */
export async function judgeBench(input: JudgeInput): Promise<BenchJudgement> {
  const trials = input.trials ?? resolveTrials(undefined)
  const blocks: string[] = []
  const notes: string[] = []
  let failed = false
  const sloChecks = input.slo ? evaluateSlo(input.result, input.slo) : []
  if (sloChecks.length > 0) {
    blocks.push(formatSloChecks(sloChecks))
    if (sloChecks.some((check) => check.status === 'fail')) failed = true
  }
  const { soak } = input.result
  if (soak) {
    if (soak.verdict === 'fail') {
      failed = true
      blocks.push(formatSoak(soak))
    } else {
      notes.push(formatSoak(soak))
    }
    // A soak is judged by its trends: its figures pool an hour of a server that may drift, not one comparable run.
    notes.push('soak: judged by its trends and SLOs; no stored baseline is compared or written')
  }
  if (input.result.counts.completed === 0) {
    failed = true
    const top = input.result.errors[0]
    // A server that answered with an error status is up: its message (and its hint) says what to change.
    const advice = top?.kind === 'http' ? '' : ' Check that the server is up and serves the model.'
    blocks.push(
      `No request completed${top ? `: ${top.count} x ${top.kind}: ${top.message.replace(/\.$/, '')}` : ''}.${advice}`,
    )
  }

  const judgement: BenchJudgement = { failure: undefined, sloChecks, notes }
  const cannotJudge = unjudgeable(input)
  if (cannotJudge?.excusedBy !== undefined) {
    notes.push(
      `not judged: ${cannotJudge.text} Not failed either: the machine was disturbed (${disturbancesText(cannotJudge.excusedBy)}).`,
    )
    // Reports show it as inconclusive, never as a pass.
    judgement.baselineState = NOT_JUDGED
  } else if (cannotJudge !== undefined) {
    failed = true
    blocks.push(cannotJudge.text)
  }
  const { stopped } = input.result
  if (stopped) {
    // The safety stop is the server's doing on any machine: a disturbed machine does not excuse it.
    judgement.baselineState = STOPPED
    if (stopped.expected)
      notes.push(`not judged: ${stopText(stopped)} (stopWhen.expected): passes; ${STOPPED_NOT_JUDGED}`)
  }
  if (input.policy !== false && input.result.counts.completed > 0 && cannotJudge === undefined && !stopped && !soak) {
    const path = baselinePathFor(input.file, input.provided.baselineDir)
    judgement.baselinePath = path
    const store = await BaselineStore.open(path, {
      updateMode: input.provided.update,
      ci: input.provided.ci,
      identity: canonicalConfig,
    })
    const series = throughputSeriesOf(input.result)
    const entry = baselineEntryFrom(input.result, series ? { throughputSeries: series } : {})
    const stored = store.get(input.name, entry.fingerprint)
    const provisional = provisionalRecording(input, entry, stored.state === 'found')
    // A quiet run replaces a provisional entry, unless it is slower beyond the gates even than that
    // disturbed recording: then it is a regression, judged as one, and the entry is kept.
    const regressed =
      stored.state === 'found' &&
      stored.entry.provisional !== undefined &&
      entry.provisional === undefined &&
      compare(stored.entry, input.result, input.policy, {
        stored: true,
        ...(series ? { throughputSeries: series } : {}),
      }).status === 'fail'
    const match = store.match(input.name, entry, { replaceProvisional: !regressed })
    judgement.baselineState = match.state
    switch (match.state) {
      case 'compare': {
        const verdict = compare(match.entry, input.result, input.policy, {
          stored: true,
          ...(series ? { throughputSeries: series } : {}),
        })
        judgement.verdict = verdict
        blocks.push(formatVerdict(verdict))
        if (verdict.status === 'inconclusive') {
          const undecided = verdict.checks.filter((check) => check.status === 'inconclusive')
          const lines = undecided.map(
            (check) =>
              `${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`}: ${check.reason ?? 'undecided'}`,
          )
          if (trials.onInconclusive === 'fail') {
            failed = true
            blocks.push(
              [
                'Inconclusive, and this bench fails on inconclusive (trials.onInconclusive: "fail"):',
                ...lines.map((line) => `  - ${line}`),
              ].join('\n'),
            )
          } else if (trials.onInconclusive === 'warn') {
            notes.push(...lines.map((line) => `inconclusive: ${input.name}: ${line}`))
          }
        }
        if (input.provided.addSession) notes.push(addedSession(input, store, match.entry, verdict, path))
        if (verdict.status === 'fail') {
          failed = true
          blocks.push(
            [
              `Regressed against the baseline recorded ${match.entry.recordedAt} in ${shownPath(path)}:`,
              ...describeRegressions(verdict).map((line) => `  - ${line}`),
              `If this change is expected (other hardware, model or server version), run \`vitest bench -u\` and commit ${shownPath(path)}.`,
            ].join('\n'),
          )
        }
        break
      }
      case 'written':
      case 'updated':
        notes.push(
          `baseline ${match.state}: ${shownPath(path)} [${input.name}] (${entry.trials?.length ?? 1} trial${entry.trials?.length === 1 ? '' : 's'})`,
        )
        if (provisional !== undefined) notes.push(provisional)
        // Not a pass in the reports: nothing was judged, and what was written is not trusted yet.
        if (entry.provisional !== undefined) judgement.baselineState = PROVISIONAL
        if (match.state === 'written' && match.otherMachines !== undefined) {
          notes.push(
            `recorded for this machine (${describeMachine(entry.fingerprint)}) beside the entries of ${match.otherMachines.join('; ')}: each machine is judged against its own; no relative verdict this run`,
          )
        }
        if (match.state === 'updated' && match.previous.provisional !== undefined && input.provided.update !== 'all') {
          notes.push(
            `replaced the provisional baseline recorded ${match.previous.recordedAt} (${disturbancesText(match.previous.provisional)}) with this quiet run's`,
          )
        }
        notes.push(...spreadNotes(entry, input.policy, trials.max))
        break
      case 'missing':
      case 'mismatch':
        failed = true
        blocks.push(match.error.message)
        break
    }
    // Only this bench's entry: obsolete ones are removed after the run, by reconcileObsoleteBaselines.
    await store.save()
  }
  if (failed) judgement.failure = [headline(input), ...blocks].join('\n\n')
  return judgement
}
