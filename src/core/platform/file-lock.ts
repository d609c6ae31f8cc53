import { randomUUID } from 'node:crypto'
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { link, open, readFile, rename, rm, stat } from 'node:fs/promises'
import { hostname } from 'node:os'
import { LlmBenchError } from '../contract/errors.ts'

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** How long to wait for another holder before failing, in milliseconds. Default 60,000. */
  waitMs?: number
  /**
   * A lock older than this is taken as left by a holder that died (a holder on another host, or one
   * whose file holds no pid), in milliseconds. A lock of a dead process on this host is stale at
   * once. Default 30,000: a holder reads, merges and writes one file, which takes well under a second.
   */
  staleMs?: number
}

/** What a lock file says about its holder. */
interface LockHolder {
  pid: number
  host: string
  /** When it was taken, ISO 8601. */
  at: string
  /** Unique per acquisition, so a holder is never mistaken for a later one with the same pid. */
  token: string
}

const POLL_MIN_MS = 5
const POLL_MAX_MS = 100
const WAIT_MS = 60_000
const STALE_MS = 30_000

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code
}

function holderOf(text: string): LockHolder | undefined {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null) return undefined
    const { pid, host, at, token } = value as Record<string, unknown>
    if (typeof pid !== 'number' || typeof host !== 'string' || typeof at !== 'string' || typeof token !== 'string')
      return undefined
    return { pid, host, at, token }
  } catch {
    return undefined
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return codeOf(error) === 'EPERM'
  }
}

async function readLock(lockPath: string): Promise<{ text: string; ageMs: number } | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)])
    return { text, ageMs: Date.now() - info.mtimeMs }
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined
    throw error
  }
}

function isStale(lock: { text: string; ageMs: number }, staleMs: number): boolean {
  const holder = holderOf(lock.text)
  if (holder !== undefined && holder.host === hostname()) return !processAlive(holder.pid)
  return lock.ageMs > staleMs
}

/**
 * Removes a stale lock without removing a fresh one taken meanwhile: the lock is renamed aside and,
 * when what was moved is not the lock judged stale (another waiter broke it first and a new holder
 * took it), put back with `link`, which refuses to overwrite a lock taken in the meantime.
 */
async function breakStaleLock(lockPath: string, judged: string): Promise<void> {
  const aside = `${lockPath}.${randomUUID()}.stale`
  try {
    await rename(lockPath, aside)
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return
    throw error
  }
  try {
    const moved = await readFile(aside, 'utf8')
    if (moved !== judged) await link(aside, lockPath).catch(() => undefined)
  } finally {
    await rm(aside, { force: true })
  }
}

function describeHolder(text: string): string {
  const holder = holderOf(text)
  return holder === undefined
    ? 'a process that wrote no holder'
    : `pid ${holder.pid} on ${holder.host} since ${holder.at}`
}

async function acquire(lockPath: string, waitMs: number, staleMs: number): Promise<LockHolder> {
  const holder: LockHolder = { pid: process.pid, host: hostname(), at: '', token: randomUUID() }
  // The limit is per holder: a queue of live runs that hands the lock on is waited for however long it is
  // (40 writers of a 6.8 MB file with two CPU hogs beside them took over 60 s in all); one holder keeping it is not.
  let deadline = Date.now() + waitMs
  let heldBy: string | undefined
  let pause = POLL_MIN_MS
  for (;;) {
    holder.at = new Date().toISOString()
    try {
      const handle = await open(lockPath, 'wx')
      try {
        await handle.writeFile(JSON.stringify(holder), 'utf8')
      } finally {
        await handle.close()
      }
      return holder
    } catch (error) {
      if (codeOf(error) !== 'EEXIST')
        throw new LlmBenchError(
          `Cannot create the lock file ${lockPath}: ${error instanceof Error ? error.message : String(error)}.`,
          { cause: error },
        )
    }
    const lock = await readLock(lockPath)
    if (lock === undefined) continue
    if (isStale(lock, staleMs)) {
      await breakStaleLock(lockPath, lock.text)
      continue
    }
    if (lock.text !== heldBy) {
      heldBy = lock.text
      deadline = Date.now() + waitMs
    }
    if (Date.now() >= deadline) {
      throw new LlmBenchError(
        `${lockPath} has been held by ${describeHolder(lock.text)} for over ${waitMs / 1000} s. ` +
          'If no other run is writing this baseline file, delete the lock file and run again.',
      )
    }
    await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())))
    pause = Math.min(POLL_MAX_MS, pause * 2)
  }
}

/** Releases only the lock this holder took (a lock broken as stale and retaken by another is left alone). */
async function release(lockPath: string, holder: LockHolder): Promise<void> {
  const lock = await readLock(lockPath).catch(() => undefined)
  if (lock !== undefined && holderOf(lock.text)?.token === holder.token) await rm(lockPath, { force: true })
}

/**
 * Runs `critical` while holding an exclusive lock file at `lockPath` (created with `O_EXCL`, holding
 * the holder's pid, host and time), so read-modify-write sequences of several processes on one file
 * do not interleave. Waits for another holder with a growing, jittered pause; breaks a lock whose
 * holder died (see {@link FileLockOptions.staleMs}); the lock is released however `critical` ends.
 *
 * @throws {LlmBenchError} when another live holder keeps the lock for over `waitMs`.
 */
export async function withFileLock<T>(
  lockPath: string,
  critical: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const holder = await acquire(lockPath, options.waitMs ?? WAIT_MS, options.staleMs ?? STALE_MS)
  try {
    return await critical()
  } finally {
    await release(lockPath, holder)
  }
}

/** Outcome of {@link claimFileSync}: the claim, or who holds it. */
export type FileClaim = { claimed: true; release: () => void } | { claimed: false; holder: string }

/**
 * Claims `lockPath` for as long as this process wants it (a run, not one read-merge-write): created
 * with `O_EXCL`, holding this process's pid, host and time. A claim of a process on this host that
 * is gone is taken over; any other claim is left alone and described (no age makes it stale: a run
 * may last hours). Synchronous, so a claim can be made and released from `exit` handlers.
 */
export function claimFileSync(lockPath: string): FileClaim {
  const holder: LockHolder = { pid: process.pid, host: hostname(), at: new Date().toISOString(), token: randomUUID() }
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(lockPath, JSON.stringify(holder), { flag: 'wx' })
      return {
        claimed: true,
        release: () => {
          try {
            if (holderOf(readFileSync(lockPath, 'utf8'))?.token === holder.token) rmSync(lockPath, { force: true })
          } catch {
            // Already gone.
          }
        },
      }
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error
    }
    let text: string
    try {
      text = readFileSync(lockPath, 'utf8')
    } catch (error) {
      if (codeOf(error) === 'ENOENT') continue
      throw error
    }
    const other = holderOf(text)
    if (other === undefined || other.host !== hostname() || processAlive(other.pid))
      return { claimed: false, holder: describeHolder(text) }
    // Left by a process of this host that is gone: remove it unless another took it over meanwhile.
    const aside = `${lockPath}.${randomUUID()}.stale`
    try {
      renameSync(lockPath, aside)
      if (readFileSync(aside, 'utf8') !== text) linkSync(aside, lockPath)
    } catch {
      // Another process moved it first, or took it over: try again.
    } finally {
      rmSync(aside, { force: true })
    }
  }
  let last = ''
  try {
    last = readFileSync(lockPath, 'utf8')
  } catch {
    // Gone since: described as unknown.
  }
  return { claimed: false, holder: describeHolder(last) }
}
