import { accessSync, constants } from 'node:fs'
import path from 'node:path'

/**
 * How a launched server gets a process group of its own. Node's only way is `detached` (setsid: a
 * new session), and on Linux with CONFIG_SCHED_AUTOGROUP (most distributions) a new session is a
 * new scheduling group: the server's busy threads then get as much CPU as everything in the
 * benchmark's session together, and the client reads late. Measured with llama-server (`-t 2
 * -np 4`, 2 cores, 300 requests at 4 streams, perf/launch-lateness.ts): 31-98 of 300 requests read
 * more than 5 ms late with setsid, 12-20 in the benchmark's own session. So where perl is found
 * (Debian's perl-base is essential, macOS ships it) the server is started through a one-line perl
 * `setpgrp` + `exec`: its own process group (one signal reaches its workers; Ctrl-C in the terminal
 * does not), the same session, the same pid. Elsewhere: setsid.
 */
export interface GroupLaunch {
  command: string
  args: string[]
  /** Node's `detached` (setsid). */
  detached: boolean
}

/** Exit status of the perl launcher when the server's program cannot be run. */
export const LAUNCHER_CANNOT_RUN = 127
/** The launcher's message then, followed by the program and the system's reason. */
export const LAUNCHER_CANNOT_RUN_PREFIX = 'vitest-llm-bench: cannot run'

const PERL_SETPGRP = `setpgrp(0, 0); exec { $ARGV[0] } @ARGV or do { print STDERR "${LAUNCHER_CANNOT_RUN_PREFIX} $ARGV[0]: $!\\n"; exit ${LAUNCHER_CANNOT_RUN} }`

let perl: string | null | undefined

/** `perl` on PATH, or null; looked up once. */
function findPerl(): string | null {
  if (perl !== undefined) return perl
  perl = null
  if (process.platform === 'win32' || process.env.LLM_BENCH_SETSID === '1') return perl
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue
    const candidate = path.join(dir, 'perl')
    try {
      accessSync(candidate, constants.X_OK)
      perl = candidate
      break
    } catch {
      // not here
    }
  }
  return perl
}

/** The command that starts `command args` as the leader of its own process group. */
export function groupLaunch(command: string, args: readonly string[]): GroupLaunch {
  const found = findPerl()
  if (found === null) return { command, args: [...args], detached: true }
  return { command: found, args: ['-e', PERL_SETPGRP, command, ...args], detached: false }
}
