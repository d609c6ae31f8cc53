import { execFileSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { NodeBaselineEnvironment } from '../../src/core/baseline/index.ts'
import { LlmBenchError } from '../../src/core/contract/errors.ts'
import { claimFileSync, withFileLock } from '../../src/core/platform/file-lock.ts'

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'llm-lock-'))
  onTestFinished(() => rm(directory, { recursive: true, force: true }))
  return directory
}

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(
    execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }),
  )
}

function holder(pid: number, host: string): string {
  return JSON.stringify({ pid, host, at: '2026-01-01T00:00:00.000Z', token: 'someone-else' })
}

describe('withFileLock', () => {
  test('critical sections on one lock never overlap, and the lock is gone afterwards', async () => {
    const directory = await temporaryDirectory()
    const lock = join(directory, 'x.lock')
    let active = 0
    let most = 0
    const order: number[] = []
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        withFileLock(lock, async () => {
          active++
          most = Math.max(most, active)
          await new Promise((resolve) => setTimeout(resolve, 3))
          order.push(i)
          active--
        }),
      ),
    )
    expect(most).toBe(1)
    expect(order).toHaveLength(12)
    expect(await readdir(directory)).toEqual([])
  })

  test('released when the critical section throws', async () => {
    const directory = await temporaryDirectory()
    const lock = join(directory, 'x.lock')
    await expect(withFileLock(lock, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await withFileLock(lock, async () => 'again')).toBe('again')
    expect(await readdir(directory)).toEqual([])
  })

  test('a lock left by a dead process on this host is broken at once', async () => {
    const directory = await temporaryDirectory()
    const lock = join(directory, 'x.lock')
    await writeFile(lock, holder(deadPid(), hostname()))
    const started = Date.now()
    expect(await withFileLock(lock, async () => 'taken', { waitMs: 5_000 })).toBe('taken')
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(await readdir(directory)).toEqual([])
  })

  test('a queue of live holders that hands the lock on is waited for longer than the limit for one holder', async () => {
    const directory = await temporaryDirectory()
    const lock = join(directory, 'x.lock')
    // Six live holders one after another, 60 ms each: 360 ms in all, against a limit of 150 ms per holder.
    const take = (i: number) =>
      writeFile(
        lock,
        JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString(), token: `t${i}` }),
      )
    await take(0)
    let handing = true
    const relay = (async () => {
      for (let i = 1; i < 6; i++) {
        await new Promise((resolve) => setTimeout(resolve, 60))
        await take(i)
      }
      await new Promise((resolve) => setTimeout(resolve, 60))
      handing = false
      await rm(lock, { force: true })
    })()
    const started = Date.now()
    expect(await withFileLock(lock, async () => (handing ? 'too early' : 'taken'), { waitMs: 150 })).toBe('taken')
    expect(Date.now() - started).toBeGreaterThan(300)
    await relay
  })

  test('a live holder is waited for, then named with what to do', async () => {
    const directory = await temporaryDirectory()
    const lock = join(directory, 'x.lock')
    await writeFile(lock, holder(process.pid, hostname()))
    const error = await withFileLock(lock, async () => 'never', { waitMs: 150 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LlmBenchError)
    expect((error as Error).message).toBe(
      `${lock} has been held by pid ${process.pid} on ${hostname()} since 2026-01-01T00:00:00.000Z for over 0.15 s. If no other run is writing this baseline file, delete the lock file and run again.`,
    )
    // Left alone: it is not ours.
    expect(await readFile(lock, 'utf8')).toBe(holder(process.pid, hostname()))
  })

  test('a lock of another host, or one without a holder, is stale only when old', async () => {
    const directory = await temporaryDirectory()
    const lock = join(directory, 'x.lock')
    for (const text of [holder(1, 'another-host'), '']) {
      await writeFile(lock, text)
      await expect(withFileLock(lock, async () => 'fresh lock', { waitMs: 100, staleMs: 60_000 })).rejects.toThrow(
        'has been held by',
      )
      const old = new Date(Date.now() - 120_000)
      await utimes(lock, old, old)
      expect(await withFileLock(lock, async () => 'old lock', { waitMs: 100, staleMs: 60_000 })).toBe('old lock')
    }
  })

  test('a lock file that cannot be created is named', async () => {
    const directory = await temporaryDirectory()
    const lock = join(directory, 'missing', 'x.lock')
    await expect(withFileLock(lock, async () => 'never')).rejects.toThrow(`Cannot create the lock file ${lock}: ENOENT`)
  })
})

describe('claimFileSync', () => {
  test('claimed, then refused to another claim naming its holder, then released', async () => {
    const lock = join(await temporaryDirectory(), 'run.lock')
    const claim = claimFileSync(lock)
    expect(claim.claimed).toBe(true)
    const again = claimFileSync(lock)
    expect(again).toEqual({
      claimed: false,
      holder: expect.stringMatching(`^pid ${process.pid} on ${hostname()} since `),
    })
    if (claim.claimed) claim.release()
    expect(claimFileSync(lock).claimed).toBe(true)
  })

  test("a dead process's claim on this host is taken over; another host's, however old, is left alone", async () => {
    const directory = await temporaryDirectory()
    const dead = join(directory, 'dead.lock')
    await writeFile(dead, holder(deadPid(), hostname()))
    expect(claimFileSync(dead).claimed).toBe(true)
    const remote = join(directory, 'remote.lock')
    await writeFile(remote, holder(1, 'another-host'))
    await utimes(remote, new Date(0), new Date(0))
    expect(claimFileSync(remote)).toEqual({
      claimed: false,
      holder: 'pid 1 on another-host since 2026-01-01T00:00:00.000Z',
    })
    expect(await readFile(remote, 'utf8')).toBe(holder(1, 'another-host'))
  })

  test('a release leaves a claim another process took over alone', async () => {
    const lock = join(await temporaryDirectory(), 'run.lock')
    const claim = claimFileSync(lock)
    await writeFile(lock, holder(process.pid, hostname()))
    if (claim.claimed) claim.release()
    expect(await readFile(lock, 'utf8')).toBe(holder(process.pid, hostname()))
  })
})

describe('NodeBaselineEnvironment.exclusive', () => {
  test('creates the directory and, holding the lock, removes temporary files a dead writer left', async () => {
    const directory = await temporaryDirectory()
    const path = join(directory, '__llm_baselines__', 'chat.bench.ts.json')
    const environment = new NodeBaselineEnvironment()
    await environment.exclusive(path, async () => {
      await writeFile(join(directory, '__llm_baselines__', '.chat.bench.ts.json.0d1b2c.tmp'), 'half a file')
      await writeFile(join(directory, '__llm_baselines__', '.other.bench.ts.json.0d1b2c.tmp'), 'not ours')
    })
    const seen = await environment.exclusive(path, async () => readdir(join(directory, '__llm_baselines__')))
    expect(seen.sort()).toEqual(['.chat.bench.ts.json.lock', '.other.bench.ts.json.0d1b2c.tmp'])
    expect(await readdir(join(directory, '__llm_baselines__'))).toEqual(['.other.bench.ts.json.0d1b2c.tmp'])
  })
})
