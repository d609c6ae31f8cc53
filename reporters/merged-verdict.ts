import type { MergedBenchVerdict } from '../src/bench/segment-verdict.ts'
import { renderConsoleEntry, type ConsoleTableOptions } from './console-table.ts'
import type { ReportEntry } from './report-entry.ts'

/**
 * The console table of a bench merged from its segments (`vitest-llm-bench merge`, or
 * `vitest --merge-reports` of segmented runs): the merged figures, then the verdict, or why there
 * is none, and the failure text when it failed.
 */
export function renderMergedVerdict(
  verdict: MergedBenchVerdict,
  file: string,
  options: ConsoleTableOptions = {},
): string {
  const { judgement } = verdict
  const entry: ReportEntry = {
    name: verdict.name,
    file,
    state: verdict.failed ? 'failed' : 'passed',
    result: verdict.result,
  }
  if (verdict.refusals.length > 0) entry.notes = verdict.refusals.map((why) => `no verdict: ${why}`)
  if (judgement) {
    if (judgement.verdict) entry.verdict = judgement.verdict
    if (judgement.baselineState) entry.baselineState = judgement.baselineState
    if (judgement.sloChecks.length > 0) entry.sloChecks = judgement.sloChecks
    if (judgement.notes.length > 0) entry.notes = judgement.notes
  }
  const table = renderConsoleEntry(entry, options)
  return judgement?.failure ? `${table}\n${judgement.failure}` : table
}
