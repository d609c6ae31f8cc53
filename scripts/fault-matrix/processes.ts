// The processes a row started, found in /proc: by the marker variable in their environment (or its prefix),
// naming the row's folder, or by a working directory inside it. Zombies (exited, not yet reaped) do not count.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/** One live process a row left behind. */
export interface RowProcess {
  pid: number
  /** The command line, arguments joined by spaces (cut to 160 characters). */
  args: string
  /** `R`, `S`, `T` (stopped), ... */
  state: string
}

function read(path: string): string {
  try {
    return readFileSync(path, 'latin1')
  } catch {
    return ''
  }
}

/** Live processes carrying `marker` in their environment, or naming or running in `dir`. This process excluded. */
export function processesOf(marker: string, dir: string, exclude: ReadonlySet<number> = new Set()): RowProcess[] {
  const found: RowProcess[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    if (pid === process.pid || exclude.has(pid)) continue
    const stat = read(`/proc/${entry}/stat`)
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '?'
    if (stat === '' || state === 'Z' || state === 'X') continue
    const args = read(`/proc/${entry}/cmdline`).split('\0').filter(Boolean).join(' ')
    let cwd = ''
    try {
      cwd = readlinkSync(`/proc/${entry}/cwd`)
    } catch {
      // Ended meanwhile, or a kernel thread.
    }
    const mine =
      read(`/proc/${entry}/environ`)
        .split('\0')
        .some((v) => v.startsWith(marker)) ||
      args.includes(dir) ||
      cwd === dir ||
      cwd.startsWith(`${dir}/`)
    if (mine) found.push({ pid, args: args.slice(0, 160), state })
  }
  return found
}

/** Waits up to `withinMs` for the row's processes to end; returns those still alive then. */
export async function processesLeft(
  marker: string,
  dir: string,
  withinMs: number,
  exclude: ReadonlySet<number> = new Set(),
): Promise<RowProcess[]> {
  const deadline = performance.now() + withinMs
  for (;;) {
    const left = processesOf(marker, dir, exclude)
    if (left.length === 0 || performance.now() >= deadline) return left
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** SIGKILLs every process of the row (a stopped one too): the last resort after a check, never a check itself. */
export function killRowProcesses(marker: string, dir: string, exclude: ReadonlySet<number> = new Set()): number {
  let killed = 0
  for (const row of processesOf(marker, dir, exclude)) {
    try {
      process.kill(row.pid, 'SIGKILL')
      killed++
    } catch {
      // Already gone.
    }
  }
  return killed
}

/** `N left: pid args; …` or `none left`, for a row's observed text. */
export function describeLeft(left: RowProcess[]): string {
  if (left.length === 0) return 'no process left'
  const listed = left.map((p) => `${p.pid} [${p.state}] ${p.args.slice(0, 60)}`)
  return `${left.length} process(es) left: ${listed.join('; ')}`
}
