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
