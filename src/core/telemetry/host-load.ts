import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import type { SelfCheck } from '../contract/result.ts'
import { cpuTicksOf, PROC_TICKS_PER_SECOND, procStatFields } from '../platform/proc-stat.ts'

/** CPU time the machine, this process and the launched server had used, in ticks. */
interface CpuTimes {
  busy: number
  total: number
  steal: number
  own: number | undefined
  server: number
  /** Every other process by pid: its command name and CPU ticks so far. */
  others: Map<number, { command: string; ticks: number }>
}

/** How many of the busiest other processes a {@link HostLoad} names. */
const BUSIEST_NAMED = 3
/** Processes that used less than this many cores over a window are not named. */
const BUSIEST_MIN_CORES = 0.05

/**
 * What other work did on this machine over a window, as {@link HostLoadWatch.stop} returns it.
 * `otherCores` is undefined where `/proc` cannot say (not Linux), or when the server runs on this
 * machine but was not launched by the bench (its use cannot be told apart from other work).
 */
export type HostLoad = Pick<SelfCheck, 'cores' | 'otherCores' | 'busiestOthers' | 'stealShare' | 'loadAverage1m'>

/** A window being watched: {@link startHostLoad}. */
export interface HostLoadWatch {
  stop(): HostLoad
}

function readStat(): { busy: number; total: number; steal: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? ''
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number)
    const busy = user + nice + system + irq + softirq + steal
    return { busy, total: busy + idle + iowait, steal }
  } catch {
    return undefined
  }
}

/**
 * The file name of a process's program (argv[0] without its folder), never its arguments, which may
 * hold secrets. Not the name in /proc/<pid>/stat: Node renames its main thread "MainThread".
 */
function commandName(pid: string): string | undefined {
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0', 1)[0] ?? ''
    const name = argv0.slice(argv0.lastIndexOf('/') + 1)
    return name.length > 0 ? name.slice(0, 40) : undefined
  } catch {
    return undefined
  }
}

/**
 * CPU ticks (utime + stime) of the launched server's process group and of `ours` (counted with it: not other work),
 * and of every other process but this one, by pid with its command name ({@link commandName}).
 */
function processTicks(
  serverPgid: number | undefined,
  ours: ReadonlySet<number>,
): { server: number; others: CpuTimes['others'] } {
  const others: CpuTimes['others'] = new Map()
  let server = 0
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return { server, others }
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    if (pid === process.pid) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const open = stat.indexOf('(')
      const close = stat.lastIndexOf(')')
      // Fields after the command name (which may hold spaces), from field 3 (state) on.
      const fields = stat.slice(close + 2).split(' ')
      const ticks = cpuTicksOf(fields)
      if ((serverPgid !== undefined && Number(fields[2]) === serverPgid) || ours.has(pid)) server += ticks
      else others.set(pid, { command: commandName(entry) ?? stat.slice(open + 1, close), ticks })
    } catch {
      // The process ended meanwhile.
    }
  }
  return { server, others }
}

/** This process's CPU time in ticks; undefined where the runtime cannot say. */
function ownTicks(): number | undefined {
  try {
    const usage = process.cpuUsage()
    return ((usage.user + usage.system) / 1e6) * PROC_TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

function sample(serverPgid: number | undefined, ours: ReadonlySet<number>): CpuTimes | undefined {
  const stat = readStat()
  if (stat === undefined) return undefined
  return { ...stat, own: ownTicks(), ...processTicks(serverPgid, ours) }
}

/** The processes that started this one, parent first, up to (not including) init: npx, `npm exec`, a node wrapper. */
function ancestors(): Set<number> {
  const found = new Set<number>()
  let pid = process.ppid
  while (pid > 1 && !found.has(pid)) {
    found.add(pid)
    const ppid = procStatFields(pid)?.[1]
    if (ppid === undefined) break
    pid = Number(ppid)
  }
  return found
}

/** The other processes that used the most CPU between two samples, busiest first, in cores. */
function busiestOthers(
  before: CpuTimes['others'],
  after: CpuTimes['others'],
  ticksPerCore: number,
): NonNullable<HostLoad['busiestOthers']> {
  const used: NonNullable<HostLoad['busiestOthers']> = []
  for (const [pid, { command, ticks }] of after) {
    // A process started during the window counts from zero.
    const cores = (ticks - (before.get(pid)?.ticks ?? 0)) / ticksPerCore
    if (cores >= BUSIEST_MIN_CORES) used.push({ pid, command, cores })
  }
  return used.sort((a, b) => b.cores - a.cores).slice(0, BUSIEST_NAMED)
}

/**
 * Starts watching what else the machine does: CPU used outside this process and the launched
 * server (from `/proc/stat` and `/proc/<pid>/stat`), hypervisor steal and the load average.
 *
 * @param options.serverPgid Process group of a server the bench launched on this machine.
 * @param options.localUnknownServer True when the target runs on this machine but was not launched
 *   by the bench: its CPU cannot be told apart from other work, so `otherCores` is left out.
 * @param options.withAncestors True to count the processes that started this one (npx and `npm exec` start up
 *   while a run begins) as this run's, not as other work.
 * @param options.serverPid The process of a server on this machine that the bench did not launch but found by its
 *   listening port: counted as the server's, not as other work.
 */
export function startHostLoad(
  options: { serverPgid?: number; serverPid?: number; localUnknownServer?: boolean; withAncestors?: boolean } = {},
): HostLoadWatch {
  const ours = options.withAncestors ? ancestors() : new Set<number>()
  if (options.serverPid !== undefined) ours.add(options.serverPid)
  const before = sample(options.serverPgid, ours)
  return {
    stop(): HostLoad {
      const cores = os.cpus().length || 1
      let loadAverage1m = 0
      try {
        loadAverage1m = os.loadavg()[0] ?? 0
      } catch {
        // A runtime without load averages: shown as 0, never judged.
      }
      const after = sample(options.serverPgid, ours)
      if (before === undefined || after === undefined || !(after.total > before.total)) return { cores, loadAverage1m }
      const total = after.total - before.total
      const load: HostLoad = { cores, loadAverage1m, stealShare: (after.steal - before.steal) / total }
      if (!options.localUnknownServer && before.own !== undefined && after.own !== undefined) {
        const others = after.busy - before.busy - (after.own - before.own) - (after.server - before.server)
        load.otherCores = Math.max(0, (others / total) * cores)
        const busiest = busiestOthers(before.others, after.others, total / cores)
        if (busiest.length > 0) load.busiestOthers = busiest
      }
      return load
    },
  }
}
