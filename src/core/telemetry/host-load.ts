import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import type { SelfCheck } from '../types.ts'

/** Clock ticks per second of `/proc` CPU times (USER_HZ: 100 on every mainstream Linux architecture). */
const TICKS_PER_SECOND = 100

/** CPU time the machine, this process and the launched server had used, in ticks. */
interface CpuTimes {
  busy: number
  total: number
  steal: number
  own: number | undefined
  server: number
}

/**
 * What other work did on this machine over a window, as {@link HostLoadWatch.stop} returns it.
 * `otherCores` is undefined where `/proc` cannot say (not Linux), or when the server runs on this
 * machine but was not launched by the bench (its use cannot be told apart from other work).
 */
export type HostLoad = Pick<SelfCheck, 'cores' | 'otherCores' | 'stealShare' | 'loadAverage1m'>

/** A window being watched: {@link startHostLoad}. */
export interface HostLoadWatch {
  stop(): HostLoad
}

function readStat(): { busy: number; total: number; steal: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? ''
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number)
    const busy = user + nice + system + irq + softirq + steal
    return { busy, total: busy + idle + iowait, steal }
  } catch {
    return undefined
  }
}

/** utime + stime of every process of the group, ticks; 0 when none is found. */
function groupTicks(pgid: number | undefined): number {
  if (pgid === undefined) return 0
  let ticks = 0
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return 0
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // Fields after the command name (which may hold spaces), from field 3 (state) on.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) !== pgid) continue
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks
}

/** This process's CPU time in ticks; undefined where the runtime cannot say. */
function ownTicks(): number | undefined {
  try {
    const usage = process.cpuUsage()
    return ((usage.user + usage.system) / 1e6) * TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

function sample(serverPgid: number | undefined): CpuTimes | undefined {
  const stat = readStat()
  if (stat === undefined) return undefined
  return { ...stat, own: ownTicks(), server: groupTicks(serverPgid) }
}

/**
 * Starts watching what else the machine does: CPU used outside this process and the launched
 * server (from `/proc/stat` and `/proc/<pid>/stat`), hypervisor steal and the load average.
 *
 * @param options.serverPgid Process group of a server the bench launched on this machine.
 * @param options.localUnknownServer True when the target runs on this machine but was not launched
 *   by the bench: its CPU cannot be told apart from other work, so `otherCores` is left out.
 */
export function startHostLoad(options: { serverPgid?: number; localUnknownServer?: boolean } = {}): HostLoadWatch {
  const before = sample(options.serverPgid)
  return {
    stop(): HostLoad {
      const cores = os.cpus().length || 1
      let loadAverage1m = 0
      try {
        loadAverage1m = os.loadavg()[0] ?? 0
      } catch {
        // A runtime without load averages: shown as 0, never judged.
      }
      const after = sample(options.serverPgid)
      if (before === undefined || after === undefined || !(after.total > before.total)) return { cores, loadAverage1m }
      const total = after.total - before.total
      const load: HostLoad = { cores, loadAverage1m, stealShare: (after.steal - before.steal) / total }
      if (!options.localUnknownServer && before.own !== undefined && after.own !== undefined) {
        const others = after.busy - before.busy - (after.own - before.own) - (after.server - before.server)
        load.otherCores = Math.max(0, (others / total) * cores)
      }
      return load
    },
  }
}
