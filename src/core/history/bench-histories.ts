/**
 * Bench histories from the committed versions of the baseline files and the kept results: one
 * series per bench (and per extra machine a bench file records it on), points in time order.
 */
import { relative, resolve } from 'node:path'
import { BASELINE_DIR } from '../baseline/baseline-path.ts'
import { describeMachine, machineEntriesOf } from '../baseline/machine-entries.ts'
import { diffMachine } from '../baseline/fingerprint.ts'
import { stableStringify } from '../platform/stable-stringify.ts'
import type { BaselineFileHistory } from './git-baselines.ts'
import { pointOfEntry, pointOfResult, type BenchHistory } from './history-point.ts'
import type { KeptResult } from './results-folder.ts'

/** `benches/__llm_baselines__/chat.bench.ts.json` -> `benches/chat.bench.ts`; other paths are kept. */
export function benchFileOf(baselinePath: string): string {
  const match = new RegExp(`^(.*?)${BASELINE_DIR}/(.+)\\.json$`).exec(baselinePath)
  return match ? `${match[1] ?? ''}${match[2] ?? ''}` : baselinePath
}

/**
 * One history per bench and machine lane: the file's own entry is one lane whatever its machine
 * (a machine replaced by hand shows as a change in it); each `otherMachines` entry is a lane of
 * its machine. A commit is a point of a lane only when it changed that lane's entry.
 */
export function historiesOfBaselines(files: readonly BaselineFileHistory[]): BenchHistory[] {
  const lanes = new Map<string, BenchHistory & { last: string }>()
  for (const file of files) {
    const benchFile = benchFileOf(file.path)
    for (const version of file.versions) {
      for (const [name, stored] of Object.entries(version.file.entries)) {
        machineEntriesOf(stored).forEach((entry, index) => {
          const machine = index === 0 ? undefined : describeMachine(entry.fingerprint)
          const key = `${benchFile}\0${name}\0${machine ?? ''}`
          const text = stableStringify(entry)
          let lane = lanes.get(key)
          if (lane?.last === text) return
          if (!lane) {
            lane = { benchFile, name, points: [], last: text, ...(machine ? { machine } : {}) }
            lanes.set(key, lane)
          }
          lane.last = text
          lane.points.push(pointOfEntry(entry, version))
        })
      }
    }
  }
  // A bench's lanes side by side: by bench file, name, then machine (the file's own entry first).
  return [...lanes.values()]
    .map(({ last: _last, ...history }) => history)
    .sort(
      (a, b) =>
        a.benchFile.localeCompare(b.benchFile) ||
        a.name.localeCompare(b.name) ||
        (a.machine ?? '').localeCompare(b.machine ?? ''),
    )
}

function time(date: string): number {
  const ms = Date.parse(date)
  return Number.isNaN(ms) ? 0 : ms
}

/**
 * `histories` with each kept result added to the lane of its bench (same bench file and name; the
 * lane of its machine where the bench has several), or to a lane of its own; points sorted by time.
 * `root` is the repository root the bench files are relative to, `projectRoot` the folder the runs'
 * bench files are relative to.
 */
export function withKeptResults(
  histories: readonly BenchHistory[],
  kept: readonly KeptResult[],
  root: string,
  projectRoot: string,
): BenchHistory[] {
  const out = histories.map((history) => ({ ...history, points: [...history.points] }))
  for (const entry of kept) {
    const point = pointOfResult(entry.result, entry.resultsFile)
    const benchFile = entry.file === '' ? '' : resolve(projectRoot, entry.file)
    const candidates = out.filter(
      (history) => history.name === entry.name && (benchFile === '' || resolve(root, history.benchFile) === benchFile),
    )
    const lane =
      candidates.find(
        (history) =>
          history.machine !== undefined &&
          history.points.some((p) => diffMachine(p.fingerprint, point.fingerprint).length === 0),
      ) ?? candidates.find((history) => history.machine === undefined)
    if (lane) lane.points.push(point)
    else out.push({ benchFile: benchFile === '' ? '' : relative(root, benchFile), name: entry.name, points: [point] })
  }
  for (const history of out) history.points.sort((a, b) => time(a.date) - time(b.date))
  return out
}
