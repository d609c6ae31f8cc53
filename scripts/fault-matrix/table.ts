// The matrix's printed lines: one per row as it ends, then the table in row order and `N of M held`.
import type { RowResult } from './matrix-runner.ts'

/** One row as a line: status, id, seconds, then what it did, expected and observed. */
export function rowLine(result: RowResult, index?: number): string {
  const { row, outcome, seconds } = result
  const number = index === undefined ? '' : `${String(index + 1).padStart(2)}. `
  return [
    `${number}${outcome.held ? 'HELD  ' : 'FAILED'} ${row.id} (${row.family}, ${seconds.toFixed(1)} s)`,
    `      does:     ${row.does}`,
    `      expected: ${row.expects}`,
    `      observed: ${outcome.observed}`,
  ].join('\n')
}

/** The final count line. */
export function summaryLine(results: RowResult[]): string {
  return `${results.filter((r) => r.outcome.held).length} of ${results.length} held`
}
