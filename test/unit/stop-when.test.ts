import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import {
  StopWhenStop,
  StopWhenWatch,
  type FinishedRequest,
  type StopWhenTrigger,
} from '../../src/core/load/stop-when.ts'
import { runLoad } from '../../src/core/load/index.ts'
import { resolveLoad } from '../../src/core/plan/resolve-load.ts'
import { resolveStopWhen, STOP_WHEN_DEFAULTS } from '../../src/core/plan/resolve-stop-when.ts'
import { planRun } from '../../src/core/plan/run-plan.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import type { ResolvedStopWhen } from '../../src/core/contract/options.ts'

const ORIGIN = 10_000

function watched(stopWhen: Partial<ResolvedStopWhen>) {
  const triggers: StopWhenTrigger[] = []
  const watch = new StopWhenWatch({
    stopWhen: { forMs: 2_000, windowMs: 1_000, expected: false, ...stopWhen },
    origin: () => ORIGIN,
    onStop: (trigger) => triggers.push(trigger),
    timer: false,
  })
  return { watch, triggers }
}

const ok = (endAt: number, ttftMs = 50, e2eMs = 200): FinishedRequest => ({ endAt, ok: true, ttftMs, e2eMs })
const failed = (endAt: number): FinishedRequest => ({ endAt, ok: false, ttftMs: undefined, e2eMs: undefined })

describe('StopWhenWatch', () => {
  test('an error rate over the limit for forMs stops, once, with the window figures and times from the origin', () => {
    const { watch, triggers } = watched({ errorRate: 0.5 })
    // Healthy for a second, then every request fails, one every 50 ms.
    for (let t = ORIGIN; t < ORIGIN + 1_000; t += 50) watch.add(ok(t))
    for (let t = ORIGIN + 1_000; t <= ORIGIN + 5_000; t += 50) watch.add(failed(t))
    expect(triggers).toHaveLength(1)
    const [trigger] = triggers as [StopWhenTrigger]
    // More than half of the last second (ends included) failed from t = 1.5 s on: 11 of 21, the first failure at 1 s.
    expect(trigger.conditionSinceMs).toBe(1_500)
    expect(trigger.atMs - trigger.conditionSinceMs).toBeGreaterThanOrEqual(2_000)
    expect(trigger.atMs - trigger.conditionSinceMs).toBeLessThan(2_050)
    expect(trigger.reason).toBe('error rate 100 % > 50 % (21 of 21 requests in the last 1 s)')
    expect(watch.trigger).toEqual(trigger)
  })

  test('a condition that breaks before forMs starts its clock again; a window at the limit does not hold', () => {
    const { watch, triggers } = watched({ errorRate: 0.5 })
    // Failures for 1.5 s, a healthy second, failures for 1.5 s: never 2 s in a row.
    let t = ORIGIN
    for (; t < ORIGIN + 1_500; t += 50) watch.add(failed(t))
    for (; t < ORIGIN + 2_500; t += 50) watch.add(ok(t))
    for (; t < ORIGIN + 4_000; t += 50) watch.add(failed(t))
    // Alternating ok and failed: exactly 50 %, not more.
    for (; t < ORIGIN + 9_000; t += 50) watch.add((t / 50) % 2 === 0 ? ok(t) : failed(t))
    expect(triggers).toEqual([])
  })

  test('TTFT and E2E percentiles are read over ok requests of the window (nearest rank)', () => {
    const { watch, triggers } = watched({ ttftMs: { p99: 500 }, e2eMs: { p50: 10_000 } })
    // 99 fast and 1 slow per second: p99 (nearest rank over 100) is the 99th, fast; failures carry no TTFT.
    for (let t = ORIGIN; t < ORIGIN + 4_000; t += 10)
      watch.add(t % 1_000 === 0 ? ok(t, 5_000) : t % 1_000 === 10 ? failed(t) : ok(t, 100))
    expect(triggers).toEqual([])
    // Then TTFT grows to 1.2 s.
    for (let t = ORIGIN + 4_000; t < ORIGIN + 8_000; t += 10) watch.add(ok(t, 1_210))
    expect(triggers).toHaveLength(1)
    expect(triggers[0]?.reason).toBe('TTFT p99 1210 ms > 500 ms (101 requests in the last 1 s)')
  })

  test('while no request finishes the last figures stand, and the timer check stops the load', () => {
    const { watch, triggers } = watched({ errorRate: 0.1, forMs: 3_000 })
    for (let t = ORIGIN; t <= ORIGIN + 500; t += 50) watch.add(failed(t))
    // The server goes quiet: nothing finishes, the checks come from the timer.
    watch.check(ORIGIN + 2_000)
    expect(triggers).toEqual([])
    watch.check(ORIGIN + 3_100)
    expect(triggers).toEqual([
      { atMs: 3_100, conditionSinceMs: 0, reason: 'error rate 100 % > 10 % (11 of 11 requests in the last 1 s)' },
    ])
  })

  test('a quiet window that never held does not stop, and nothing is read before the first dispatch', () => {
    const triggers: StopWhenTrigger[] = []
    const dispatch: { firstAt?: number } = {}
    const watch = new StopWhenWatch({
      stopWhen: { errorRate: 0, forMs: 100, windowMs: 1_000, expected: false },
      origin: () => dispatch.firstAt,
      onStop: (trigger) => triggers.push(trigger),
      timer: false,
    })
    watch.check(ORIGIN + 60_000)
    watch.add(failed(ORIGIN))
    watch.check(ORIGIN + 61_000)
    expect(triggers).toEqual([])
    dispatch.firstAt = ORIGIN
    for (let t = ORIGIN + 1; t < ORIGIN + 300; t += 25) watch.add(ok(t))
    watch.check(ORIGIN + 5_000)
    expect(triggers).toEqual([])
  })
})

describe('StopWhenWatch timer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  test('reads the window every 100 ms on its own, and stops reading once stopped', () => {
    const triggers: StopWhenTrigger[] = []
    const start = performance.now()
    const watch = new StopWhenWatch({
      stopWhen: { errorRate: 0.5, forMs: 1_000, windowMs: 1_000, expected: false },
      origin: () => start,
      onStop: (trigger) => triggers.push(trigger),
    })
    watch.add(failed(start))
    vi.advanceTimersByTime(950)
    expect(triggers).toEqual([])
    vi.advanceTimersByTime(100)
    expect(triggers).toHaveLength(1)
    expect(triggers[0]?.atMs).toBe(1_000)
    vi.advanceTimersByTime(5_000)
    expect(triggers).toHaveLength(1)
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('runLoad stopped by stopWhen', () => {
  test('cancels what is in flight at once and leaves the count to the stop line, not an "aborted" warning', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(new StopWhenStop('error rate 100 % > 5 %')), 30)
    const outcome = await runLoad({
      load: resolveLoad({ concurrency: 3, requests: 100 }),
      seed: 0,
      // Requests that never finish on their own: only the abort ends them.
      dispatch: (_index, _plannedAt, signal) =>
        new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
      signal: controller.signal,
    })
    expect(outcome.stoppedBy).toBe('signal')
    expect(outcome.dispatched).toBe(3)
    expect(outcome.cancelled).toBe(3)
    expect(outcome.warnings.join('\n')).not.toContain('cancelled')
  })
})

describe('stopWhen options', () => {
  const context = { workers: 1, segmented: false }

  test('defaults are applied by the plan, given values kept', () => {
    expect(resolveStopWhen({ errorRate: 0.05 }, context)).toEqual({
      errorRate: 0.05,
      forMs: STOP_WHEN_DEFAULTS.forMs,
      windowMs: STOP_WHEN_DEFAULTS.windowMs,
      expected: false,
    })
    expect(STOP_WHEN_DEFAULTS).toEqual({ forMs: 5_000, windowMs: 1_000, expected: false })
    expect(resolveStopWhen({ ttftMs: { p99: 500 }, forMs: 2_000, windowMs: 500, expected: true }, context)).toEqual({
      ttftMs: { p99: 500 },
      forMs: 2_000,
      windowMs: 500,
      expected: true,
    })
    expect(resolveStopWhen(undefined, context)).toBeUndefined()
    const plan = planRun({
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
      load: { concurrency: 2, requests: 10 },
      stopWhen: { e2eMs: { p50: 1_000 } },
    })
    expect(plan.stopWhen).toEqual({ e2eMs: { p50: 1_000 }, forMs: 5_000, windowMs: 1_000, expected: false })
  })

  test.each([
    [[], 'stopWhen', 'must be an object'],
    [{}, 'stopWhen', 'names no limit'],
    [{ forMs: 1_000 }, 'stopWhen', 'names no limit'],
    [{ errorRate: 1 }, 'stopWhen.errorRate', 'must be a share from 0 up to (not including) 1, got 1'],
    [{ errorRate: -0.1 }, 'stopWhen.errorRate', 'got -0.1'],
    [{ errorRate: '5%' }, 'stopWhen.errorRate', 'got 5%'],
    [{ ttftMs: 500 }, 'stopWhen.ttftMs', 'must be an object'],
    [{ ttftMs: {} }, 'stopWhen.ttftMs', 'names no percentile'],
    [{ ttftMs: { p90: 500 } }, 'stopWhen.ttftMs.p90', 'is not an option'],
    [{ e2eMs: { p99: 0 } }, 'stopWhen.e2eMs.p99', 'must be a positive number of milliseconds, got 0'],
    [{ errorRate: 0.1, forMs: -1 }, 'stopWhen.forMs', 'must be a positive number of milliseconds, got -1'],
    [{ errorRate: 0.1, windowMs: Infinity }, 'stopWhen.windowMs', 'got Infinity'],
    [{ errorRate: 0.1, expected: 'yes' }, 'stopWhen.expected', 'must be true or false'],
    [{ errorRate: 0.1, forMS: 1 }, 'stopWhen.forMS', 'is not an option'],
  ])('%j is refused naming %s', (value, option, message) => {
    let error: unknown
    try {
      resolveStopWhen(value, context)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(OptionsError)
    expect((error as OptionsError).message).toContain(option)
    expect((error as OptionsError).message).toContain(message)
  })

  test('threads and segments are refused with what to do', () => {
    expect(() =>
      planRun({
        workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
        load: { concurrency: 4, requests: 100 },
        workers: 2,
        stopWhen: { errorRate: 0.1 },
      }),
    ).toThrow(/stopWhen.*cannot be combined with 2 threads.*Leave `workers` out/s)
    expect(() => resolveStopWhen({ errorRate: 0.1 }, { workers: 1, segmented: true })).toThrow(
      /segmented load.*LLM_BENCH_SEGMENT/s,
    )
  })
})
