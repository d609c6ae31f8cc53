import { describe, expect, test } from 'vitest'
import { loadOptionsOf } from '../../src/bench/load-on.ts'
import { simulator, type BenchLlmOptions } from '../../src/bench/bench-options.ts'
import type { BenchCompareOptions } from '../../src/bench/compare-bench-options.ts'
import { endedLines } from '../../src/bench/bench-target.ts'

const load = {
  workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
  load: { concurrency: 2, requests: 10 },
  seed: 7,
  warmup: { requests: 2 },
} as const satisfies Partial<BenchLlmOptions>

describe('loadOptionsOf: what a bench load reads of its options', () => {
  test("bench.llm: the harness's own options stay with the harness, the load's go to the load", () => {
    const options: BenchLlmOptions = {
      ...load,
      server: simulator(),
      target: { model: 'm' },
      slo: { ttftMs: { p99: 500 } },
      baseline: false,
      timeoutMs: 1000,
      resetPrefixCache: true,
      trials: { record: 3 },
    }
    expect(loadOptionsOf(options)).toEqual(load)
  })

  test("bench.llm.compare: variants, pairs and the verdict's options stay with the comparison", () => {
    const options: BenchCompareOptions = {
      ...load,
      variants: { a: simulator(), b: simulator() },
      control: 'a',
      baseline: { ttftMs: { p50: '+10%' } },
      pairs: { min: 2, max: 4 },
      budgetMs: 60_000,
      onInconclusive: 'fail',
      timeoutMs: 1000,
      arms: 'together',
      slices: 4,
    }
    expect(loadOptionsOf(options)).toEqual(load)
  })
})

describe('endedLines: a server that ended, as every harness words it', () => {
  test('how it ended first, then its log tail under the log path', () => {
    expect(
      endedLines({ name: 'llama.cpp', how: 'was killed by SIGKILL', logTail: ['a', 'b'], logPath: '/tmp/x.log' }),
    ).toEqual(['llama.cpp was killed by SIGKILL', 'Last lines of its log (/tmp/x.log):', '  a', '  b'])
    expect(endedLines({ name: 'vllm', how: 'exited with code 1', logTail: [], logPath: undefined })).toEqual([
      'vllm exited with code 1',
    ])
  })
})
