/**
 * Below collection only resolved values travel: the plan that `runPlan` takes has no raw options beside it (issue
 * 48, item 1), and what the result's `config` echoes is computed once, when the plan is made.
 */
import { describe, expect, expectTypeOf, test } from 'vitest'
import { resolveBenchmark, runConfigOf, type BenchmarkPlan } from '../../src/core/plan/index.ts'
import type { RunContext } from '../../src/core/run.ts'

const options = {
  target: { baseUrl: 'http://127.0.0.1:8000', apiKey: 'sk-secret' },
  workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 8 } },
  load: { rate: 10, requests: 20 },
  seed: 7,
  signal: new AbortController().signal,
  onProgress: () => {},
} as const

describe('the resolved plan', () => {
  test('holds the target, the run and its config echo: no raw options', () => {
    expectTypeOf<keyof BenchmarkPlan>().toEqualTypeOf<'target' | 'run' | 'config'>()
    const plan = resolveBenchmark(options)
    expect(Object.keys(plan).sort()).toEqual(['config', 'run', 'target'])
  })

  test('signal and progress are the run context, never part of the plan or its echo', () => {
    expectTypeOf<RunContext>().toHaveProperty('signal')
    expectTypeOf<RunContext>().toHaveProperty('onProgress')
    const { config } = resolveBenchmark(options)
    expect(config).not.toHaveProperty('signal')
    expect(config).not.toHaveProperty('onProgress')
  })

  test('the echo writes out the defaults the run applies to the workload and load', () => {
    const { config, run } = resolveBenchmark(options)
    expect(config.load).toMatchObject({ rate: 10, requests: 20, arrival: run.load.arrival })
    expect(config.load).toHaveProperty('drainGraceMs')
    expect(config.workload).toMatchObject({ kind: 'synthetic', inputTokens: { mean: 32, stddev: 0 } })
    expect(config.workload).toHaveProperty('ignoreEos')
    expect(config.workload).toHaveProperty('sharedPrefixTokens')
    expect(config.seed).toBe(7)
    // The same options written with their defaults spelled out echo the same.
    const spelled = { ...options, workload: config.workload, load: config.load } as unknown as typeof options
    expect(runConfigOf(spelled)).toEqual(config)
    expect(config.target).toEqual(options.target)
  })
})
