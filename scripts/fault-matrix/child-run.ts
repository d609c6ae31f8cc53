// One command of a row, in a process group of its own, with a bounded time: on expiry the whole group and every
// process carrying the row's marker are SIGKILLed and the run is marked timed out. Output is kept whole.
import { spawn } from 'node:child_process'
import { delimiter } from 'node:path'
import { killRowProcesses } from './processes.ts'

/** How one command ended. */
export interface Ran {
  /** Exit code; null when it ended by a signal. */
  rc: number | null
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null
  /** stdout and stderr, interleaved as they came. */
  output: string
  /** Wall time from spawn to exit, seconds. */
  seconds: number
  /** It ran past its limit and was killed. */
  timedOut: boolean
}

/** What a row passes to {@link startChild}. */
export interface ChildOptions {
  cwd: string
  /** `NAME=value` set in the child's environment, by which the row's processes are found in /proc. */
  marker: string
  /** Added to (and overriding) the cleaned environment. */
  env?: Record<string, string>
  /** Limit, milliseconds. */
  timeoutMs: number
  /** PIDs never to kill (the hogs). */
  exclude?: ReadonlySet<number>
  /** Called with each chunk of output and the milliseconds since spawn. */
  onOutput?: (text: string, atMs: number) => void
}

/** A started command. */
export interface Child {
  /** PID of the spawned process, which leads its process group. */
  pid: number
  /** Milliseconds since spawn. */
  elapsedMs(): number
  /** Sends `signal` to the process alone. */
  signal(signal: NodeJS.Signals): void
  /** Sends `signal` to its whole process group, as a terminal's Ctrl-C does. */
  signalGroup(signal: NodeJS.Signals): void
  /** The output so far. */
  output(): string
  done: Promise<Ran>
}

/** This environment without Vitest's, CI's and this repository's own bin folder (the row must use its project's). */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue
    if (key.startsWith('VITEST') || key.startsWith('npm_') || key.startsWith('LLM_BENCH_')) continue
    if (['CI', 'TEST', 'NODE_ENV', 'GITHUB_ACTIONS', 'INIT_CWD', 'NODE'].includes(key)) continue
    env[key] = value
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((part) => !part.endsWith('node_modules/.bin') && !part.includes('node-gyp-bin'))
    .join(delimiter)
  return env
}

/** Spawns `command args` detached (a process group of its own) under the row's marker. */
export function startChild(command: string, args: string[], options: ChildOptions): Child {
  const [markerName = 'FAULT_MATRIX_ROW', markerValue = ''] = options.marker.split('=')
  const started = performance.now()
  const child = spawn(command, args, {
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...cleanEnv(),
      CI: '',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      ...options.env,
      [markerName]: markerValue,
    },
  })
  const pid = child.pid ?? -1
  let output = ''
  let timedOut = false
  const onData = (chunk: Buffer): void => {
    const text = chunk.toString()
    output += text
    options.onOutput?.(text, performance.now() - started)
  }
  child.stdout?.on('data', onData)
  child.stderr?.on('data', onData)
  const kill = (signal: NodeJS.Signals, group: boolean): void => {
    try {
      process.kill(group ? -pid : pid, signal)
    } catch {
      // Already gone.
    }
  }
  const timer = setTimeout(() => {
    timedOut = true
    kill('SIGKILL', true)
    killRowProcesses(options.marker, options.cwd, options.exclude)
  }, options.timeoutMs)
  const done = new Promise<Ran>((resolve) => {
    child.on('error', (error) => {
      output += `\n${error.message}`
    })
    // A grandchild that outlives the command (a server left running) keeps the pipes open: the exit decides, and
    // the output is taken when the pipes close or a second later.
    child.on('exit', (rc, signal) => {
      clearTimeout(timer)
      const seconds = (performance.now() - started) / 1000
      const finish = (): void => resolve({ rc, signal, output, seconds, timedOut })
      const late = setTimeout(finish, 1000)
      child.on('close', () => {
        clearTimeout(late)
        finish()
      })
    })
  })
  return {
    pid,
    elapsedMs: () => performance.now() - started,
    signal: (signal) => kill(signal, false),
    signalGroup: (signal) => kill(signal, true),
    output: () => output,
    done,
  }
}
