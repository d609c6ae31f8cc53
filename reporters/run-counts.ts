import { entryStatus, type EntryStatus, type ReportEntry } from './report-entry.ts'
import type { CompareEntry } from './compare-entry.ts'
import { sweepStatus, type SweepStatus, type SweepSummary } from './sweep-entry.ts'

/** How many benches and sweeps a run had, by status. A sweep's points are not benches. */
export interface RunCounts {
  /** Benches (`bench.llm`), sweep points left out. */
  benches: number
  /** Benches by status, worst first, statuses with none left out. */
  benchStatuses: ReadonlyArray<readonly [EntryStatus, number]>
  sweeps: number
  /** Sweeps by status, worst first, statuses with none left out. */
  sweepStatuses: ReadonlyArray<readonly [SweepStatus, number]>
  /** Comparisons (`bench.llm.compare`) that measured. */
  compares: number
  /** Comparisons by status, worst first, statuses with none left out. */
  compareStatuses: ReadonlyArray<readonly [CompareEntry['status'], number]>
}

const BENCH_ORDER = ['fail', 'inconclusive', 'pass', 'skipped'] as const
const SWEEP_ORDER = ['fail', 'inconclusive', 'pass', 'skipped'] as const
const COMPARE_ORDER = ['fail', 'inconclusive', 'pass'] as const

function tally<S extends string>(order: readonly S[], statuses: readonly S[]): Array<readonly [S, number]> {
  return order
    .map((status) => [status, statuses.filter((candidate) => candidate === status).length] as const)
    .filter(([, count]) => count > 0)
}

/** The counts of a run's entries and sweeps (see {@link RunCounts}). */
export function runCounts(
  entries: readonly ReportEntry[],
  sweeps: readonly Pick<SweepSummary, 'state' | 'checks' | 'baselineState'>[] = [],
  compares: readonly Pick<CompareEntry, 'status'>[] = [],
): RunCounts {
  const benches = entries.filter((entry) => !entry.sweep)
  return {
    benches: benches.length,
    benchStatuses: tally(BENCH_ORDER, benches.map(entryStatus) as Array<(typeof BENCH_ORDER)[number]>),
    sweeps: sweeps.length,
    sweepStatuses: tally(SWEEP_ORDER, sweeps.map(sweepStatus)),
    compares: compares.length,
    compareStatuses: tally(
      COMPARE_ORDER,
      compares.map((compare) => compare.status),
    ),
  }
}

/**
 * The run in one line, for the end of the console output (Vitest 4's bench summary is empty for
 * LLM benches): `LLM benches: 1 fail, 3 pass; 1 failed without a result; compares: 1 pass; sweeps: 1 pass`.
 */
export function runTallyLine(counts: RunCounts, unmeasured: number): string {
  const list = (statuses: ReadonlyArray<readonly [string, number]>): string =>
    statuses.map(([status, count]) => `${count} ${status}`).join(', ')
  const parts: string[] = []
  if (counts.benches > 0) parts.push(list(counts.benchStatuses))
  else if (counts.compares === 0) parts.push('none measured')
  if (unmeasured > 0) parts.push(`${unmeasured} failed without a result`)
  if (counts.compares > 0) parts.push(`compares: ${list(counts.compareStatuses)}`)
  if (counts.sweeps > 0) parts.push(`sweeps: ${list(counts.sweepStatuses)}`)
  return `LLM benches: ${parts.join('; ')}`
}
