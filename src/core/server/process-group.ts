import { readdirSync } from 'node:fs'
import { procStatFields } from '../platform/proc-stat.ts'

/**
 * A launched server leads its own process group (spawned detached), so one signal to `-pgid`
 * reaches the server and every worker it forked (vLLM's engine core, tensor-parallel workers).
 */

const isWindows = typeof process !== 'undefined' && process.platform === 'win32'

/** Sends a signal to every process of the group; false when the group is gone. Never throws. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    // Windows has no process groups: the leader alone is signalled there.
    process.kill(isWindows ? pgid : -pgid, signal)
    return true
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM'
  }
}

/**
 * True while a live (not zombie) process belongs to the group. A zombie still counts for
 * `kill(-pgid, 0)` until its parent reaps it, and a container's PID 1 may never do so; on Linux
 * the process table says which members are zombies.
 */
export function isProcessGroupAlive(pgid: number): boolean {
  if (!signalProcessGroup(pgid, 0)) return false
  const members = processGroupMembers(pgid)
  return members === undefined || members.some((member) => member.state !== 'Z')
}

/** Members of a group from `/proc` (Linux), or undefined where there is no `/proc`. */
function processGroupMembers(pgid: number): Array<{ pid: number; state: string }> | undefined {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return undefined
  }
  const members: Array<{ pid: number; state: string }> = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const fields = procStatFields(entry)
    if (fields === undefined) continue
    if (Number(fields[2]) === pgid) members.push({ pid: Number(entry), state: fields[0] ?? '?' })
  }
  return members
}

/** Resolves true once the group is gone, false when `timeoutMs` passes first. */
async function waitForProcessGroupExit(pgid: number, timeoutMs: number, pollMs = 50): Promise<boolean> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    if (!isProcessGroupAlive(pgid)) return true
    const left = deadline - performance.now()
    if (left <= 0) return false
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, left)))
  }
}

/** How a group was ended. */
export interface TerminationOutcome {
  /** True when SIGKILL was needed (the group outlived the grace period). */
  forced: boolean
  /** True when a process was still there after SIGKILL and the wait that followed (unkillable, e.g. stuck in the kernel). */
  survived: boolean
}

/**
 * SIGTERM to the group, then SIGKILL when it is still there after `graceMs`. The SIGTERM is sent
 * before the first `await`, so a caller that cannot wait (a signal handler) has still sent it. A
 * SIGCONT follows it: a stopped process (SIGSTOP, a debugger, a frozen container) holds SIGTERM
 * pending until it runs again, and would cost the whole grace before the SIGKILL.
 */
export async function terminateProcessGroup(
  pgid: number,
  options: { graceMs: number; killWaitMs?: number },
): Promise<TerminationOutcome> {
  if (!signalProcessGroup(pgid, 'SIGTERM')) return { forced: false, survived: false }
  if (!isWindows) signalProcessGroup(pgid, 'SIGCONT')
  if (await waitForProcessGroupExit(pgid, options.graceMs)) return { forced: false, survived: false }
  signalProcessGroup(pgid, 'SIGKILL')
  const gone = await waitForProcessGroupExit(pgid, options.killWaitMs ?? 5000)
  return { forced: true, survived: !gone }
}
