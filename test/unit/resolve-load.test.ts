import { describe, expect, test } from 'vitest'
import { canonicalConfig, LOAD_DEFAULTS, planRun, resolveLoad, resolveWarmup } from '../../src/core/plan/index.ts'
import type { LoadOptions } from '../../src/core/contract/options.ts'

describe('resolveLoad: the load with every default, once', () => {
  test('an open loop names its arrivals, gamma its shape; a ramp its curve; every load its drain grace', () => {
    expect(resolveLoad({ rate: 10, requests: 100 })).toEqual({
      rate: 10,
      requests: 100,
      arrival: 'poisson',
      drainGraceMs: 30_000,
      maxInFlight: Infinity,
    })
    expect(resolveLoad({ rate: 10, requests: 100, burstiness: 4 })).toMatchObject({ arrival: 'gamma', burstiness: 4 })
    expect(resolveLoad({ rate: 10, requests: 100, arrival: 'gamma' })).toMatchObject({ burstiness: 1 })
    expect(resolveLoad({ rate: 10, requests: 100, arrival: 'poisson', burstiness: 1 })).not.toHaveProperty('burstiness')
    expect(resolveLoad({ concurrency: 4, requests: 8, rampUp: { from: 1, durationMs: 500 } })).toEqual({
      concurrency: 4,
      requests: 8,
      rampUp: { from: 1, durationMs: 500, curve: 'linear' },
      drainGraceMs: LOAD_DEFAULTS.drainGraceMs,
      maxInFlight: 4,
    })
    expect(resolveLoad({ concurrency: 4, requests: 8, drainGraceMs: 50 }).drainGraceMs).toBe(50)
    // A closed loop's concurrency is left as given (a defaulted 1 would be split among threads or hosts, to 0):
    // its cap is one in flight, in each thread or host.
    expect(resolveLoad({ requests: 8 })).toEqual({ requests: 8, drainGraceMs: 30_000, maxInFlight: 1 })
    // A trace replay names no arrival process, keeps what it will warn that it ignores, and has no cap by default.
    expect(resolveLoad({ rate: 5, requests: 8, arrival: 'gamma' }, 'trace')).toEqual({
      rate: 5,
      requests: 8,
      arrival: 'gamma',
      drainGraceMs: 30_000,
      maxInFlight: Infinity,
    })
    expect(resolveLoad({ requests: 8, concurrency: 3 }, 'trace').maxInFlight).toBe(3)
    expect(resolveLoad({ rate: 5, requests: 8, concurrency: 2 }).maxInFlight).toBe(2)
  })

  test('a default written out or left out resolves the same, and resolving twice changes nothing', () => {
    const short: LoadOptions = { rate: 10, requests: 100 }
    const long: LoadOptions = { rate: 10, requests: 100, arrival: 'poisson', drainGraceMs: 30_000 }
    expect(resolveLoad(long)).toEqual(resolveLoad(short))
    expect(resolveLoad(resolveLoad(short))).toEqual(resolveLoad(short))
  })

  test("the run's load and the baseline's identity are one definition", () => {
    for (const load of [
      { rate: 10, requests: 100 },
      { rate: 5, durationMs: 1000, burstiness: 0.5 },
      { concurrency: 3, requests: 9, rampUp: { from: 1, durationMs: 100, curve: 'exponential' as const } },
    ] satisfies LoadOptions[]) {
      const run = planRun({ workload: { kind: 'prompts', prompts: ['a'] }, load })
      expect(run.load).toEqual(resolveLoad(load))
      // The identity leaves out the cap, which follows from `concurrency` and the schedule.
      const { maxInFlight: _cap, ...identity } = run.load
      expect(canonicalConfig({ load }).load).toEqual(identity)
    }
  })

  test("a trace's timestamps set the sends: its load gets no arrival process, whatever its rate", () => {
    const run = planRun({ workload: { kind: 'trace', path: 'trace.jsonl' }, load: { rate: 5, requests: 3 } })
    expect(run.load).toEqual({ rate: 5, requests: 3, drainGraceMs: 30_000, maxInFlight: Infinity })
  })

  test('the identity is keyed as stored baselines were: a trace by its rate, a closed loop without a concurrency', () => {
    // Entries over 4 KB keep only their config's hash: the canonical config must be what it was before the plan
    // resolved loads, or those entries would stop matching.
    expect(canonicalConfig({ workload: { kind: 'trace' }, load: { rate: 5, requests: 3 } }).load).toEqual({
      rate: 5,
      requests: 3,
      arrival: 'poisson',
      drainGraceMs: 30_000,
    })
    expect(canonicalConfig({ load: { requests: 3 } }).load).toEqual({ requests: 3, drainGraceMs: 30_000 })
  })

  test("the warm-up: at the load's concurrency, else all its requests at once, else one at a time; 0 is none", () => {
    const closed = resolveLoad({ concurrency: 8, requests: 1 })
    const open = resolveLoad({ rate: 5, requests: 1 })
    expect(resolveWarmup({ requests: 20 }, closed)).toEqual({ requests: 20, durationMs: 0, concurrency: 8 })
    expect(resolveWarmup({ requests: 20 }, resolveLoad({ rate: 5, concurrency: 2, requests: 1 }))?.concurrency).toBe(2)
    expect(resolveWarmup({ requests: 20 }, open)?.concurrency).toBe(20)
    expect(resolveWarmup({ durationMs: 1000 }, open)).toEqual({ requests: 0, durationMs: 1000, concurrency: 1 })
    expect(resolveWarmup({ requests: 0, durationMs: 1000 }, open)?.concurrency).toBe(1)
    expect(resolveWarmup({}, closed)).toBeUndefined()
    expect(resolveWarmup({ requests: 0, durationMs: 0 }, closed)).toBeUndefined()
    const run = planRun({
      workload: { kind: 'prompts', prompts: ['a'] },
      load: { rate: 5, requests: 10 },
      warmup: { requests: 4 },
    })
    expect(run.warmup).toEqual({ requests: 4, durationMs: 0, concurrency: 4 })
  })
})
