import {
  BaselineStore,
  baselineEntryFrom,
  baselinePathFor,
  compare,
  DEFAULT_REGRESSION_POLICY,
  formatVerdict,
  type RegressionPolicy,
  type Verdict,
} from '../core/baseline/index.ts'
import { throughputSeriesOf } from '../core/baseline/index.ts'
import { checkSlo, formatSloChecks, type SloCheck, type SloOptions } from '../core/slo/index.ts'
import type { BenchmarkResult } from '../core/types.ts'
import type { LlmBenchProvided } from './provided.ts'
import type { ServerEnded } from './bench-target.ts'
import { describeRegressions } from './regression-summary.ts'

/** What one bench's result means against its SLOs and baseline. */
export interface BenchJudgement {
  /** The assertion message when the bench fails; undefined when it passes. */
  failure: string | undefined
  sloChecks: SloCheck[]
  verdict?: Verdict
  baselinePath?: string
  /** `compare`, `written`, `updated`, `missing` or `mismatch`. */
  baselineState?: string
  /** Lines for the console (baseline written, inconclusive checks). */
  notes: string[]
}

export interface JudgeInput {
  /** Bench name with its describe path, the key of its baseline entry. */
  name: string
  /** Absolute path of the bench file. */
  file: string
  result: BenchmarkResult
  slo: SloOptions | undefined
  /** `false`: no baseline. Undefined: the default policy. */
  policy: RegressionPolicy | false | undefined
  provided: Pick<LlmBenchProvided, 'update' | 'ci' | 'baselineDir'>
  /** The launched server ended on its own during the run: the run cannot be judged. */
  serverEnded?: ServerEnded
}

/**
 * Share of failed requests above which a run is not judged (and never becomes a baseline) unless
 * the bench sets its own `slo.errors`: its latencies describe a server that was failing.
 */
export const DEFAULT_MAX_ERROR_RATE = 0.01

/** Why a run cannot be compared with (or become) a baseline; undefined when it can. */
function unjudgeable(input: JudgeInput): string | undefined {
  const { result } = input
  if (input.serverEnded) {
    const { name, how, logTail, logPath } = input.serverEnded
    return [
      `${name} ${how} during the run: ${result.counts.failed} of ${result.counts.total} requests failed. The run is not judged and no baseline is written.`,
      ...(logTail.length > 0 ? [`Last lines of its log${logPath ? ` (${logPath})` : ''}:`, ...logTail.map((line) => `  ${line}`)] : []),
    ].join('\n')
  }
  const rate = result.counts.total > 0 ? result.counts.failed / result.counts.total : 0
  if (input.slo?.errors === undefined && rate > DEFAULT_MAX_ERROR_RATE && result.counts.completed > 0) {
    const top = result.errors[0]
    return (
      `${result.counts.failed} of ${result.counts.total} requests failed (${(rate * 100).toFixed(1)} %), above the ${DEFAULT_MAX_ERROR_RATE * 100} % a run may lose and still be judged` +
      `${top ? `; most often ${top.count} x ${top.kind}: ${top.message}` : ''}. No baseline is compared or written. ` +
      'Fix the failures, or set `slo: { errors: { maxRate } }` to judge runs with more.'
    )
  }
  return undefined
}

function headline(input: JudgeInput): string {
  const { result } = input
  return `${input.name}: ${result.counts.completed} of ${result.counts.total} requests completed in ${(result.durationMs / 1000).toFixed(1)} s`
}

/**
 * Checks SLOs, then the baseline (read, compare or record, save), and builds one readable
 * failure block naming every metric, limit, measured and baseline value, ratio and sample size.
 */
export async function judgeBench(input: JudgeInput): Promise<BenchJudgement> {
  const blocks: string[] = []
  const notes: string[] = []
  let failed = false
  const sloChecks = input.slo ? checkSlo(input.result, input.slo) : []
  if (sloChecks.length > 0) {
    blocks.push(formatSloChecks(sloChecks))
    if (sloChecks.some((check) => check.status === 'fail')) failed = true
  }
  if (input.result.counts.completed === 0) {
    failed = true
    const top = input.result.errors[0]
    blocks.push(`No request completed${top ? `: ${top.count} x ${top.kind}: ${top.message}` : ''}. Check that the server is up and serves the model.`)
  }

  const judgement: BenchJudgement = { failure: undefined, sloChecks, notes }
  const cannotJudge = unjudgeable(input)
  if (cannotJudge !== undefined) {
    failed = true
    blocks.push(cannotJudge)
  }
  if (input.policy !== false && input.result.counts.completed > 0 && cannotJudge === undefined) {
    const path = baselinePathFor(input.file, input.provided.baselineDir)
    judgement.baselinePath = path
    const store = await BaselineStore.open(path, { updateMode: input.provided.update, ci: input.provided.ci })
    const series = throughputSeriesOf(input.result)
    const entry = baselineEntryFrom(input.result, series ? { throughputSeries: series } : {})
    const match = store.match(input.name, entry)
    judgement.baselineState = match.state
    switch (match.state) {
      case 'compare': {
        const verdict = compare(match.entry, input.result, input.policy ?? DEFAULT_REGRESSION_POLICY, series ? { throughputSeries: series } : {})
        judgement.verdict = verdict
        blocks.push(formatVerdict(verdict))
        if (verdict.status === 'fail') {
          failed = true
          blocks.push(
            [
              `Regressed against the baseline recorded ${match.entry.recordedAt} in ${path}:`,
              ...describeRegressions(verdict).map((line) => `  - ${line}`),
              `If this change is expected (other hardware, model or server version), run \`vitest bench -u\` and commit ${path}.`,
            ].join('\n'),
          )
        }
        break
      }
      case 'written':
        notes.push(`baseline written: ${path} [${input.name}]`)
        break
      case 'updated':
        notes.push(`baseline updated: ${path} [${input.name}]`)
        break
      case 'missing':
      case 'mismatch':
        failed = true
        blocks.push(match.error.message)
        break
    }
    // Entries of benches that did not run yet in this session are not obsolete: the plugin decides that at the end of the run.
    for (const name of store.names()) store.markChecked(name)
    await store.save()
  }
  if (failed) judgement.failure = [headline(input), ...blocks].join('\n\n')
  return judgement
}
