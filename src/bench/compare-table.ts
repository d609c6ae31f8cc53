/**
 * What a side-by-side comparison prints (`bench.llm.compare`, `ab`): the table of every variant's gates, and the
 * few lines under it. Formatting only: the console reporter imports it without the measuring code.
 */
import { formatFigure } from '../core/platform/format-figure.ts'
import type { PairedCheck } from '../core/verdict/index.ts'
import { beyondMorePairs } from '../core/verdict/paired-verdict.ts'
import type { ArmsPlacement } from './arms-placement.ts'

/**
 * What the table reads of a comparison (a `CompareResult` of compare-bench.ts, or `ab`'s verdicts), stated here so
 * that printing needs none of the measuring code.
 */
export interface CompareTableInput {
  control: string
  /** The trials (a `CompareResult`'s): not printed, allowed so that a whole result can be passed as it is. */
  trials?: readonly unknown[]
  /** The order of each pair, e.g. `[['default', 'ub 1'], ['ub 1', 'default'], …]`. */
  order: string[][]
  variants: ReadonlyArray<{
    label: string
    checks: ReadonlyArray<PairedCheck & { control: number; variant: number }>
    /** Pairs left out, one line each (`pair 3 left out: only default was measured on a disturbed machine (…)`). */
    voided: readonly string[]
    bothDisturbed: number
    changed: readonly string[]
  }>
  stopped: string
  /** Confidence of the whole sequence of looks, e.g. 0.95. */
  confidence: number
  /** Confidence of the intervals shown, e.g. 0.9759. */
  lastLookConfidence: number
  durationMs: number
  /** Together (with its slices and the most CPU an idle arm used, share of one core) or apart, and why. */
  arms?: ArmsPlacement & { slices?: number; idleCpu?: number }
}

/** A check's interval as the table and the failure print it: `[0.895, 1.104]`. */
export const intervalText = (check: Pick<PairedCheck, 'ciLow' | 'ciHigh'>): string =>
  check.ciLow === null || check.ciHigh === null
    ? '[no interval]'
    : `[${check.ciLow.toFixed(3)}, ${check.ciHigh.toFixed(3)}]`

/** A gate as the table names it: `ttftMs p50 (+10 %)`. */
const gateText = (check: Pick<PairedCheck, 'metric' | 'statistic' | 'tolerance'>): string =>
  `${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`} (${check.tolerance >= 0 ? '+' : ''}${Math.round(check.tolerance * 100)} %)`

/** The arms by letter, the control first (`A` `B` `C`); undefined beyond 26 arms, which are then named in full. */
function lettersOf(result: Pick<CompareTableInput, 'control' | 'variants'>): Map<string, string> | undefined {
  const labels = [result.control, ...result.variants.map((variant) => variant.label)]
  if (labels.length > 26) return undefined
  return new Map(labels.map((label, i) => [label, String.fromCharCode(65 + i)]))
}

/** The pairs' order: `ABC CBA ABC (A default, B ub 1, C ub 2)`, readable whatever the labels hold. */
function orderText(result: Pick<CompareTableInput, 'control' | 'variants' | 'order'>): string {
  const letters = lettersOf(result)
  if (letters === undefined || result.order.some((pair) => pair.some((label) => !letters.has(label))))
    return result.order.map((pair) => pair.join(' ')).join(' | ')
  const key = [...letters].map(([label, letter]) => `${letter} ${label}`).join(', ')
  return `${result.order.map((pair) => pair.map((label) => letters.get(label)).join('')).join(' ')} (${key})`
}

/** The table of every variant's gates: control and variant figures, ratio, interval and verdict, one screen. */
export function formatCompareTable(result: CompareTableInput): string {
  // With one variant its column is headed by its label (`head` against `base` in `ab`), as the control's is.
  const only = result.variants.length === 1 ? result.variants[0]?.label : undefined
  const rows = [['variant', 'gate', result.control, only ?? 'variant', 'ratio', 'interval', 'pairs', 'verdict']]
  for (const variant of result.variants) {
    for (const check of variant.checks) {
      const unit = check.unit === 'ms' ? ' ms' : ` ${check.unit}`
      rows.push([
        variant.label,
        gateText(check),
        `${formatFigure(check.control)}${unit}`,
        `${formatFigure(check.variant)}${unit}`,
        check.ratio.toFixed(3),
        intervalText(check),
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
  const head = `side by side: ${result.order.length} pairs in ${(result.durationMs / 1000).toFixed(1)} s (${result.stopped}); order ${orderText(result)}; intervals at ${(result.lastLookConfidence * 100).toFixed(2)} % (this look's level, so that all looks keep ${(result.confidence * 100).toFixed(0)} %)`
  const arms = result.arms
  const placement =
    arms === undefined
      ? []
      : arms.mode === 'together'
        ? [
            `arms together (${arms.why}): both up in every pair, each arm's load in ${arms.slices ?? '?'} slices loaded in turn (A B B A …)${arms.idleCpu === undefined ? '' : `; an idle arm used at most ${(arms.idleCpu * 100).toFixed(1)} % of a core`}`,
          ]
        : [`arms apart (${arms.why}): one arm at a time, each trial on a freshly started server`]
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
  return [head, ...placement, ...changes, ...busy, ...lines].join('\n')
}

/** `pair 3 left out: only default was measured on a disturbed machine (…)`, as `judgeVariant` words it. */
const VOIDED = /^pair (\d+) left out: only (.+?) was measured on a disturbed machine\b/

/**
 * The lines under the table: one per variant naming the pairs left out and which arm was disturbed (what disturbed
 * it, with process ids, stays in the result), and one per undecided gate with what would decide it.
 */
export function formatCompareNotes(result: Pick<CompareTableInput, 'variants'>): string[] {
  const lines: string[] = []
  for (const variant of result.variants) {
    if (variant.voided.length === 0) continue
    const pairs = variant.voided.map((line, i) => {
      const match = VOIDED.exec(line)
      if (match === null) return line
      return `${i === 0 ? 'pair ' : ''}${match[1]} (only ${match[2]} disturbed)`
    })
    lines.push(`left out: ${variant.label}: ${pairs.join(', ')}`)
  }
  for (const variant of result.variants) {
    for (const check of variant.checks) {
      if (check.status !== 'inconclusive') continue
      const gate = `${check.metric}${check.statistic === 'value' ? '' : ` ${check.statistic}`}`
      const beyond = beyondMorePairs(check)
      if (beyond !== undefined) {
        lines.push(`inconclusive: ${variant.label} ${gate}: more pairs cannot decide it: ${beyond}`)
        continue
      }
      const more = check.pairsToDecide !== undefined ? `; about ${check.pairsToDecide} pairs would decide` : ''
      lines.push(`inconclusive: ${variant.label} ${gate}: ${check.reason ?? 'undecided'}${more}`)
    }
  }
  return lines
}
