import { describe, expect, it } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { validateLoad } from '../../src/core/load/index.ts'
import type { LoadOptions } from '../../src/core/contract/options.ts'

const bad = (load: unknown, context?: { trace?: boolean }): OptionsError => {
  try {
    validateLoad(load as LoadOptions, context)
  } catch (error) {
    expect(error).toBeInstanceOf(OptionsError)
    return error as OptionsError
  }
  throw new Error(`validateLoad accepted ${JSON.stringify(load)}`)
}

describe('validateLoad', () => {
  it.each([
    [{ rate: 0, requests: 1 }, 'load.rate', /> 0/],
    [{ rate: -3, requests: 1 }, 'load.rate', /> 0/],
    [{ rate: Number.NaN, requests: 1 }, 'load.rate', /NaN/],
    [{ concurrency: 0, requests: 1 }, 'load.concurrency', />= 1/],
    [{ concurrency: 2.5, requests: 1 }, 'load.concurrency', /whole number/],
    [{ concurrency: 4 }, 'load', /neither `requests` nor `durationMs`/],
    [{ rate: 5, burstiness: 0, requests: 1 }, 'load.burstiness', /> 0/],
    [{ rate: 5, burstiness: -1, requests: 1 }, 'load.burstiness', /> 0/],
    [{ arrival: 'gamma', concurrency: 2, requests: 1 }, 'load.arrival', /load.rate/],
    [{ burstiness: 2, requests: 1 }, 'load.burstiness', /load.rate/],
    [{ rate: 5, arrival: 'uniform', requests: 1 }, 'load.arrival', /constant, poisson, gamma/],
    [{ rate: 5, arrival: 'constant', burstiness: 2, requests: 1 }, 'load.burstiness', /gamma/],
    [{ rate: 5, requests: 0 }, 'load.requests', />= 1/],
    [{ rate: 5, requests: 1.5 }, 'load.requests', /whole number/],
    [{ rate: 5, durationMs: 0 }, 'load.durationMs', /> 0/],
    [{ rate: 5, durationMs: Infinity }, 'load.durationMs', /finite/],
    [{ rate: Infinity, durationMs: 1000 }, 'load.rate', /without bound/],
    [{ rate: 5, requests: 1, drainGraceMs: -1 }, 'load.drainGraceMs', />= 0/],
    [{ rate: 5, requests: 1, qps: 3 }, 'load.qps', /is not an option of `load`/],
    [{ rate: 5, requests: 1, rampUp: { from: 1, durationMs: 0 } }, 'load.rampUp.durationMs', /> 0/],
    [{ rate: 5, requests: 1, rampUp: { from: -1, durationMs: 10 } }, 'load.rampUp.from', /at least 0/],
    [
      { rate: 5, requests: 1, rampUp: { from: 0, durationMs: 10, curve: 'exponential' } },
      'load.rampUp.from',
      /greater than 0/,
    ],
    [
      { rate: 5, requests: 1, rampUp: { from: 1, durationMs: 10, curve: 'cubic' } },
      'load.rampUp.curve',
      /linear or exponential/,
    ],
    [{ rate: Infinity, requests: 1, rampUp: { from: 1, durationMs: 10 } }, 'load.rampUp', /infinite/],
    [null, 'load', /object/],
  ])('rejects %j naming %s', (load, option, problem) => {
    const error = bad(load)
    expect(error.option).toBe(option)
    expect(error.message).toMatch(problem)
    // Every message says what to do, not only what is wrong.
    expect(error.message).toMatch(/\. [A-Z`].+/)
  })

  it('accepts the documented shapes', () => {
    for (const load of [
      { concurrency: 8, requests: 100 },
      { rate: 10, durationMs: 60_000 },
      { rate: 10, arrival: 'gamma', burstiness: 0.5, requests: 10 },
      { rate: 10, burstiness: 2, requests: 10 },
      { rate: Infinity, requests: 100 },
      { rate: Infinity, concurrency: 4, durationMs: 1000 },
      { rate: 10, concurrency: 4, requests: 10, drainGraceMs: 0 },
      { concurrency: 16, durationMs: 1000, rampUp: { from: 1, durationMs: 500, curve: 'exponential' } },
    ] satisfies LoadOptions[]) {
      expect(() => validateLoad(load)).not.toThrow()
    }
  })

  it('lets a trace replay run without requests or duration, but not ramp it', () => {
    expect(() => validateLoad({}, { trace: true })).not.toThrow()
    expect(() => validateLoad({ concurrency: 4 }, { trace: true })).not.toThrow()
    expect(bad({ rampUp: { from: 1, durationMs: 10 } }, { trace: true }).option).toBe('load.rampUp')
  })
})
