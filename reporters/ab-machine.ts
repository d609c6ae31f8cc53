/**
 * How busy the machine was while an `ab` run measured, in one sentence for a reviewer: how many trials the
 * self-check found disturbed, the most common reason, and the largest steal (the hypervisor's share of the CPU).
 */
import type { ArmFile } from '../src/bench/arm-file.ts'

/** How busy the machine was over an `ab` run's trials. */
export interface AbMachine {
  /** Trials measured (both arms, every pair). */
  trials: number
  /** Trials the self-check found measured on a disturbed machine. */
  disturbed: number
  /** The reason most often given for a disturbed trial; absent when none was. */
  mostOften?: string
  /** The largest share of CPU time the hypervisor took in any trial, 0..1; absent where not measured. */
  stealShareMax?: number
}

/** The {@link AbMachine} of an `ab` run's arm files. */
export function abMachineOf(files: readonly ArmFile[]): AbMachine {
  const reasons = new Map<string, number>()
  let disturbed = 0
  let stealShareMax: number | undefined
  for (const file of files) {
    const check = file.result.client.selfCheck
    if (check === undefined) continue
    if (check.disturbed.length > 0) disturbed++
    for (const reason of check.disturbed) reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
    if (check.stealShare !== undefined) stealShareMax = Math.max(stealShareMax ?? 0, check.stealShare)
  }
  const mostOften = [...reasons.entries()].sort((a, b) => b[1] - a[1])[0]?.[0]
  return {
    trials: files.length,
    disturbed,
    ...(mostOften !== undefined ? { mostOften } : {}),
    ...(stealShareMax !== undefined ? { stealShareMax } : {}),
  }
}

/** `Machine: 1 of 6 trials measured on a disturbed machine (…); steal at most 6.0 %.` */
export function abMachineLine(machine: AbMachine): string {
  const trials = `${machine.trials} trial${machine.trials === 1 ? '' : 's'}`
  const count = machine.disturbed === 0 ? `none of ${trials}` : `${machine.disturbed} of ${trials}`
  const why = machine.mostOften === undefined ? '' : ` (${machine.mostOften})`
  const steal =
    machine.stealShareMax === undefined || machine.stealShareMax < 0.005
      ? ''
      : `; steal at most ${(machine.stealShareMax * 100).toFixed(1)} %`
  return `Machine: ${count} measured on a disturbed machine${why}${steal}.`
}
