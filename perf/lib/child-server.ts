import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** A server running in its own process, so its CPU never counts as the client's. */
export interface ChildServer {
  url: string
  pid: number
  /** CPU time the server process used so far (user + system), microseconds, from /proc (10 ms ticks). */
  cpuUs(): number
  close(): Promise<void>
}

const ENTRY = fileURLToPath(new URL('./server-process.ts', import.meta.url))
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100

function procCpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 14 and 15 (utime, stime) of the stat line; 12 and 13 after the name.
    return ((Number(fields[11]) + Number(fields[12])) / USER_HZ) * 1e6
  } catch {
    return NaN
  }
}

/**
 * Starts `kind` (`scripted` or `sim`) with `options` in a child Node process and waits for its URL.
 * `processes` > 1 (default `$PERF_SERVER_PROCESSES`, else 1; scripted only) starts that many
 * processes on one port (SO_REUSEPORT), for machines where one server process would be the limit;
 * `cpuUs` then sums them. The scripted server's write log is per process: timing runs use one.
 */
export async function startChildServer(
  kind: 'scripted' | 'sim',
  options: Record<string, unknown> = {},
  processes = serverProcessesFromEnv(),
): Promise<ChildServer> {
  if (processes <= 1 || kind !== 'scripted') return startOne(kind, options)
  const first = await startOne(kind, { ...options, reusePort: true })
  const port = Number(new URL(first.url).port)
  const rest = await Promise.all(
    Array.from({ length: processes - 1 }, () => startOne(kind, { ...options, port, reusePort: true })),
  )
  const all = [first, ...rest]
  return {
    url: first.url,
    pid: first.pid,
    cpuUs: () => all.reduce((sum, server) => sum + server.cpuUs(), 0),
    close: async () => {
      await Promise.all(all.map((server) => server.close()))
    },
  }
}

function serverProcessesFromEnv(): number {
  const n = Number(process.env.PERF_SERVER_PROCESSES ?? '1')
  return Number.isInteger(n) && n >= 1 ? n : 1
}

async function startOne(kind: 'scripted' | 'sim', options: Record<string, unknown>): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, [ENTRY, kind, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let seen = ''
    // Keep reading after the URL: a closed pipe would kill the server on its next line.
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += String(chunk)
      const match = /listening (http:\/\/\S+)/.exec(seen)
      if (match?.[1]) resolve(match[1])
    })
    child.once('exit', (code) =>
      reject(new Error(`the ${kind} server exited (${String(code)}) before printing its URL`)),
    )
  })
  const pid = child.pid as number
  return {
    url,
    pid,
    cpuUs: () => procCpuUs(pid),
    close: async () => {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}
