import { signalProcessGroup } from './process-group.ts'

/** A launched server as the shutdown hooks see it. */
export interface TrackedServer {
  /** Process group id (the server's pid). */
  pgid: number
  /** Stops the server: must send SIGTERM before its first `await`. */
  stop: () => Promise<void>
}

const tracked = new Set<TrackedServer>()
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
let installed = false
let interrupted = false
/** How often the hooks look whether the process that started this one is still there, ms. */
const PARENT_CHECK_MS = 1000
let parentWatch: ReturnType<typeof setInterval> | undefined

/**
 * Keeps a launched server on the list that the process hooks stop. While any server is listed, one
 * set of hooks is installed (not one per server):
 * - SIGINT, SIGTERM, SIGHUP: stop every server (SIGTERM, SIGKILL after its grace), then re-raise the
 *   signal so the process ends with the code the signal means (130 for Ctrl-C); when someone else
 *   also listens to that signal (a test runner), ending the process is left to them. A second signal
 *   while stopping SIGKILLs everything at once and re-raises.
 * - `exit`: SIGKILL, synchronously, to every group still listed: the last resort when the process
 *   ends without stopping its servers (`process.exit()`, an uncaught error).
 * - the parent going away (this process adopted, see {@link watchParent}): as SIGHUP.
 * The hooks are removed when the list empties, so the default signal behaviour comes back.
 * Returns the function that takes the server off the list.
 */
export function trackServer(server: TrackedServer): () => void {
  tracked.add(server)
  install()
  return () => {
    tracked.delete(server)
    if (tracked.size === 0 && !interrupted) uninstall()
  }
}

/** Stops every listed server (used by tests and by runners that end the process themselves). */
export async function stopTrackedServers(): Promise<void> {
  await Promise.allSettled([...tracked].map((server) => server.stop()))
}

/** Number of listed servers. */
export function trackedServerCount(): number {
  return tracked.size
}

function install(): void {
  if (installed || typeof process === 'undefined' || typeof process.on !== 'function') return
  installed = true
  for (const signal of SIGNALS) process.on(signal, onSignal)
  process.on('exit', killAllNow)
  parentWatch = watchParent(() => onSignal('SIGHUP'))
}

function uninstall(): void {
  if (!installed) return
  installed = false
  for (const signal of SIGNALS) process.off(signal, onSignal)
  process.off('exit', killAllNow)
  if (parentWatch !== undefined) clearInterval(parentWatch)
  parentWatch = undefined
}

/**
 * Calls `gone` once when this process's parent changes (it died and this one was adopted, by init
 * or a subreaper): what a hangup means, though none was sent. A Vitest worker whose Vitest was
 * killed, or a Vitest whose `npx` a CI cancel stopped, is such an orphan. Polls `process.ppid` on an
 * unref'd timer; undefined where the runtime has no parent pid.
 */
export function watchParent(gone: () => void): ReturnType<typeof setInterval> | undefined {
  const parent = typeof process.ppid === 'number' ? process.ppid : undefined
  if (parent === undefined) return undefined
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    gone()
  }, PARENT_CHECK_MS)
  timer.unref?.()
  return timer
}

function killAllNow(): void {
  for (const server of tracked) signalProcessGroup(server.pgid, 'SIGKILL')
}

function onSignal(signal: NodeJS.Signals): void {
  if (interrupted) {
    killAllNow()
    reraise(signal)
    return
  }
  interrupted = true
  void stopTrackedServers().finally(() => reraise(signal))
}

function reraise(signal: NodeJS.Signals): void {
  uninstall()
  interrupted = false
  // With no other listener left, the default action ends the process with the signal's own status.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}
