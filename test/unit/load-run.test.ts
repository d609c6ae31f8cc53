import { describe, expect, it } from 'vitest'
import { runLoad as runResolved, runWarmup } from '../../src/core/load/index.ts'
import { resolveLoad } from '../../src/core/plan/index.ts'
import type { LoadOptions } from '../../src/core/contract/options.ts'
import { planRun, validateOptions } from '../../src/core/plan/index.ts'
import type { DispatchRequest } from '../../src/core/load/index.ts'

// The loads below are written as a user writes them; the plan resolves them before the load stages see them.
type RunOptions = Parameters<typeof runResolved>[0]
const runLoad = (options: Omit<RunOptions, 'load'> & { load: LoadOptions }): ReturnType<typeof runResolved> =>
  // A trace's timestamps set the sends: no arrival process is named for it and no cap (as planRun resolves it).
  runResolved({
    ...options,
    load: resolveLoad(
      options.load,
      options.timestampsMs !== undefined ? 'trace' : options.load.rate !== undefined ? 'open' : 'closed',
    ),
  })

/** A fake server: each request takes `latencyMs(index)`, tracks what is in flight, and stops early on abort. */
function fakeServer(latencyMs: (index: number) => number) {
  const state = {
    inFlight: 0,
    maxInFlight: 0,
    sends: [] as Array<{ index: number; at: number; plannedAt: number | undefined; inFlightBefore: number }>,
    aborted: [] as number[],
    completed: [] as number[],
  }
  const dispatch: DispatchRequest = (index, plannedAt, signal) => {
    state.sends.push({ index, at: performance.now(), plannedAt, inFlightBefore: state.inFlight })
    state.inFlight++
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight)
    return new Promise<void>((resolve) => {
      const finish = (aborted: boolean): void => {
        clearTimeout(timer)
        state.inFlight--
        ;(aborted ? state.aborted : state.completed).push(index)
        resolve()
      }
      const latency = latencyMs(index)
      const timer = Number.isFinite(latency) ? setTimeout(() => finish(false), latency) : undefined
      signal.addEventListener('abort', () => finish(true), { once: true })
    })
  }
  return { state, dispatch }
}

describe('runLoad, closed loop', () => {
  it('keeps exactly `concurrency` requests in flight and never more', async () => {
    const { state, dispatch } = fakeServer((i) => 5 + ((i * 7) % 11))
    const samples: number[] = []
    let sending = true
    const sampler = setInterval(() => {
      if (sending && state.sends.length > 4) samples.push(state.inFlight)
    }, 2)
    const outcome = await runLoad({
      load: { concurrency: 4, requests: 60 },
      seed: 0,
      dispatch: (i, p, s) => {
        if (i === 59) sending = false
        return dispatch(i, p, s)
      },
    })
    clearInterval(sampler)
    expect(outcome.stoppedBy).toBe('requests')
    expect(outcome.dispatched).toBe(60)
    expect(state.maxInFlight).toBe(4)
    // Each send after the first four replaces exactly one finished request.
    expect(state.sends.slice(4).every((s) => s.inFlightBefore === 3)).toBe(true)
    expect(samples.length).toBeGreaterThan(5)
    expect(samples.every((n) => n === 4)).toBe(true)
    expect(state.sends.map((s) => s.index)).toEqual(Array.from({ length: 60 }, (_, i) => i))
    expect(state.sends.every((s) => s.plannedAt === undefined)).toBe(true)
    expect(outcome.scheduleLagMs).toBeUndefined()
    expect(outcome.cancelled).toBe(0)
    expect(outcome.endedAt).toBeGreaterThan(outcome.startedAt)
  })

  it('stops sending at durationMs and lets the last requests finish', async () => {
    const { state, dispatch } = fakeServer(() => 10)
    const outcome = await runLoad({ load: { concurrency: 2, durationMs: 120 }, seed: 0, dispatch })
    expect(outcome.stoppedBy).toBe('duration')
    expect(outcome.dispatched).toBe(state.sends.length)
    expect(outcome.dispatched).toBeGreaterThan(2)
    // About 2 per 10 ms; a busy machine sends fewer, never more.
    expect(outcome.dispatched).toBeLessThanOrEqual(2 * 13 + 2)
    expect(Math.max(...state.sends.map((s) => s.at))).toBeLessThan(outcome.startedAt + 120 + 1)
    expect(state.completed).toHaveLength(outcome.dispatched)
    expect(outcome.cancelled).toBe(0)
    expect(outcome.endedAt - outcome.startedAt).toBeGreaterThanOrEqual(120)
  })

  it('cancels what is still in flight after the drain grace and counts it', async () => {
    // Indices 0 and 1 finish quickly; 2, 3, 4 would take a minute.
    const { state, dispatch } = fakeServer((i) => (i < 2 ? 5 : 60_000))
    const before = performance.now()
    const outcome = await runLoad({ load: { concurrency: 5, requests: 5, drainGraceMs: 80 }, seed: 0, dispatch })
    expect(outcome.stoppedBy).toBe('requests')
    expect(outcome.cancelled).toBe(3)
    expect(state.aborted.sort()).toEqual([2, 3, 4])
    expect(state.completed.sort()).toEqual([0, 1])
    expect(outcome.endedAt - before).toBeGreaterThanOrEqual(80)
    expect(outcome.endedAt - before).toBeLessThan(10_000)
    expect(outcome.warnings.join('\n')).toMatch(/3 requests were still in flight 80 ms after the stop/)
  })

  it('aborts at once when the run signal aborts, without waiting for the grace', async () => {
    const { state, dispatch } = fakeServer(() => Infinity)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 30)
    const before = performance.now()
    const outcome = await runLoad({
      load: { concurrency: 3, requests: 100 },
      seed: 0,
      dispatch,
      signal: controller.signal,
    })
    expect(outcome.stoppedBy).toBe('signal')
    expect(outcome.dispatched).toBe(3)
    expect(outcome.cancelled).toBe(3)
    expect(state.aborted).toHaveLength(3)
    expect(performance.now() - before).toBeLessThan(20_000)
    expect(outcome.warnings).toContain('3 in-flight requests were cancelled because the run was aborted.')
  })

  it('sends nothing when the signal is already aborted', async () => {
    const { state, dispatch } = fakeServer(() => 1)
    const outcome = await runLoad({
      load: { concurrency: 3, requests: 10 },
      seed: 0,
      dispatch,
      signal: AbortSignal.abort(),
    })
    expect(outcome).toMatchObject({ stoppedBy: 'signal', dispatched: 0, cancelled: 0 })
    expect(state.sends).toHaveLength(0)
  })

  it('rejects with the error of a dispatch that throws, after cancelling the rest', async () => {
    const { state, dispatch } = fakeServer(() => Infinity)
    const boom = new Error('boom')
    const run = runLoad({
      load: { concurrency: 3, requests: 10 },
      seed: 0,
      dispatch: (i, p, s) => (i === 2 ? Promise.reject(boom) : dispatch(i, p, s)),
    })
    await expect(run).rejects.toBe(boom)
    expect(state.aborted.sort()).toEqual([0, 1])
  })

  it('ramps the concurrency up to its target', async () => {
    const { state, dispatch } = fakeServer(() => 10)
    const outcome = await runLoad({
      load: { concurrency: 6, durationMs: 500, rampUp: { from: 1, durationMs: 250 } },
      seed: 0,
      dispatch,
    })
    const early = state.sends.filter((s) => s.at - outcome.startedAt < 40)
    const late = state.sends.filter((s) => s.at - outcome.startedAt > 300)
    expect(Math.max(...early.map((s) => s.inFlightBefore + 1))).toBeLessThanOrEqual(2)
    expect(Math.max(...late.map((s) => s.inFlightBefore + 1))).toBe(6)
    expect(state.maxInFlight).toBe(6)
  })
})

describe('runLoad, open loop', () => {
  it('achieves 200 req/s over 1 s and reports the schedule lag', async () => {
    const { state, dispatch } = fakeServer(() => 20)
    const outcome = await runLoad({ load: { rate: 200, arrival: 'constant', durationMs: 1000 }, seed: 4, dispatch })
    expect(outcome.stoppedBy).toBe('duration')
    expect(outcome.dispatched).toBe(200)
    // Achieved rate: the least-squares slope of send count over send time, which a single late
    // send on a busy CI machine cannot swing the way it swings first-to-last.
    const ts = state.sends.map((s) => (s.at - outcome.originAt) / 1000)
    const meanT = ts.reduce((a, b) => a + b, 0) / ts.length
    const meanI = (ts.length - 1) / 2
    const slope =
      ts.reduce((acc, t, i) => acc + (t - meanT) * (i - meanI), 0) / ts.reduce((acc, t) => acc + (t - meanT) ** 2, 0)
    expect(Math.abs(slope / 200 - 1)).toBeLessThan(0.05)
    expect(Math.abs(ts.length / Math.max(...ts) / 200 - 1)).toBeLessThan(0.1)
    expect(outcome.scheduleLagMs).toBeDefined()
    const lag = outcome.scheduleLagMs!
    expect(lag.p50).toBeGreaterThanOrEqual(0)
    expect(lag.p99).toBeGreaterThanOrEqual(lag.p50)
    expect(lag.max).toBeGreaterThanOrEqual(lag.p99)
    // Sends never go early, and the lag matches what the fake server saw.
    expect(state.sends.every((s) => s.plannedAt !== undefined && s.at >= s.plannedAt)).toBe(true)
    const seen = state.sends.map((s) => s.at - (s.plannedAt as number))
    expect(Math.max(...seen)).toBeCloseTo(lag.max, 0)
    expect(outcome.startedAt).toBeGreaterThan(outcome.originAt)
    // Nothing waited for a slot, so the generator lag is the schedule lag.
    expect(outcome.generatorLagMs).toEqual(lag)
  })

  it('caps in-flight requests with concurrency, and says the cap shaped the send times', async () => {
    const { state, dispatch } = fakeServer(() => 15)
    const outcome = await runLoad({ load: { rate: Infinity, concurrency: 3, requests: 12 }, seed: 0, dispatch })
    expect(outcome.dispatched).toBe(12)
    expect(state.maxInFlight).toBe(3)
    expect(outcome.scheduleLagMs!.max).toBeGreaterThanOrEqual(3 * 15 - 5)
    expect(outcome.warnings.join('\n')).toMatch(/9 of 12 requests waited for a free slot under load.concurrency = 3/)
    // The generator itself kept up: the lag of the sends that did not wait is small, and no lag warning.
    expect(outcome.generatorLagMs!.max).toBeLessThan(outcome.scheduleLagMs!.max)
    expect(outcome.warnings.join('\n')).not.toMatch(/the client, not the server/)
  })

  it('sends everything at once for rate Infinity', async () => {
    const { state, dispatch } = fakeServer(() => 20)
    const outcome = await runLoad({ load: { rate: Infinity, requests: 25 }, seed: 0, dispatch })
    expect(state.maxInFlight).toBe(25)
    expect(outcome.dispatched).toBe(25)
  })

  it('replays trace offsets and stops at the end of the trace', async () => {
    const { state, dispatch } = fakeServer(() => 5)
    const outcome = await runLoad({
      load: { concurrency: 10, rate: 99 },
      seed: 0,
      dispatch,
      timestampsMs: [0, 30, 30, 90],
    })
    expect(outcome.stoppedBy).toBe('trace-end')
    expect(outcome.dispatched).toBe(4)
    expect(state.sends.map((s) => Math.round((s.plannedAt as number) - outcome.originAt))).toEqual([0, 30, 30, 90])
    expect(state.sends.every((s) => s.at >= (s.plannedAt as number))).toBe(true)
    expect(outcome.warnings.join('\n')).toMatch(/load.rate ignored/)
  })

  it('stops a trace replay early at load.requests', async () => {
    const { dispatch } = fakeServer(() => 1)
    const outcome = await runLoad({ load: { requests: 2 }, seed: 0, dispatch, timestampsMs: [0, 5, 10] })
    expect(outcome).toMatchObject({ stoppedBy: 'requests', dispatched: 2 })
  })

  it('rejects unsorted trace offsets before sending', async () => {
    const { state, dispatch } = fakeServer(() => 1)
    await expect(runLoad({ load: {}, seed: 0, dispatch, timestampsMs: [0, 50, 20] })).rejects.toThrow(
      /timestampsMs\[2\]/,
    )
    expect(state.sends).toHaveLength(0)
  })
})

describe('runWarmup', () => {
  it('sends warm-up requests with negative indices at the given concurrency and waits for them', async () => {
    const { state, dispatch } = fakeServer(() => 5)
    const warmup = { requests: 10, durationMs: 0, concurrency: 3 }
    const outcome = await runWarmup(warmup, (index, signal) => dispatch(index, undefined, signal))
    expect(outcome.requests).toBe(10)
    expect(state.sends.map((s) => s.index)).toEqual([-1, -2, -3, -4, -5, -6, -7, -8, -9, -10])
    expect(state.maxInFlight).toBe(3)
    expect(state.completed).toHaveLength(10)
    expect(outcome.durationMs).toBeGreaterThan(0)
  })

  it('warms up for a duration and skips an empty warm-up', async () => {
    const { state, dispatch } = fakeServer(() => 10)
    const warmup = { requests: 0, durationMs: 60, concurrency: 2 }
    const outcome = await runWarmup(warmup, (index, signal) => dispatch(index, undefined, signal))
    expect(outcome.requests).toBeGreaterThan(2)
    expect(state.completed).toHaveLength(outcome.requests)
    const none = { requests: 0, durationMs: 0, concurrency: 1 }
    expect(await runWarmup(none, () => Promise.resolve())).toEqual({ requests: 0, durationMs: 0 })
  })

  it('one warm-up rule, in the plan: 0 skips, a negative or endless one is refused before anything is sent', async () => {
    const base = {
      target: { baseUrl: 'http://127.0.0.1:1' },
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
      load: { concurrency: 1, requests: 1 },
    } as const
    expect(() => validateOptions({ ...base, warmup: { durationMs: 0 } })).not.toThrow()
    expect(planRun({ ...base, warmup: { durationMs: 0 } }).warmup).toBeUndefined()
    const none = { requests: 0, durationMs: 0, concurrency: 1 }
    expect(await runWarmup(none, () => Promise.reject(new Error('sent')))).toEqual({
      requests: 0,
      durationMs: 0,
    })
    for (const warmup of [{ durationMs: -1 }, { durationMs: Infinity }, { requests: 1.5 }, { requests: -1 }]) {
      expect(() => validateOptions({ ...base, warmup })).toThrow(/warmup\.(durationMs|requests)/)
    }
    expect(() => validateOptions({ ...base, warmup: 5 as never })).toThrow(/warmup.*must be an object/)
  })
})

describe('runLoad, long bursts', () => {
  it('lets I/O run during a long burst of sends', async () => {
    let ticks = 0
    const ticker = setInterval(() => ticks++, 0)
    let ticksAtLastSend = -1
    const outcome = await runLoad({
      load: { rate: Infinity, requests: 2000 },
      seed: 0,
      dispatch: (index) => {
        if (index === 1999) ticksAtLastSend = ticks
        return new Promise((resolve) => setTimeout(resolve, 1))
      },
    })
    clearInterval(ticker)
    expect(outcome.dispatched).toBe(2000)
    // Timers (and so socket reads) got turns while the 2000 sends went out.
    expect(ticksAtLastSend).toBeGreaterThan(0)
  })
})
