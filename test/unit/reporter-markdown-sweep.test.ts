// Issue 31 (7): summary.md repeated each sweep-point warning twice (26 warnings in one capacity
// section): once from the sweep's own warnings, which already gather its points', and once per point.
import { describe, expect, test } from 'vitest'
import { renderMarkdown } from '../../reporters/markdown.ts'
import type { ReportEntry } from '../../reporters/report-entry.ts'
import type { SweepSummary } from '../../reporters/sweep-entry.ts'
import { reportEntries } from '../helpers/reporter-fixtures.ts'

const LATE = 'The client read 3 of 40 responses more than 5 ms late.'

function point(value: number, warnings: string[], note?: string): ReportEntry {
  const entry = reportEntries()[0]!
  const server = note === undefined ? {} : { server: { note } }
  return {
    ...entry,
    name: `curve [concurrency=${value}]`,
    sweep: { name: 'curve', axis: 'concurrency', value },
    result: { ...entry.result, warnings, ...server } as ReportEntry['result'],
  }
}

/** A concurrency sweep's summary with these warnings. */
function sweepWith(warnings: string[]): SweepSummary {
  return {
    name: 'curve',
    file: 'benches/sweep.bench.ts',
    state: 'passed',
    kind: 'sweep',
    axis: 'concurrency',
    headlines: [],
    checks: [],
    table: 'concurrency  out tok/s',
    warnings,
  }
}

describe("a sweep's warnings in summary.md", () => {
  test("each point warning once, with the values that gave it, as the sweep's warnings hold it", () => {
    const points = [point(1, [LATE]), point(2, []), point(4, [LATE])]
    // As pointWarnings writes them.
    const sweep = sweepWith([`concurrency 1, 4: ${LATE}`])
    const markdown = renderMarkdown([reportEntries()[0]!, ...points], { sweeps: [sweep] })
    expect(markdown.split(LATE)).toHaveLength(2)
    expect(markdown).toContain(`- ⚠️ concurrency 1, 4: ${LATE}`)
  })

  test("why a point's server gave no metrics: once, with its values", () => {
    const note = 'No server metrics: GET /metrics answered 404.'
    const points = [point(1, [], note), point(2, [], note)]
    const sweep = sweepWith([])
    const markdown = renderMarkdown([reportEntries()[0]!, ...points], { sweeps: [sweep] })
    expect(markdown.split(note)).toHaveLength(2)
    expect(markdown).toContain(`- ⚠️ every point: ${note}`)
  })
})
