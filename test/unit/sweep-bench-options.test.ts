import { describe, expect, it } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { serverScenario } from '../../src/core/scenario/index.ts'
import { connect } from '../../src/core/server/index.ts'
import { validateBenchSweepOptions } from '../../src/bench/sweep-bench-options.ts'
import { pointLoad } from '../../src/core/sweep/run-point.ts'
import { resolveLoad } from '../../src/core/plan/index.ts'

const workload = { kind: 'synthetic' as const, inputTokens: { mean: 16 }, outputTokens: { mean: 8 } }

function error(options: unknown): OptionsError {
  try {
    validateBenchSweepOptions('sweep', options)
  } catch (caught) {
    if (caught instanceof OptionsError) return caught
    throw caught
  }
  throw new Error('no error thrown')
}

describe('validateBenchSweepOptions', () => {
  it('accepts a curve, a capacity search and a scenario', () => {
    expect(() =>
      validateBenchSweepOptions('c', {
        workload,
        over: { concurrency: [1, 2, 4] },
        load: { requests: 20 },
        expect: { throughput: [{ at: 4, minVsBaseline: 0.9 }] },
      }),
    ).not.toThrow()
    expect(() =>
      validateBenchSweepOptions('r', {
        workload,
        capacity: { limits: { ttftMs: 500 }, rate: { min: 1, max: 8 } },
        load: { durationMs: 5000, concurrency: 64 },
      }),
    ).not.toThrow()
    expect(() =>
      validateBenchSweepOptions('s', {
        workload,
        scenario: serverScenario({ ttftMs: 500, tpotMs: 50, rate: { min: 1, max: 8 } }),
        load: { drainGraceMs: 1000 },
      }),
    ).not.toThrow()
  })

  it('a rate sweep with burstiness alone runs as gamma, as the same load on bench.llm does', () => {
    const load = { requests: 20, burstiness: 0.5 }
    expect(() => validateBenchSweepOptions('b', { workload, over: { rate: [2, 4] }, load })).not.toThrow()
    expect(() =>
      validateBenchSweepOptions('c', {
        workload,
        capacity: { limits: { ttftMs: 500 }, rate: { min: 1, max: 8 } },
        load,
      }),
    ).not.toThrow()
    expect(resolveLoad(pointLoad('rate', 4, load))).toMatchObject({ rate: 4, arrival: 'gamma', burstiness: 0.5 })
    expect(resolveLoad(pointLoad('rate', 4, { requests: 20 }))).toMatchObject({ rate: 4, arrival: 'poisson' })
    expect(resolveLoad({ ...load, rate: 4 })).toMatchObject({ arrival: 'gamma', burstiness: 0.5 })
  })

  it('wants exactly one of over, capacity and scenario', () => {
    expect(error({ workload, load: { requests: 1 } })).toMatchObject({ option: 'over' })
    expect(
      error({
        workload,
        over: { rate: [1] },
        capacity: { limits: { ttftMs: 1 }, rate: { min: 1, max: 2 } },
        load: { requests: 1 },
      }).option,
    ).toBe('over, capacity')
  })

  it('names the offending option and says what to do', () => {
    expect(error({ workload, over: { concurrency: [1, 2] } }).message).toMatch(
      /`load`: is missing\. Give the stop rule/,
    )
    expect(error({ workload, over: { concurrency: [1, 2] }, load: { requests: 5, concurrency: 4 } }).option).toBe(
      'load.concurrency',
    )
    expect(error({ workload, over: { concurrency: [1, 2.5] }, load: { requests: 5 } }).option).toBe(
      'over.concurrency[1]',
    )
    expect(error({ workload, over: { concurrency: [2, 2] }, load: { requests: 5 } }).option).toBe('over.concurrency[1]')
    expect(error({ workload, over: { concurrency: [1], rate: [1] }, load: { requests: 5 } }).option).toBe('over')
    expect(
      error({ workload, over: { rate: [1] }, load: { requests: 5, rampUp: { from: 1, durationMs: 10 } } }).option,
    ).toBe('load.rampUp')
    expect(error({ workload, over: { rate: [1] }, load: { requests: 5 }, slo: {} }).message).toMatch(/Use `expect`/)
    expect(error({ workload, over: { rate: [1] }, load: { requests: 5 }, saturation: { minGain: -1 } }).option).toBe(
      'saturation.minGain',
    )
    expect(
      error({ workload, over: { rate: [1, 2] }, load: { requests: 5 }, expect: { throughput: [{ at: 3, min: 1 }] } })
        .option,
    ).toBe('expect.throughput[0].at')
    expect(error({ workload, capacity: { limits: {}, rate: { min: 1, max: 2 } }, load: { requests: 5 } }).option).toBe(
      'capacity.limits',
    )
    expect(
      error({ workload, capacity: { limits: { ttftMs: 5 }, rate: { min: 4, max: 2 } }, load: { requests: 5 } }).option,
    ).toBe('capacity.rate')
    expect(error({ workload, scenario: { name: 'MultiStream' }, load: {} }).option).toBe('scenario.name')
    expect(error({ workload, scenario: { name: 'Server', ttftMs: 5, rate: { min: 1, max: 2 } } }).option).toBe(
      'scenario.tpotMs',
    )
    expect(error({ workload, scenario: { name: 'Offline', requests: 8 }, load: { requests: 5 } }).option).toBe(
      'load.requests',
    )
    // Fewer requests than LoadGen's early stopping needs could never be VALID (issue 31.5): refused, naming the least.
    const server = { name: 'Server', ttftMs: 500, tpotMs: 50, rate: { min: 1, max: 2 } }
    const tooFew = error({ workload, scenario: { ...server, requests: 458 } })
    expect(tooFew.option).toBe('scenario.requests')
    expect(tooFew.message).toContain('is 458, fewer than the 459 requests a VALID Server run at the 99th percentile')
    expect(error({ workload, scenario: { name: 'SingleStream', requests: 63 } }).message).toContain(
      'fewer than the 64 requests an early-stopping estimate of the 90th percentile needs',
    )
    expect(() =>
      validateBenchSweepOptions('sweep', { workload, scenario: serverScenario({ ...server, requests: 459 }) }),
    ).not.toThrow()
    // Options shared with bench.llm go through its validation.
    expect(error({ workload: { kind: 'nope' }, over: { rate: [1] }, load: { requests: 5 } }).option).toBe(
      'workload.kind',
    )
  })

  it('refuses to restart a server it only connects to', () => {
    expect(
      error({
        workload,
        over: { rate: [1] },
        load: { requests: 5 },
        between: { restartServer: true },
        server: connect('http://127.0.0.1:8000'),
      }).option,
    ).toBe('between.restartServer')
    expect(error({ workload, over: { rate: [1] }, load: { requests: 5 }, between: { restart: true } }).option).toBe(
      'between.restart',
    )
  })
})
