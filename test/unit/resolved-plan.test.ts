/**
 * Below collection only resolved values travel (issue 48, item 1): the plan that `runPlan` takes has no raw options
 * beside it, what the result's `config` echoes is computed once, when the plan is made, and a bench's regression
 * policy is never left undefined for the run to default.
 */
import { describe, expect, expectTypeOf, test } from 'vitest'
import { resolveBenchmark, runConfigOf, type BenchmarkPlan } from '../../src/core/plan/index.ts'
import type { RunContext } from '../../src/core/run.ts'
import { planBench, type BenchPlan } from '../../src/bench/plan-bench.ts'
import { DEFAULT_PARSED_POLICY, type ParsedRegressionPolicy } from '../../src/core/verdict/index.ts'

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

describe("a bench's regression policy is resolved at collection, never left for the run", () => {
  const bench = { workload: options.workload, load: { concurrency: 2, requests: 20 } }
  const gates = (policy: ParsedRegressionPolicy | false) =>
    policy === false
      ? false
      : [...policy.latency.map((rule) => `${rule.metric} ${rule.statistic}`), ...policy.throughput.map((r) => r.metric)]

  test('its own gates, else the plugin tolerance, else its API default; false stays false', () => {
    expectTypeOf<BenchPlan['policy']>().toEqualTypeOf<ParsedRegressionPolicy | false>()
    const own = planBench('own', { ...bench, baseline: { ttftMs: { p99: '+20%' } } }, {}, { tpotMs: { p50: '+5%' } })
    expect([gates(own.policy), own.policyFrom]).toEqual([['ttftMs p99'], 'baseline'])
    const plugin = planBench('plugin', bench, {}, { tpotMs: { p50: '+5%' } })
    expect([gates(plugin.policy), plugin.policyFrom]).toEqual([['tpotMs p50'], 'tolerance'])
    const chat = planBench('chat', bench, {})
    expect([gates(chat.policy), chat.policyFrom]).toEqual([gates(DEFAULT_PARSED_POLICY), 'default'])
    const embeddings = planBench('embeddings', { ...bench, target: { api: 'embeddings' } }, {})
    expect(gates(embeddings.policy)).toEqual(['e2eMs p50', 'totalTokensPerSec'])
    expect(planBench('none', { ...bench, baseline: false }, {}, { tpotMs: { p50: '+5%' } }).policy).toBe(false)
  })

  test("a typo in the plugin's tolerance names the plugin option", () => {
    expect(() => planBench('typo', bench, {}, { ttftMs: { p98: '+5%' } } as never)).toThrow(
      /llmBench\(\{ tolerance \}\)/,
    )
  })
})
