/**
 * One measured point of a bench's history, from a committed baseline entry or from a results.json
 * a CI run kept, and the figures a history follows.
 */
import type { BaselineEntry, LatencyMetric } from '../baseline/baseline-entry.ts'
import { METRIC_CATALOG } from '../contract/metric-catalog.ts'
import { baselineConfigOf, hashConfig, type BaselineConfig } from '../baseline/config-hash.ts'
import { fingerprintOf, type Fingerprint } from '../baseline/fingerprint.ts'
import { launchOf, type StoredLaunch } from '../baseline/software-changes.ts'
import type { BenchmarkResult } from '../contract/result.ts'

/** A followed latency statistic, labelled and unitised as the catalog says (`TTFT p50`, ms). */
function latencyFigure<
  const Key extends string,
  const Metric extends LatencyMetric,
  const Statistic extends 'p50' | 'p99',
>(key: Key, metric: Metric, statistic: Statistic) {
  const { label, unit } = METRIC_CATALOG[metric]
  return { key, label: `${label} ${statistic}`, unit, metric, statistic }
}

/** A followed run-level throughput, labelled and unitised as the catalog says. */
function throughputFigure<const Name extends 'outputTokensPerSec' | 'requestsPerSec'>(name: Name) {
  const { label, unit } = METRIC_CATALOG[name]
  return { key: name, label, unit, throughput: name }
}

/**
 * The figures a history follows: the latencies and throughputs the default gates judge, and the tails
 * beside them. A selection: a metric added to the catalog gets no history series until it is named here.
 */
export const HISTORY_FIGURES = [
  latencyFigure('ttftP50', 'ttftMs', 'p50'),
  latencyFigure('ttftP99', 'ttftMs', 'p99'),
  latencyFigure('tpotP50', 'tpotMs', 'p50'),
  latencyFigure('itlP50', 'itlMs', 'p50'),
  latencyFigure('e2eP50', 'e2eMs', 'p50'),
  latencyFigure('e2eP99', 'e2eMs', 'p99'),
  throughputFigure('outputTokensPerSec'),
  throughputFigure('requestsPerSec'),
] as const

/** One followed figure's key, e.g. `ttftP50`. */
export type HistoryFigureKey = (typeof HISTORY_FIGURES)[number]['key']

/** One point of a bench's history. */
export interface HistoryPoint {
  /** Where it comes from: a commit that changed the bench's baseline entry, or a kept results.json. */
  source: 'baseline' | 'results'
  /** ISO 8601: the commit's committer date, or when the run started (results). */
  date: string
  /** The commit's short hash (baseline points). */
  commit?: string
  /** The commit's subject line (baseline points). */
  subject?: string
  /** The results.json it was read from, as given on the command line (results points). */
  resultsFile?: string
  /** Milliseconds for latencies, per second for throughputs; a figure the run did not measure is absent. */
  figures: Partial<Record<HistoryFigureKey, number>>
  fingerprint: Fingerprint
  /** How the server was launched (absent for a connected server). */
  launch?: StoredLaunch
  /** Hash of the measured configuration (workload, load, target kind): another hash measures another thing. */
  configHash: string
  /** That configuration, where it was kept (large ones keep only the hash). */
  config?: BaselineConfig
  /** What disturbed the machine while the point was measured, when its self-check said so. */
  disturbed?: string[]
}

/** A bench's points in time order, as one series: one bench of one bench file, on one machine lane. */
export interface BenchHistory {
  /** The bench file (relative to the repository root), or the baseline file where it cannot be told. */
  benchFile: string
  /** The bench's full name. */
  name: string
  /** Set for a bench also recorded on other machines (`otherMachines`): the machine this lane follows. */
  machine?: string
  points: HistoryPoint[]
}

type Figures = HistoryPoint['figures']

function figuresOf(
  latency: (metric: LatencyMetric) => { count: number; p50: number; p99: number } | undefined,
  throughput: (name: 'outputTokensPerSec' | 'requestsPerSec') => number | undefined,
): Figures {
  const figures: Figures = {}
  for (const figure of HISTORY_FIGURES) {
    if ('metric' in figure) {
      const summary = latency(figure.metric)
      // A metric with no sample (ITL of one-token answers) is no figure, not a zero.
      if (summary !== undefined && summary.count > 0) figures[figure.key] = summary[figure.statistic]
    } else {
      const value = throughput(figure.throughput)
      if (value !== undefined && Number.isFinite(value)) figures[figure.key] = value
    }
  }
  return figures
}

/** The point of a committed baseline entry (one machine's entry, without `otherMachines`). */
export function pointOfEntry(
  entry: BaselineEntry,
  commit: { date: string; commit: string; subject: string },
): HistoryPoint {
  const point: HistoryPoint = {
    source: 'baseline',
    ...commit,
    figures: figuresOf(
      (metric) => entry.metrics[metric],
      (name) => entry.throughput[name].value,
    ),
    fingerprint: entry.fingerprint,
    configHash: entry.configHash,
  }
  if (entry.config) point.config = entry.config
  if (entry.launch) point.launch = entry.launch
  if (entry.provisional && entry.provisional.length > 0) point.disturbed = [...entry.provisional]
  return point
}

/** The point of a bench's result in a kept results.json. */
export function pointOfResult(result: BenchmarkResult, resultsFile: string): HistoryPoint {
  const config = baselineConfigOf(result.config)
  const point: HistoryPoint = {
    source: 'results',
    date: result.startedAt,
    resultsFile,
    figures: figuresOf(
      (metric) => result.metrics[metric],
      (name) => result.throughput[name],
    ),
    fingerprint: fingerprintOf(result.environment),
    configHash: hashConfig(config),
    config,
  }
  const launch = launchOf(result)
  if (launch) point.launch = launch
  const disturbed = result.client.selfCheck?.disturbed ?? []
  if (disturbed.length > 0) point.disturbed = [...disturbed]
  return point
}
