// The client's self-check: a run whose own event loop was starved says so (client.keptUp false,
// one warning line), and a baseline comparison of it turns a failure into "inconclusive".
import { Worker } from 'node:worker_threads'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { baselineEntryFrom } from '../../src/core/baseline/index.ts'
import { compare } from '../helpers/compare-given.ts'
import { runBenchmark } from '../../src/core/run.ts'
import type { BenchmarkOptions } from '../../src/core/contract/options.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { SimulatorOptions } from '../../src/sim/index.ts'

/** The simulator on its own event loop (a worker thread), so blocking this one does not slow it. */
async function startSimulatorThread(options: SimulatorOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const simModule = new URL('../../src/sim/index.ts', import.meta.url).href
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    import(${JSON.stringify(simModule)}).then(async ({ startSimulator }) => {
      const sim = await startSimulator(workerData)
      parentPort.postMessage(sim.url)
      parentPort.once('message', async () => { await sim.close(); process.exit(0) })
    })`
  const worker = new Worker(source, { eval: true, workerData: options })
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  return {
    url,
    close: async () => {
      const exited = new Promise((resolve) => worker.once('exit', resolve))
      worker.postMessage('close')
      await exited
    },
  }
}

/** Blocks this thread's event loop for `busyMs` out of every `everyMs`, as a heavy callback would. */
function blockEventLoop(busyMs: number, everyMs: number): () => void {
  const timer = setInterval(() => {
    const end = performance.now() + busyMs
    while (performance.now() < end) {
      // Busy-wait: nothing else runs on this thread meanwhile.
    }
  }, everyMs)
  return () => clearInterval(timer)
}

async function runBlocked(options: BenchmarkOptions): Promise<BenchmarkResult> {
  const unblock = blockEventLoop(120, 130)
  try {
    return await runBenchmark(options, { skipGpu: true })
  } finally {
    unblock()
  }
}

describe('client self-check', () => {
  let sim: { url: string; close: () => Promise<void> }
  beforeAll(async () => {
    sim = await startSimulatorThread({
      seed: 5,
      prefillBaseMs: 4,
      prefillMsPerToken: 0,
      decodeBaseMs: 3,
      decodeMsPerSequence: 0,
    })
  })
  afterAll(async () => {
    await sim?.close()
  })

  const closedLoop = (): BenchmarkOptions => ({
    target: { baseUrl: sim.url },
    workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 6 } },
    load: { concurrency: 4, requests: 60 },
  })

  test('records event-loop delay every run, and a blocked loop makes keptUp false with one warning line', async () => {
    const normal = await runBenchmark(closedLoop(), { skipGpu: true })
    expect(normal.client.eventLoopDelayMs).toBeDefined()
    expect(normal.client.eventLoopDelayMs?.max).toBeGreaterThan(0)

    const blocked = await runBlocked(closedLoop())
    expect(blocked.counts.completed).toBe(60)
    expect(blocked.client.keptUp).toBe(false)
    expect(blocked.client.eventLoopDelayMs?.p99).toBeGreaterThan(30)
    expect(blocked.client.warnings).toHaveLength(1)
    const warning = blocked.client.warnings[0] as string
    expect(warning).toMatch(
      /^Event-loop delay p99 was \d+\.\d ms: timestamps may be late by that much; the client could not keep up\.$/,
    )
    expect(warning).not.toContain('\n')
    expect(blocked.warnings).toContain(warning)
  })

  test('a regression measured by a client that could not keep up is inconclusive, not a failure', async () => {
    const baseline = await runBenchmark(closedLoop(), { skipGpu: true })
    const blocked = await runBlocked(closedLoop())
    expect(blocked.client.keptUp).toBe(false)
    const entry = baselineEntryFrom(baseline)
    // E2E, not TTFT: a blocked client reads whole short streams in one go, which are then not
    // counted as streamed and leave TTFT empty.
    const policy = { e2eMs: { p50: '+25%' } } as const
    // Had the client kept up, the same figures would fail: the blocked loop added tens of ms.
    // (Its self-check and lateness are left out too: each would also excuse the figures.)
    const { selfCheck: _selfCheck, lateness: _lateness, ...health } = blocked.client
    expect(compare(entry, { ...blocked, client: { ...health, keptUp: true } }, policy).status).toBe('fail')
    const verdict = compare(entry, blocked, policy)
    expect(verdict.status).toBe('inconclusive')
    expect(verdict.checks[0]?.reason).toMatch(/the client could not keep up/)
    expect(verdict.notes.join(' ')).toMatch(/could not keep up with the planned load \(Event-loop delay p99/)
  })

  test('an open loop records schedule lag; a blocked loop shows generator lag and keptUp false', async () => {
    const openLoop: BenchmarkOptions = { ...closedLoop(), load: { rate: 100, arrival: 'constant', requests: 50 } }
    const normal = await runBenchmark(openLoop, { skipGpu: true })
    expect(normal.client.scheduleLagMs).toBeDefined()
    expect(normal.client.generatorLagMs).toBeDefined()
    expect(normal.client.scheduleLagMs?.p50).toBeGreaterThanOrEqual(0)

    const blocked = await runBlocked(openLoop)
    expect(blocked.client.keptUp).toBe(false)
    // Sends planned inside a blocked stretch go out when it ends: tens of ms late.
    expect(blocked.client.generatorLagMs?.p99).toBeGreaterThan(20)
    expect(blocked.warnings.some((w) => /Send times lagged the schedule by \d+\.\d ms at p99/.test(w))).toBe(true)
  })
})
