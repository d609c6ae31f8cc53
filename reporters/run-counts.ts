import { entryStatus, type EntryStatus, type ReportEntry } from './report-entry.ts'
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
}

const BENCH_ORDER = ['fail', 'inconclusive', 'pass', 'skipped'] as const
const SWEEP_ORDER = ['fail', 'inconclusive', 'pass', 'skipped'] as const

function tally<S extends string>(order: readonly S[], statuses: readonly S[]): Array<readonly [S, number]> {
  return order
    .map((status) => [status, statuses.filter((candidate) => candidate === status).length] as const)
    .filter(([, count]) => count > 0)
}

/** The counts of a run's entries and sweeps (see {@link RunCounts}). */
export function runCounts(
  entries: readonly ReportEntry[],
  sweeps: readonly Pick<SweepSummary, 'state' | 'checks' | 'baselineState'>[] = [],
): RunCounts {
  const benches = entries.filter((entry) => !entry.sweep)
  return {
    benches: benches.length,
    benchStatuses: tally(BENCH_ORDER, benches.map(entryStatus) as Array<(typeof BENCH_ORDER)[number]>),
    sweeps: sweeps.length,
    sweepStatuses: tally(SWEEP_ORDER, sweeps.map(sweepStatus)),
  }
}

/**
 * The run in one line, for the end of the console output (Vitest 4's bench summary is empty for
 * LLM benches): `LLM benches: 1 fail, 3 pass; 1 failed without a result; sweeps: 1 pass`.
 */
export function runTallyLine(counts: RunCounts, unmeasured: number): string {
  const list = (statuses: RunCounts['benchStatuses'] | RunCounts['sweepStatuses']): string =>
    statuses.map(([status, count]) => `${count} ${status}`).join(', ')
  const parts = [`LLM benches: ${counts.benches > 0 ? list(counts.benchStatuses) : 'none measured'}`]
  if (unmeasured > 0) parts.push(`${unmeasured} failed without a result`)
  if (counts.sweeps > 0) parts.push(`sweeps: ${list(counts.sweepStatuses)}`)
  return parts.join('; ')
}
