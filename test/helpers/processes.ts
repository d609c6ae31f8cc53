import { readdirSync, readFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { afterEach, beforeEach } from 'vitest'
import { stopTrackedServers } from '../../src/core/server/shutdown-hooks.ts'

/** One row of the process table. */
export interface ProcessRow {
  pid: number
  pgid: number
  /** `R`, `S`, `Z` (zombie: exited, not yet reaped), ... */
  state: string
  /** The command line, arguments joined by spaces. */
  args: string
}

/** The process table, from /proc (Linux) or `ps -eo pid,pgid,stat,args`. */
export function listProcesses(): ProcessRow[] {
  try {
    return fromProc()
  } catch {
    return fromPs()
  }
}

/** Live (not zombie) processes whose command line contains `marker`, this process excluded. */
export function processesWith(marker: string): ProcessRow[] {
  return listProcesses().filter((row) => row.pid !== process.pid && row.state !== 'Z' && row.args.includes(marker))
}

/**
 * Throws, listing them, when live processes whose command line contains `marker` remain after
 * `withinMs` (a short wait absorbs the kernel reaping an exiting process).
 */
export async function expectNoProcessesWith(marker: string, withinMs = 2000): Promise<void> {
  const deadline = performance.now() + withinMs
  for (;;) {
    const left = processesWith(marker)
    if (left.length === 0) return
    if (performance.now() > deadline) {
      throw new Error(
        `Processes left running (marker ${marker}):\n${left.map((r) => `${r.pid} pgid=${r.pgid} ${r.state} ${r.args}`).join('\n')}`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Kills (SIGKILL) every process whose command line contains `marker`: a test's own last resort. */
export function killProcessesWith(marker: string): number {
  let killed = 0
  for (const row of processesWith(marker)) {
    try {
      process.kill(row.pid, 'SIGKILL')
      killed++
    } catch {
      // Already gone.
    }
  }
  return killed
}

function fromProc(): ProcessRow[] {
  const rows: ProcessRow[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
      rows.push({ pid: Number(entry), pgid: Number(fields[2]), state: fields[0] ?? '?', args })
    } catch {
      // The process ended while the table was read.
    }
  }
  return rows
}

function fromPs(): ProcessRow[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' })
  return out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), pgid: Number(m[2]), state: m[3]!.charAt(0), args: m[4]! }))
}

/**
 * A fresh marker for every test of the file (`<prefix>-<pid>-<n>`: put it in a launched server's command line),
 * and after each test the tracked servers stopped and no process left with it (those left are killed, and the
 * test fails naming them). Returns the current test's marker.
 */
export function markerPerTest(prefix: string): () => string {
  let marker = ''
  let sequence = 0
  beforeEach(() => {
    marker = `${prefix}-${process.pid}-${++sequence}`
  })
  afterEach(async () => {
    await stopTrackedServers()
    try {
      await expectNoProcessesWith(marker)
    } finally {
      killProcessesWith(marker)
    }
  })
  return () => marker
}
