/**
 * What moved in a bench's history: where its fingerprint or configuration changed (shown, never
 * judged) and the change points of each figure within the stretches between those changes.
 */
import { diffConfigs } from '../baseline/config-hash.ts'
import { diffMachine, diffSoftware } from '../baseline/fingerprint.ts'
import { launchChanges } from '../baseline/software-changes.ts'
import { changePoints, type ChangePoint, type ChangePointOptions } from './change-points.ts'
import { HISTORY_FIGURES, type BenchHistory, type HistoryFigureKey, type HistoryPoint } from './history-point.ts'

/** What changed between a point and the one before it, other than the code measured. */
export interface HistoryBoundary {
  /** Index of the first point measured after the change. */
  index: number
  /** GPU model or count, driver, CPU, runtime major: another machine. */
  machine: string[]
  /** Server name or version, model, launch command, arguments or environment. */
  software: string[]
  /** The bench's workload, load or target kind (its configuration hash). */
  config: string[]
}

/** A change point of one figure, indices into the history's points. */
export interface FigureChangePoint extends ChangePoint {
  figure: HistoryFigureKey
}

/** A bench history with its boundaries and change points. */
export interface HistoryAnalysis {
  history: BenchHistory
  /** Fingerprint and configuration changes, in point order. */
  boundaries: HistoryBoundary[]
  /** Change points of every figure, in point order. */
  changePoints: FigureChangePoint[]
}

/** What changed from `before` to `after`; undefined when nothing did. */
function boundaryOf(before: HistoryPoint, after: HistoryPoint, index: number): HistoryBoundary | undefined {
  const server = after.fingerprint.serverName ?? 'server'
  const software = [
    ...diffSoftware(before.fingerprint, after.fingerprint),
    ...launchChanges(server, before.launch, after.launch),
  ]
  const machine = diffMachine(before.fingerprint, after.fingerprint)
  const config =
    before.configHash === after.configHash
      ? []
      : before.config && after.config
        ? diffConfigs(before.config, after.config)
        : ['bench configuration changed (workload, load or target kind)']
  if (machine.length + software.length + config.length === 0) return undefined
  return { index, machine, software, config }
}

/**
 * Boundaries and change points of `history`. The series is split at every boundary and each
 * figure's change points are looked for within each stretch: a new GPU, driver, server version or
 * workload moves the figures by design and is shown as what it is, never taken for a regression.
 */
export function analyseHistory(history: BenchHistory, options: ChangePointOptions = {}): HistoryAnalysis {
  const { points } = history
  const boundaries: HistoryBoundary[] = []
  for (let i = 1; i < points.length; i++) {
    const boundary = boundaryOf(points[i - 1] as HistoryPoint, points[i] as HistoryPoint, i)
    if (boundary) boundaries.push(boundary)
  }
  const starts = [0, ...boundaries.map((boundary) => boundary.index), points.length]
  const found: FigureChangePoint[] = []
  for (let s = 0; s + 1 < starts.length; s++) {
    const [start, end] = [starts[s] as number, starts[s + 1] as number]
    for (const { key } of HISTORY_FIGURES) {
      const indices: number[] = []
      const values: number[] = []
      for (let i = start; i < end; i++) {
        const value = points[i]?.figures[key]
        if (value === undefined) continue
        indices.push(i)
        values.push(value)
      }
      for (const point of changePoints(values, options))
        found.push({ ...point, figure: key, index: indices[point.index] as number })
    }
  }
  const order = new Map(HISTORY_FIGURES.map(({ key }, i) => [key, i]))
  found.sort((a, b) => a.index - b.index || (order.get(a.figure) ?? 0) - (order.get(b.figure) ?? 0))
  return { history, boundaries, changePoints: found }
}
