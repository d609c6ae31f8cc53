/**
 * An arm of `ab` with arms together: both revisions' `vitest bench` processes are up at once, one
 * bench each, and take turns as `ab`'s turn server says. Per pair the arm starts its server when told
 * (the arms one after the other, in the pair's order), loads it slice by slice when told (the duet
 * order A B B A …), stops it when every arm's slices are done, and writes the pair's arm file. The
 * pair loop, its order and its stop are `ab`'s campaign; this is only the arm's side of each step.
 */
import { request } from 'node:http'
import type { BenchmarkResult } from '../core/contract/result.ts'
import { sliceRunPlan } from '../core/campaign/index.ts'
import type { RunPlan } from '../core/plan/index.ts'
import { ServerPool } from '../core/server/index.ts'
import type { ArmRun } from './arm-env.ts'
import type { AcquiredTarget } from './bench-target.ts'

/** What an arm asks the turn server (POST /turn); the answer comes when it is the arm's turn. */
export type TurnAsk =
  /** Ready for another pair (the last one's server stopped and its file written). */
  | { arm: string; kind: 'next'; file: string; name: string }
  /** Server up (index 0) or slice `index - 1` done: may slice `index` be loaded? `pgid`: the server's, to read its CPU. */
  | { arm: string; kind: 'slice'; pair: number; index: number; pgid?: number }
  /** Every slice done: may the server be stopped? */
  | { arm: string; kind: 'release'; pair: number }
  /** The arm cannot go on (its server ended, a slice failed): why, before its process ends (answered at once). */
  | { arm: string; kind: 'failed'; message: string }

/** The turn server's answers, by ask. */
export type TurnAnswer = { pair: number; slices: number } | { stop: true } | { go: true } | { noted: true }

/** One JSON POST that waits as long as the turn server does (no timeout: the other arm's slices take their time). */
export function askTurn(url: string, ask: TurnAsk, signal?: AbortSignal): Promise<TurnAnswer> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(ask)
    const req = request(
      `${url}/turn`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, ...(signal ? { signal } : {}) },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => {
          if (res.statusCode !== 200) {
            reject(new Error(`ab's turn server answered ${String(res.statusCode)}: ${text}`))
            return
          }
          try {
            resolve(JSON.parse(text) as TurnAnswer)
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)))
          }
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** What taking turns needs of the bench it runs in. */
export interface TurnTaking {
  arm: ArmRun & { mode: { kind: 'turns'; url: string } }
  /** The bench (file relative to the tree's root, full name), as `ab` named it. */
  file: string
  name: string
  run: RunPlan
  /** A fresh server for a pair, from `pool`. */
  acquire: (pool: ServerPool) => Promise<AcquiredTarget>
  /** One run of `plan` (a slice) on the pair's server. */
  measure: (acquired: AcquiredTarget, plan: RunPlan) => Promise<BenchmarkResult>
  /** Writes the pair's arm file (the slices merged, and each slice); returns its path and the merged result. */
  write: (pair: number, slices: BenchmarkResult[]) => Promise<{ path: string; result: BenchmarkResult }>
  signal?: AbortSignal
}

/** Takes turns until `ab` says stop; returns the last pair's slices merged and the files written. */
export async function takeTurns(t: TurnTaking): Promise<{ last: BenchmarkResult | undefined; files: string[] }> {
  try {
    return await turnsOf(t)
  } catch (error) {
    // `ab` names the arm's own reason, not the tail of its log.
    const message = error instanceof Error ? error.message : String(error)
    await askTurn(t.arm.mode.url, { arm: t.arm.label, kind: 'failed', message }).catch(() => undefined)
    throw error
  }
}

async function turnsOf(t: TurnTaking): Promise<{ last: BenchmarkResult | undefined; files: string[] }> {
  const { url } = t.arm.mode
  const label = t.arm.label
  const files: string[] = []
  let last: BenchmarkResult | undefined
  for (;;) {
    const next = await askTurn(url, { arm: label, kind: 'next', file: t.file, name: t.name }, t.signal)
    if ('stop' in next) return { last, files }
    if (!('pair' in next)) throw new Error(`ab's turn server answered ${JSON.stringify(next)} to 'next'`)
    const { pair, slices: count } = next
    // A pool of its own per pair: a fresh server for every pair, as apart.
    const acquired = await t.acquire(new ServerPool({ idleTimeoutMs: 0 }))
    const slices: BenchmarkResult[] = []
    try {
      for (let index = 0; index < count; index++) {
        const pgid = acquired.context.serverPgid
        await askTurn(
          url,
          { arm: label, kind: 'slice', pair, index, ...(pgid !== undefined ? { pgid } : {}) },
          t.signal,
        )
        slices.push(await t.measure(acquired, sliceRunPlan(t.run, index, count)))
      }
      await askTurn(url, { arm: label, kind: 'release', pair }, t.signal)
    } finally {
      await acquired.release()
    }
    const written = await t.write(pair, slices)
    last = written.result
    files.push(written.path)
  }
}
