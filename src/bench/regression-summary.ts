import { formatFigure } from '../core/platform/format-figure.ts'
import { changedLead, type Check, type Verdict } from '../core/verdict/index.ts'

function percent(fraction: number): string {
  return `${Number((fraction * 100).toPrecision(4))}%`
}

function signedPercent(fraction: number): string {
  return `${fraction < 0 ? '-' : '+'}${percent(Math.abs(fraction))}`
}

/**
 * One sentence for a failed check, naming the metric, the measured and baseline figures, the
 * ratio with its interval, the limit (as a ratio, a figure and the tolerance) and the sample
 * sizes, e.g. "ttftMs p50 is 29.84 ms, baseline 22.91 ms: ratio 1.302 (95% CI [1.290, 1.316])
 * is beyond the limit 1.100 (+10%, at most 25.20 ms); n = 60 baseline / 60 current requests."
 */
export function describeFailedCheck(check: Check, confidence: number): string {
  const label = check.statistic === 'value' ? check.metric : `${check.metric} ${check.statistic}`
  const limit = 1 + check.tolerance
  const limitFigure = check.baseline * limit
  const ratio = check.ratio === null ? 'no ratio' : `ratio ${check.ratio.toFixed(3)}`
  const interval =
    check.ciLow === null || check.ciHigh === null
      ? ''
      : ` (${percent(confidence)} CI [${check.ciLow.toFixed(3)}, ${check.ciHigh.toFixed(3)}])`
  const bound = check.tolerance < 0 ? 'at least' : 'at most'
  const samples =
    check.statistic === 'value'
      ? check.n.baseline === 1 && check.n.current === 1
        ? 'runs'
        : 'windows'
      : check.metric === 'ttftMs' || check.metric === 'e2eMs'
        ? 'requests'
        : 'samples'
  return (
    `${label} is ${formatFigure(check.current)} ${check.unit}, baseline ${formatFigure(check.baseline)} ${check.unit}: ` +
    `${ratio}${interval} is beyond the limit ${limit.toFixed(3)} (${signedPercent(check.tolerance)}, ${bound} ${formatFigure(limitFigure)} ${check.unit}); ` +
    `n = ${check.n.baseline} baseline / ${check.n.current} current ${samples}.` +
    (check.reason ? ` ${check.reason}.` : '')
  )
}

/**
 * One line per failed check of `verdict` (empty when none failed), each led by what changed in the
 * software under test when it did (`vllm 0.10.1 -> 0.11.0: ttftMs p50 is …`), then what moved on
 * the server side when its metrics say.
 */
export function describeRegressions(verdict: Verdict): string[] {
  const changed = changedLead(verdict)
  const lines = verdict.checks
    .filter((check) => check.status === 'fail')
    .map((check) => `${changed}${describeFailedCheck(check, verdict.confidence)}`)
  if (lines.length > 0 && verdict.server) lines.push(`Server side, baseline -> this run: ${verdict.server}.`)
  return lines
}
