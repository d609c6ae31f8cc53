import { describe, expect, test } from 'vitest'
import { BatchScheduler } from '../../src/sim/scheduler.ts'
import type { BatchSequence, BatchTimings } from '../../src/sim/scheduler.ts'
import { faultChunkIndex } from '../../src/sim/faults.ts'
import type { MidStreamFault } from '../../src/sim/faults.ts'
import { VirtualClock } from '../helpers/virtual-clock.ts'

interface Recorded {
  admittedAt?: number
  emits: Array<{ at: number; count: number; last: boolean }>
  stalledAt?: number
  failed?: { kind: string; at: number }
}

function sequence(
  promptTokens: number,
  completionTokens: number,
  fault?: MidStreamFault,
  tokensPerChunk = 1,
): { seq: BatchSequence; log: Recorded } {
  const log: Recorded = { emits: [] }
  return {
    log,
    seq: {
      promptTokens,
      completionTokens,
      fault,
      faultAtChunk: faultChunkIndex(Math.ceil(completionTokens / tokensPerChunk)),
      sink: {
        admitted: (at) => (log.admittedAt = at),
        emit: (count, last, at) => log.emits.push({ at, count, last }),
        stalled: (at) => (log.stalledAt = at),
        failed: (kind, at) => (log.failed = { kind, at }),
      },
    },
  }
}

const timings: BatchTimings = {
  maxRunningSequences: 4,
  prefillBaseMs: 2,
  prefillMsPerToken: 0.5,
  decodeBaseMs: 10,
  decodeMsPerSequence: 1,
  tokensPerChunk: 1,
  speedFactor: 1,
  stallMs: 100,
}

const times = (log: Recorded) => log.emits.map((e) => e.at)

describe('BatchScheduler on a virtual clock', () => {
  test('one sequence: first token after prefill + one step, then one token per step', () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler(timings, clock)
    const a = sequence(4, 3)
    s.submit(a.seq)
    expect(s.stats()).toEqual({ running: 0, queued: 1, completed: 0 })
    clock.run()
    // Step 1: prefill 2 + 0.5·4 = 4, decode 10 + 1·1 = 11 → 15; then 11 per step.
    expect(a.log.admittedAt).toBe(0)
    expect(times(a.log)).toEqual([15, 26, 37])
    expect(a.log.emits.map((e) => e.last)).toEqual([false, false, true])
    expect(s.stats()).toEqual({ running: 0, queued: 0, completed: 1 })
  })

  test('a full batch queues the next sequence until a slot frees', () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler({ ...timings, maxRunningSequences: 1 }, clock)
    const a = sequence(4, 3)
    const b = sequence(4, 2)
    s.submit(a.seq)
    s.submit(b.seq)
    clock.run()
    expect(times(a.log)).toEqual([15, 26, 37])
    expect(b.log.admittedAt).toBe(37)
    expect(times(b.log)).toEqual([37 + 15, 37 + 26])
  })

  test("a sequence joining mid-run is prefilled in the next step, which lengthens the running sequences' step", () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler(timings, clock)
    const a = sequence(4, 4)
    const b = sequence(8, 2)
    s.submit(a.seq)
    clock.after(5, () => s.submit(b.seq))
    clock.run()
    // B arrives during A's first step (0..15) and joins at 15: prefill 2 + 0.5·8 = 6, decode 10 + 1·2 = 12 → 33.
    expect(b.log.admittedAt).toBe(15)
    expect(times(a.log)).toEqual([15, 33, 45, 56])
    expect(times(b.log)).toEqual([33, 45])
  })

  test('tokensPerChunk emits several tokens per step, the last chunk what is left', () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler({ ...timings, tokensPerChunk: 3, prefillBaseMs: 0, prefillMsPerToken: 0 }, clock)
    const a = sequence(0, 7, undefined, 3)
    s.submit(a.seq)
    clock.run()
    expect(a.log.emits.map((e) => e.count)).toEqual([3, 3, 1])
    expect(times(a.log)).toEqual([11, 22, 33])
  })

  test('timer lateness below one step is made up: no drift over a long stream', () => {
    const clock = new VirtualClock()
    clock.lateness = () => 0.6
    const s = new BatchScheduler(
      { ...timings, prefillBaseMs: 0, prefillMsPerToken: 0, decodeBaseMs: 5, decodeMsPerSequence: 0 },
      clock,
    )
    const a = sequence(0, 100)
    s.submit(a.seq)
    clock.run()
    const t = times(a.log)
    // Without compensation the last token would be 99 · 0.6 ms later than planned.
    for (const [i, at] of t.entries()) expect(at - (t[0] ?? NaN)).toBeCloseTo(5 * i, 9)
  })

  test('a stall longer than one step (the process was blocked) is forgiven beyond one step', () => {
    const clock = new VirtualClock()
    clock.lateness = (due) => (due === 25 ? 12 : 0)
    const s = new BatchScheduler(
      { ...timings, prefillBaseMs: 0, prefillMsPerToken: 0, decodeBaseMs: 5, decodeMsPerSequence: 0 },
      clock,
    )
    const a = sequence(0, 10)
    s.submit(a.seq)
    clock.run()
    // Due at 25, fired at 37; one step (5 ms) of the 12 is made up, 7 are not.
    expect(times(a.log)).toEqual([5, 10, 15, 20, 37, 37, 42, 47, 52, 57])
  })

  test('speedFactor scales every modeled delay; 0 removes them', () => {
    const slow = new VirtualClock()
    const s2 = new BatchScheduler({ ...timings, speedFactor: 2 }, slow)
    const a = sequence(4, 2)
    s2.submit(a.seq)
    slow.run()
    expect(times(a.log)).toEqual([30, 52])

    const instant = new VirtualClock()
    const s0 = new BatchScheduler({ ...timings, speedFactor: 0 }, instant)
    const b = sequence(4, 5)
    s0.submit(b.seq)
    instant.run()
    expect(times(b.log)).toEqual([0, 0, 0, 0, 0])
    expect(s0.stats().completed).toBe(1)
  })

  test('cancel frees a running slot and drops a queued sequence', () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler({ ...timings, maxRunningSequences: 1 }, clock)
    const a = sequence(0, 1000)
    const b = sequence(0, 1000)
    const c = sequence(0, 1)
    s.submit(a.seq)
    s.submit(b.seq)
    s.submit(c.seq)
    clock.after(50, () => {
      expect(s.stats()).toEqual({ running: 1, queued: 2, completed: 0 })
      s.cancel(b.seq)
      s.cancel(a.seq)
      expect(s.stats()).toEqual({ running: 0, queued: 1, completed: 0 })
    })
    clock.run()
    expect(a.log.emits.length).toBeLessThan(10)
    expect(b.log.admittedAt).toBeUndefined()
    expect(c.log.emits).toHaveLength(1)
    expect(s.stats()).toEqual({ running: 0, queued: 0, completed: 1 })
  })

  test('drop and error faults strike after half the chunks and free the slot', () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler({ ...timings, maxRunningSequences: 1 }, clock)
    const a = sequence(0, 10, 'drop-connection')
    const b = sequence(0, 3, 'error-event')
    s.submit(a.seq)
    s.submit(b.seq)
    clock.run()
    expect(a.log.emits).toHaveLength(5)
    expect(a.log.failed).toEqual({ kind: 'drop-connection', at: times(a.log)[4] })
    expect(b.log.admittedAt).toBe(a.log.failed?.at)
    expect(b.log.emits).toHaveLength(1)
    expect(b.log.failed?.kind).toBe('error-event')
    expect(s.stats()).toEqual({ running: 0, queued: 0, completed: 0 })
  })

  test('a stall pauses one sequence for stallMs while the others keep decoding', () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler({ ...timings, prefillBaseMs: 0, prefillMsPerToken: 0, decodeMsPerSequence: 0 }, clock)
    const stalled = sequence(0, 4, 'stall')
    const steady = sequence(0, 12)
    s.submit(stalled.seq)
    s.submit(steady.seq)
    clock.run()
    // Stall starts after 2 chunks (at 20) and lasts 100 ms: the next step begins at 120 at the earliest.
    expect(stalled.log.stalledAt).toBe(20)
    expect(times(stalled.log)).toEqual([10, 20, 130, 140])
    expect(times(steady.log)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120])
  })

  test('a fault at chunk 0 frees its slot for a queued sequence within the same step', () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler({ ...timings, maxRunningSequences: 1, prefillBaseMs: 0, prefillMsPerToken: 0 }, clock)
    const a = sequence(0, 1, 'drop-connection')
    const b = sequence(0, 1)
    s.submit(a.seq)
    s.submit(b.seq)
    clock.run()
    expect(a.log.failed).toEqual({ kind: 'drop-connection', at: 0 })
    expect(times(b.log)).toEqual([11])
  })
})
