import { abFailed, type AbBenchVerdict } from '../src/bench/ab-verdict.ts'
import type { SkippedInArm } from '../src/bench/arm-file.ts'
import { beyondMorePairs } from '../src/core/verdict/paired-verdict.ts'
import { abMachineLine, type AbMachine } from './ab-machine.ts'

/** What an `ab` run compared, for the comment's head line. */
export interface AbSummary {
  base: { ref: string; sha: string }
  head: { sha: string; dirty: boolean }
  order: string[][]
  stopped: string
  durationMs: number
  /** How the arms shared the machine and why (`arms together, 4 slices per arm and pair: …`). */
  placement?: string
  /** Why the base arm could not be measured (head was then measured alone); absent when it was. */
  baseFailed?: string
  /** The signal that stopped the run after at least one judged pair (`SIGINT`); absent when it ran to its end. */
  interrupted?: string
  /** How busy the machine was over the trials; absent where not told. */
  machine?: AbMachine
  /** The page of the CI run whose artifact holds the full report (see {@link workflowRunUrl}); absent outside one. */
  reportUrl?: string
}

/**
 * The page of the GitHub Actions run this process runs in (`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/
 * $GITHUB_RUN_ID`), where its artifacts are listed; undefined unless all three are set.
 */
export function workflowRunUrl(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: run } = env
  if (!server || !repository || !run) return undefined
  return `${server.replace(/\/+$/, '')}/${repository}/actions/runs/${run}`
}

/** Lines of the comment at most: a pull-request comment stays readable for any number of benches. */
export const AB_COMMENT_MAX_LINES = 40

/** The symbol of each bench status, in the comment and the full report. */
export const AB_STATUS_SYMBOL: Record<AbBenchVerdict['status'], string> = {
  pass: '✅',
  fail: '❌',
  fault: '❌',
  inconclusive: '⚠️',
  new: '🆕',
  gone: '➖',
  changed: '↔️',
  'not gated': '·',
}

/** A ratio with the change it means beside it: `1.320x (+32 %)`, `0.770x (-23 %)`, `1.004x (+0.4 %)`. */
export function ratioWithChange(value: number): string {
  const percent = (value - 1) * 100
  const shown = Math.abs(percent) < 9.95 ? percent.toFixed(1) : percent.toFixed(0)
  return `${value.toFixed(3)}x (${percent >= 0 ? '+' : ''}${shown} %)`
}
const interval = (low: number | null, high: number | null): string =>
  low === null || high === null ? '' : ` [${low.toFixed(3)}, ${high.toFixed(3)}]`

/** The drift guard found the machine moved since the stored baseline was recorded. */
const moved = (verdict: AbBenchVerdict): verdict is AbBenchVerdict & { drift: string } =>
  verdict.drift?.startsWith('the machine moved') === true

/** One line per bench that needs attention, its undecided or failed gates beside it. */
function benchLine(verdict: AbBenchVerdict): string {
  const where = `\`${verdict.name}\` (${verdict.file})`
  const slo = (verdict.sloChecks ?? [])
    .filter((check) => check.status === 'fail')
    .map((check) => `SLO ${check.metric} ${check.statistic} failed`)
  if (verdict.status === 'fault') return `${AB_STATUS_SYMBOL.fault} ${where}: ${verdict.fault ?? 'a server failed'}`
  if (verdict.status === 'changed')
    return `${AB_STATUS_SYMBOL.changed} ${where}: workload or load changed, not compared (${(verdict.changes ?? []).slice(0, 3).join(', ')})`
  const gates = (verdict.paired?.checks ?? [])
    .filter((check) => check.status !== 'pass')
    .map((check) => {
      const beyond = beyondMorePairs(check)
      const gate = `${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`}`
      const why = beyond === undefined ? '' : `: more pairs cannot decide it: ${beyond}`
      return `${gate} ${ratioWithChange(check.ratio)}${interval(check.ciLow, check.ciHigh)} ${check.status}${why}`
    })
  const changed = verdict.paired?.changed ?? []
  const detail = [
    ...(changed.length > 0 ? [`head changed ${changed.join(', ')}`] : []),
    ...gates,
    ...slo,
    ...(moved(verdict) ? [verdict.drift] : []),
  ]
  return `${AB_STATUS_SYMBOL[verdict.status]} ${where}: ${verdict.status}${verdict.pairs > 0 ? `, ${verdict.pairs} pairs` : ''}${detail.length > 0 ? ` · ${detail.join('; ')}` : ''}`
}

/**
 * The run's verdict and its benches by status: `❌ vitest-llm-bench ab: 1 fail, 4 pass` (the comment's and the
 * report's title); a run stopped early says so: `⏹️ vitest-llm-bench ab (stopped by SIGINT after 2 pairs): …`.
 */
export function abTitle(
  verdicts: readonly AbBenchVerdict[],
  summary?: Pick<AbSummary, 'interrupted' | 'order'>,
): string {
  const counts = new Map<string, number>()
  for (const verdict of verdicts) counts.set(verdict.status, (counts.get(verdict.status) ?? 0) + 1)
  const tally = [...counts.entries()].map(([status, count]) => `${count} ${status}`).join(', ')
  if (summary?.interrupted !== undefined) {
    const pairs = summary.order.length
    const after = `${pairs} pair${pairs === 1 ? '' : 's'}`
    return `⏹️ vitest-llm-bench ab (stopped by ${summary.interrupted} after ${after}): ${tally}`
  }
  return `${abFailed(verdicts) ? '❌' : '✅'} vitest-llm-bench ab: ${tally}`
}

/** What was measured against what, in how many pairs, in which order, and why it stopped: one sentence. */
export function abHeadLine(summary: AbSummary): string {
  const head = `${summary.head.sha.slice(0, 7)}${summary.head.dirty ? ' + uncommitted changes' : ''}`
  const order = summary.order.map((pair) => pair.join(' ')).join(' | ')
  if (summary.baseFailed !== undefined)
    return (
      `Base \`${summary.base.ref}\` (${summary.base.sha.slice(0, 7)}) could not be measured, so head ${head} was measured ` +
      `alone and its benches are judged on their SLOs only. The base arm: ${firstLine(summary.baseFailed)}`
    )
  return (
    `Base \`${summary.base.ref}\` (${summary.base.sha.slice(0, 7)}) against head ${head}: ${summary.order.length} pairs ` +
    `in ${(summary.durationMs / 60_000).toFixed(1)} min, order ${order} (${summary.stopped}).` +
    (summary.placement ? ` ${summary.placement.charAt(0).toUpperCase()}${summary.placement.slice(1)}.` : '')
  )
}

const firstLine = (text: string): string => text.split('\n')[0] ?? ''

/**
 * The comment of an `ab` run that could not reach a verdict (a git error, an arm that failed after the first
 * pair, a stop): what happened, in a few lines, so that a sticky-comment step posts the reason, not nothing.
 */
export function formatAbErrorComment(message: string): string {
  const lines = message.split('\n')
  const tail = lines.slice(1, 16)
  return [
    '### LLM serving benchmarks: no verdict',
    '',
    `\`vitest-llm-bench ab\` stopped: ${lines[0] ?? ''}`,
    ...(tail.length > 0 ? ['', '```', ...tail, '```'] : []),
    '',
    'The arm logs are in `llm-bench-ab/logs/` (job artifact).',
    '',
  ].join('\n')
}

/** Sweeps and comparisons the arms skipped, in one line: named up to five, the rest counted. */
export function notComparedLine(skipped: readonly SkippedInArm[]): string {
  const named = skipped
    .slice(0, 5)
    .map((bench) => `${bench.what} \`${bench.name}\`${bench.file ? ` (${bench.file})` : ''}`)
  const more = skipped.length > 5 ? ` and ${skipped.length - 5} more` : ''
  return `not compared side by side: ${named.join(', ')}${more} (an ab run measures bench.llm benches; these are judged by \`vitest bench\` against their stored baselines)`
}

/**
 * `comment.md` of an `ab` run: a head line with the verdict counts, one line per bench that did not
 * simply pass (passes are counted, not listed, once the comment would grow past
 * {@link AB_COMMENT_MAX_LINES}), and where the full report is.
 */
export function formatAbComment(
  verdicts: readonly AbBenchVerdict[],
  summary: AbSummary,
  notCompared: readonly SkippedInArm[] = [],
): string {
  const lines = [`### ${abTitle(verdicts, summary)}`, '', abHeadLine(summary), '']
  if (summary.machine !== undefined) lines.push(abMachineLine(summary.machine), '')
  const attention = verdicts.filter(
    (verdict) =>
      verdict.status !== 'pass' || moved(verdict) || (verdict.sloChecks ?? []).some((check) => check.status === 'fail'),
  )
  // A passing bench whose server head changed is named too: the reviewer sees what the pass is a pass of.
  const changed = verdicts.filter(
    (verdict) => !attention.includes(verdict) && (verdict.paired?.changed ?? []).length > 0,
  )
  const room = AB_COMMENT_MAX_LINES - lines.length - 3 - (notCompared.length > 0 ? 1 : 0)
  const listed = attention.length > room ? attention.slice(0, room - 1) : attention
  for (const verdict of listed) lines.push(`- ${benchLine(verdict)}`)
  if (listed.length < attention.length) lines.push(`- … and ${attention.length - listed.length} more in ab.json`)
  const shownChanged = changed.slice(0, Math.max(0, room - listed.length - 1))
  for (const verdict of shownChanged)
    lines.push(
      `- ${AB_STATUS_SYMBOL.changed} head changed the server of \`${verdict.name}\` (${verdict.file}): ` +
        (verdict.paired?.changed ?? []).join('; '),
    )
  const passed = verdicts.length - attention.length
  if (passed > 0) lines.push(`- ${AB_STATUS_SYMBOL.pass} ${passed} bench${passed === 1 ? '' : 'es'} passed every gate`)
  if (notCompared.length > 0) lines.push(`- ${AB_STATUS_SYMBOL['not gated']} ${notComparedLine(notCompared)}`)
  const files = 'both arms, every gate with its interval: `summary.md` and `report.html`; every trial: `ab.json`'
  lines.push(
    '',
    summary.reportUrl === undefined
      ? `${files.charAt(0).toUpperCase()}${files.slice(1)} (job artifact).`
      : `Full report in the artifact of [the workflow run](${summary.reportUrl}): ${files}.`,
  )
  return `${lines.join('\n')}\n`
}
