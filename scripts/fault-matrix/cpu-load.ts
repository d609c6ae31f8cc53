// The machine's load around the matrix: CPU-bound busy loops beside it (`--hogs N`) and the hypervisor's steal
// over the run, from /proc/stat as perf/lib/llama-bench-run.ts measures it (its reader is not exported).
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** Total and steal jiffies of the `cpu` line of /proc/stat; undefined off Linux. */
export interface CpuTimes {
  total: number
  steal: number
}

/** Reads the `cpu` line of /proc/stat. */
export function cpuTimes(): CpuTimes | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? []
    return { total: fields.slice(0, 8).reduce((sum, value) => sum + value, 0), steal: fields[7] ?? 0 }
  } catch {
    return undefined
  }
}

/** Share (0..1) of all CPU time the hypervisor took between two readings; undefined when unknown. */
export function stealBetween(before: CpuTimes | undefined, after: CpuTimes | undefined): number | undefined {
  if (!before || !after || after.total <= before.total) return undefined
  return (after.steal - before.steal) / (after.total - before.total)
}

/** Busy loops started beside the matrix, stopped by their PIDs. */
export class Hogs {
  readonly #children: ChildProcess[]

  constructor(count: number) {
    this.#children = Array.from({ length: count }, () =>
      spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
    )
  }

  /** Their PIDs, which the rows' process scans leave out. */
  get pids(): Set<number> {
    return new Set(this.#children.map((child) => child.pid).filter((pid): pid is number => pid !== undefined))
  }

  /** SIGKILLs each by its PID; safe to call more than once. */
  stop(): void {
    for (const child of this.#children) {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(child.pid, 'SIGKILL')
        } catch {
          // Already gone.
        }
      }
    }
  }
}
