import type { SloCheck } from './slo-check.ts'
import { formatFigure as show } from '../platform/format-figure.ts'

/**
 * One block for assertion messages and console reports: a headline, then one aligned row per
 * limit (measured, limit, n, status), then the message of every check that did not pass.
 */
export function formatSloChecks(checks: readonly SloCheck[]): string {
  const failed = checks.filter((check) => check.status === 'fail').length
  const inconclusive = checks.filter((check) => check.status === 'inconclusive').length
  const status = failed > 0 ? 'FAIL' : inconclusive > 0 ? 'INCONCLUSIVE' : 'PASS'
  const parts = [
    failed > 0 ? `${failed} fail` : '',
    inconclusive > 0 ? `${inconclusive} inconclusive` : '',
    `${checks.length - failed - inconclusive} pass`,
  ]
  const headline = `SLO: ${status} (${parts.filter(Boolean).join(', ')})`
  const header = ['limit', 'measured', 'bound', 'n', 'status']
  // Shares (error rate, goodput) read better as percentages.
  const withUnit = (value: number, unit: string): string =>
    unit === 'share' ? `${show(value * 100)}%` : `${show(value)} ${unit}`
  const rows = checks.map((check) => [
    check.statistic === 'min' || check.statistic === 'max' ? check.metric : `${check.metric} ${check.statistic}`,
    check.measured === null ? '-' : withUnit(check.measured, check.unit),
    `${check.bound === 'max' ? '<=' : '>='} ${withUnit(check.limit, check.unit)}`,
    String(check.n),
    check.status.toUpperCase(),
  ])
  const table = [header, ...rows]
  const widths = header.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length)))
  const rightAligned = new Set([1, 3])
  const lines = table.map(
    (row) =>
      `  ${row
        .map((cell, column) =>
          rightAligned.has(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd()}`,
  )
  const problems = checks.filter((check) => check.status !== 'pass').map((check) => `  ${check.message}`)
  return [headline, ...lines, ...(problems.length > 0 ? ['', ...problems] : [])].join('\n')
}
