import { describe, expect, it } from 'vitest'
import { planArrivals as planResolved } from '../../src/core/load/index.ts'
import { segmentShare as shareOfResolved } from '../../src/core/workers/segment-load.ts'
import { resolveLoad } from '../../src/core/plan/index.ts'
import { segmentFromEnv } from '../../src/bench/segment-env.ts'
import { planRun } from '../../src/core/plan/run-plan.ts'
import type { LoadOptions } from '../../src/core/contract/options.ts'

// The loads below are written as a user writes them; the plan resolves them before the stages see them.
const planArrivals = (load: LoadOptions, seed: number, count: number): number[] =>
  planResolved(resolveLoad(load), seed, count)
type ShareRest = Parameters<typeof shareOfResolved> extends [unknown, ...infer R] ? R : never
const segmentShare = (load: LoadOptions, ...rest: ShareRest): ReturnType<typeof shareOfResolved> =>
  shareOfResolved(resolveLoad(load), ...rest)

/** Every (global index, planned offset) of the N slices of `load`, sorted by index. */
function union(load: LoadOptions, count: number, timestamps?: number[]): Array<[number, number | undefined]> {
  const all: Array<[number, number | undefined]> = []
  for (let index = 1; index <= count; index++) {
    const share = segmentShare(load, undefined, 9, timestamps, { index, count })
    const n = share.timestampsMs?.length ?? share.load.requests ?? share.load.sessions ?? 0
    for (let local = 0; local < n; local++) all.push([share.indexOf(local), share.timestampsMs?.[local]])
  }
  return all.sort((a, b) => a[0] - b[0])
}

describe('segmentShare: disjoint slices of one global plan', () => {
  it('open loop: segment i of N takes arrivals k = i-1 mod N at their global offsets; together they are the one-process plan', () => {
    const load: LoadOptions = { rate: 20, arrival: 'poisson', requests: 103, concurrency: 8 }
    const global = planArrivals(load, 9, 103)
    const slices = union(load, 4)
    expect(slices.map(([index]) => index)).toEqual(Array.from({ length: 103 }, (_, i) => i))
    expect(slices.map(([, offset]) => offset)).toEqual(global)
    const warmup = { requests: 6, durationMs: 0, concurrency: 8 }
    const second = segmentShare(load, warmup, 9, undefined, { index: 2, count: 4 })
    // The rate became planned offsets; the cap is shared, the warm-up's too.
    expect(second.load).toEqual({ concurrency: 2, drainGraceMs: 30_000, maxInFlight: 2 })
    expect(second.warmup).toEqual({ requests: 2, durationMs: 0, concurrency: 2 })
    // Without a cap, every share of an open loop is uncapped; a warm-up of all its requests at once sends its share so.
    const uncapped = segmentShare({ rate: 20, requests: 103 }, { ...warmup, concurrency: 6 }, 9, undefined, {
      index: 4,
      count: 4,
    })
    expect(uncapped.load.maxInFlight).toBe(Infinity)
    expect(uncapped.warmup).toEqual({ requests: 1, durationMs: 0, concurrency: 1 })
    expect(second.indexOf(0)).toBe(1)
    expect(second.indexOf(3)).toBe(13)
  })

  it('open loop with a duration plans the same arrivals as one process would', () => {
    const load: LoadOptions = { rate: 10, arrival: 'constant', durationMs: 2000 }
    expect(union(load, 3).map(([, offset]) => offset)).toEqual(planArrivals(load, 9, 20))
  })

  it('closed loop: concurrency and requests split into whole shares; sessions of a session load likewise', () => {
    expect(
      segmentShare({ concurrency: 10, requests: 101 }, undefined, 9, undefined, { index: 1, count: 4 }).load,
    ).toEqual({ concurrency: 3, requests: 26, drainGraceMs: 30_000, maxInFlight: 3 })
    expect(
      segmentShare({ concurrency: 10, requests: 101 }, undefined, 9, undefined, { index: 4, count: 4 }).load,
    ).toEqual({ concurrency: 2, requests: 25, drainGraceMs: 30_000, maxInFlight: 2 })
    expect(union({ concurrency: 10, requests: 101 }, 4).map(([index]) => index)).toEqual(
      Array.from({ length: 101 }, (_, i) => i),
    )
    expect(segmentShare({ concurrency: 4, sessions: 9 }, undefined, 9, undefined, { index: 2, count: 2 }).load).toEqual(
      { concurrency: 2, sessions: 4, drainGraceMs: 30_000, maxInFlight: 2 },
    )
  })

  it('a closed loop without a concurrency: every segment runs one in flight, none gets 0 (which would hang it)', () => {
    for (const index of [1, 2, 3, 4]) {
      const share = segmentShare({ requests: 100 }, undefined, 9, undefined, { index, count: 4 })
      expect(share.load.concurrency).toBeUndefined()
      expect(share.load.maxInFlight).toBe(1)
      expect(share.load.requests).toBe(25)
    }
  })

  it('a trace (or agentic trace) goes entry by entry: each root session to one segment', () => {
    const timestamps = [0, 5, 5, 12, 30, 31, 40]
    const slices = union({ concurrency: 4 }, 3, timestamps)
    expect(slices).toEqual(timestamps.map((t, i) => [i, t]))
    expect(segmentShare({ sessions: 4 }, undefined, 9, timestamps, { index: 1, count: 2 }).timestampsMs).toEqual([0, 5])
  })
})

describe('segments from the environment', () => {
  it('LLM_BENCH_SEGMENT=i/N, or JOB_COMPLETION_INDEX (0-based) with LLM_BENCH_SEGMENTS; LLM_BENCH_START_AT', () => {
    expect(segmentFromEnv({})).toBeUndefined()
    expect(segmentFromEnv({ LLM_BENCH_SEGMENT: '2/4', LLM_BENCH_START_AT: '1764000000000' })).toEqual({
      index: 2,
      count: 4,
      startAtMs: 1764000000000,
    })
    expect(segmentFromEnv({ JOB_COMPLETION_INDEX: '0', LLM_BENCH_SEGMENTS: '4' })).toEqual({ index: 1, count: 4 })
    expect(() => segmentFromEnv({ LLM_BENCH_SEGMENT: 'two of four' })).toThrow(/LLM_BENCH_SEGMENT.*must be i\/N/s)
    expect(() => segmentFromEnv({ LLM_BENCH_SEGMENTS: '4' })).toThrow(/JOB_COMPLETION_INDEX.*0-based/s)
    expect(() => segmentFromEnv({ LLM_BENCH_START_AT: '123' })).toThrow(/LLM_BENCH_START_AT.*no segment/s)
    expect(() => segmentFromEnv({ LLM_BENCH_SEGMENT: '1/2', LLM_BENCH_START_AT: 'soon' })).toThrow(/epoch milliseconds/)
  })

  it('the plan refuses a segment that would get nothing to do, and one out of range', () => {
    const base = { workload: { kind: 'prompts' as const, prompts: ['a'] } }
    expect(() => planRun({ ...base, load: { concurrency: 2, requests: 10 }, segment: { index: 1, count: 4 } })).toThrow(
      /4 segments cannot share load.concurrency = 2/,
    )
    expect(() => planRun({ ...base, load: { rate: 5, requests: 3 }, segment: { index: 1, count: 4 } })).toThrow(
      /4 segments cannot share 3 requests/,
    )
    expect(() => planRun({ ...base, load: { concurrency: 4, requests: 10 }, segment: { index: 5, count: 4 } })).toThrow(
      /segment.index.*from 1 to 4/s,
    )
    expect(
      planRun({
        ...base,
        load: { concurrency: 4, requests: 10 },
        segment: { index: 4, count: 4, startAtMs: 1764000000000 },
      }).segment,
    ).toEqual({ index: 4, count: 4, startAtMs: 1764000000000 })
  })
})
