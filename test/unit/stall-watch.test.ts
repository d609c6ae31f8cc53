import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { startStallWatch } from '../../src/core/load/stall-watch.ts'
import type { StallReport } from '../../src/core/contract/result.ts'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] })
})
afterEach(() => {
  vi.useRealTimers()
})

function watched(timeoutMs: number) {
  const state = { activity: 0, inFlight: 0 }
  const silences: Array<[number, number]> = []
  const stalls: StallReport[] = []
  const watch = startStallWatch({
    timeoutMs,
    activity: () => state.activity,
    inFlight: () => state.inFlight,
    onSilence: (silentMs, inFlight) => silences.push([Math.round(silentMs), inFlight]),
    onStall: (stall) => stalls.push(stall),
  })
  return { state, silences, stalls, watch }
}

describe('startStallWatch', () => {
  test('silence with requests in flight is said after 5 s and stops the run at the timeout, once', () => {
    const { state, silences, stalls, watch } = watched(12_000)
    state.inFlight = 3
    vi.advanceTimersByTime(4_500)
    expect(silences).toEqual([])
    vi.advanceTimersByTime(1_000)
    expect(silences).toEqual([
      [5_000, 3],
      [5_500, 3],
    ])
    vi.advanceTimersByTime(7_000)
    expect(stalls).toEqual([{ silentMs: 12_000, inFlight: 3, stallTimeoutMs: 12_000 }])
    expect(watch.stall).toEqual(stalls[0])
    vi.advanceTimersByTime(60_000)
    expect(stalls).toHaveLength(1)
  })

  test('any activity, or nothing in flight, restarts the count', () => {
    const { state, silences, stalls, watch } = watched(3_000)
    state.inFlight = 2
    for (let i = 0; i < 20; i++) {
      vi.advanceTimersByTime(2_500)
      state.activity++
    }
    state.inFlight = 0
    vi.advanceTimersByTime(60_000)
    expect(stalls).toEqual([])
    // A notice comes at half a short timeout (1.5 s), never a stall.
    expect(silences.length).toBeGreaterThan(0)
    expect(silences.every(([ms]) => ms >= 1_500 && ms < 3_000)).toBe(true)
    state.inFlight = 1
    vi.advanceTimersByTime(3_000)
    expect(watch.stall).toEqual({ silentMs: 3_000, inFlight: 1, stallTimeoutMs: 3_000 })
  })

  test('stop() ends the watch', () => {
    const { state, stalls, watch } = watched(1_000)
    watch.stop()
    state.inFlight = 1
    vi.advanceTimersByTime(10_000)
    expect(stalls).toEqual([])
  })
})
