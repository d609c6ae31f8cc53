import type { BaselineEntry } from './baseline-entry.ts'
import { diffMachine, type Fingerprint } from './fingerprint.ts'

/**
 * A bench's stored entries, one per machine it was recorded on: the file's entry first, then its
 * `otherMachines` (each without a list of its own).
 */
export function machineEntriesOf(entry: BaselineEntry): BaselineEntry[] {
  const { otherMachines, ...first } = entry
  return [first, ...(otherMachines ?? [])]
}

/** Same GPU model and count, driver, CPU and runtime major: one machine, whatever else differs. */
function sameMachine(a: Fingerprint, b: Fingerprint): boolean {
  return diffMachine(a, b).length === 0
}

/** The entry recorded on `machine` (same GPU model and count, driver, CPU, runtime major); undefined when none was. */
export function entryForMachine(entry: BaselineEntry, machine: Fingerprint): BaselineEntry | undefined {
  return machineEntriesOf(entry).find((candidate) => sameMachine(candidate.fingerprint, machine))
}

/**
 * The file's entry for a bench with `recorded` in place of the entry of the same machine, or beside the
 * others when its machine had none: every machine keeps its own baseline.
 */
export function withMachineEntry(stored: BaselineEntry | undefined, recorded: BaselineEntry): BaselineEntry {
  const { otherMachines: _ignored, ...entry } = recorded
  if (stored === undefined) return entry
  const entries = machineEntriesOf(stored)
  const same = entries.findIndex((candidate) => sameMachine(candidate.fingerprint, entry.fingerprint))
  if (same >= 0) entries[same] = entry
  else entries.push(entry)
  const [first, ...others] = entries as [BaselineEntry, ...BaselineEntry[]]
  return others.length > 0 ? { ...first, otherMachines: others } : first
}

/** Of entries recorded on other machines, the one whose machine differs least from `machine`. */
export function closestMachineEntry(entries: readonly BaselineEntry[], machine: Fingerprint): BaselineEntry {
  // Field by field: GPU model and count are one change in diffMachine's words, two differences here.
  const changes = (entry: BaselineEntry) =>
    diffMachine(entry.fingerprint, machine).length +
    (entry.fingerprint.gpuModel !== machine.gpuModel ? 1 : 0) +
    (entry.fingerprint.gpuCount !== machine.gpuCount ? 1 : 0)
  return entries.reduce((best, entry) => (changes(entry) < changes(best) ? entry : best))
}

/** A machine in a few words, for messages: `GPU NVIDIA H200 x 2, CPU AMD EPYC 9654, node 24`. */
export function describeMachine(fingerprint: Fingerprint): string {
  const gpu =
    fingerprint.gpuCount === 0 ? 'no GPU' : `GPU ${fingerprint.gpuModel ?? 'unknown'} x ${fingerprint.gpuCount}`
  const driver = fingerprint.driverVersion ? ` (driver ${fingerprint.driverVersion})` : ''
  const cpu = fingerprint.cpuModel ? `, CPU ${fingerprint.cpuModel}` : ''
  return `${gpu}${driver}${cpu}, ${fingerprint.runtimeName} ${fingerprint.runtimeVersion.replace(/^v/, '').split('.')[0]}`
}
