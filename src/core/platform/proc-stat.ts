import { readFileSync } from 'node:fs'

/**
 * The fields of `/proc/<pid>/stat` after the command name, from field 3 (`state`) on: `[state, ppid, pgrp, …]`.
 * The command name may hold spaces and parentheses, so the fields are read after the last `)`. Undefined where the
 * file cannot be read (not Linux, the process ended).
 */
export function procStatFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/** Clock ticks per second of `/proc` CPU times (USER_HZ: 100 on every mainstream Linux architecture). */
export const PROC_TICKS_PER_SECOND = 100

/** CPU time a process has used, utime + stime (fields 14 and 15 of its stat), in ticks, from {@link procStatFields}. */
export const cpuTicksOf = (fields: readonly string[]): number => Number(fields[11]) + Number(fields[12])
