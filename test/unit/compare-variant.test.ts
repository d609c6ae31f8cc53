import { describe, expect, test } from 'vitest'
import { judgeVariant, type CompareTrial } from '../../src/bench/compare-bench.ts'
import { planCompare } from '../../src/bench/compare-bench-options.ts'
import { simulator } from '../../src/bench/bench-options.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { lognormalSamples, makeResult } from '../helpers/baseline-fixtures.ts'
import { seededRandom } from '../helpers/metrics-fixtures.ts'

const plan = planCompare('ttft', {
  variants: { default: simulator(), next: simulator() },
  control: 'default',
  workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
  load: { concurrency: 1, requests: 400 },
  baseline: { ttftMs: { p50: '+10%' } },
})

function run(seed: number, scale: number, disturbed: string[] = []): BenchmarkResult {
  const result = makeResult({ ttftMs: lognormalSamples(seededRandom(seed), 400, 100 * scale, 0.2) })
  return { ...result, client: { ...result.client, selfCheck: { cores: 2, loadAverage1m: 1, disturbed } } }
}

function trials(pairs: [BenchmarkResult, BenchmarkResult][]): CompareTrial[] {
  return pairs.flatMap(([control, variant], i) => [
    { label: 'default', pair: i + 1, position: 2 * i + 1, result: control },
    { label: 'next', pair: i + 1, position: 2 * i + 2, result: variant },
  ])
}

describe('judgeVariant', () => {
  test('a pair disturbed on one arm only is left out and named; one disturbed on both arms is kept', () => {
    const busy = ['the hypervisor took 9.0 % of the CPU (steal)']
    const verdict = judgeVariant(
      'next',
      plan,
      trials([
        [run(1, 1), run(2, 1.5)],
        [run(3, 1, busy), run(4, 1.5, busy)],
        [run(5, 1), run(6, 1.5, busy)],
        [run(7, 1), run(8, 1.5)],
      ]),
      () => 0.95,
    )
    expect(verdict.voided).toEqual([
      'pair 3 left out: only next was measured on a disturbed machine (the hypervisor took 9.0 % of the CPU (steal))',
    ])
    expect(verdict.bothDisturbed).toBe(1)
    const ttft = verdict.checks[0]
    expect(ttft).toMatchObject({ metric: 'ttftMs', statistic: 'p50', pairs: 3, status: 'fail' })
    expect(ttft?.ratio).toBeGreaterThan(1.35)
    expect(ttft?.control).toBeGreaterThan(90)
    expect(ttft?.variant).toBeGreaterThan(135)
  })

  test('a gate is judged at the level of the pairs it uses, not of the pairs measured', () => {
    const busy = ['the hypervisor took 9.0 % of the CPU (steal)']
    const asked: number[] = []
    judgeVariant(
      'next',
      plan,
      trials([
        [run(1, 1), run(2, 1.5)],
        [run(5, 1), run(6, 1.5, busy)],
        [run(7, 1), run(8, 1.5)],
      ]),
      (pairs) => {
        asked.push(pairs)
        return 0.95
      },
    )
    // Three pairs measured, the second left out: the TTFT gate has two, and its level is the one for two.
    expect(asked).toEqual([2])
  })

  test('the same runs in both arms pass', () => {
    const same = judgeVariant(
      'next',
      plan,
      trials([1, 3, 5].map((seed) => [run(seed, 1), run(seed + 100, 1)] as [BenchmarkResult, BenchmarkResult])),
      () => 0.95,
    )
    expect(same.status).toBe('pass')
    expect(same.voided).toEqual([])
  })
})

describe('a run-level throughput on a busy machine', () => {
  const gated = planCompare('tok/s', {
    variants: { default: simulator(), next: simulator() },
    control: 'default',
    workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
    load: { concurrency: 1, requests: 400 },
    baseline: { ttftMs: { p50: '+10%' }, outputTokensPerSec: '-5%' },
  })
  /** A trial whose TTFT is unchanged and whose throughput a busy machine's stalls cut by `stalls`. */
  function busy(seed: number, stalls: number): BenchmarkResult {
    const result = run(seed, 1, ['other processes used 1.0 of 2 cores'])
    return { ...result, throughput: { ...result.throughput, outputTokensPerSec: 1000 / stalls } }
  }

  test('pairs with both arms disturbed judge the percentiles but not the throughput', () => {
    // As measured on llama-server beside two busy loops: head = base, its tok/s 0.48x in 4 of 4 pairs by stalls.
    const verdict = judgeVariant(
      'next',
      gated,
      trials([1, 3, 5, 7].map((seed) => [busy(seed, 1), busy(seed + 100, 2.1)] as [BenchmarkResult, BenchmarkResult])),
      () => 0.95,
    )
    const [ttft, tokens] = verdict.checks
    expect(ttft).toMatchObject({ metric: 'ttftMs', pairs: 4, status: 'pass' })
    expect(tokens).toMatchObject({ metric: 'outputTokensPerSec', pairs: 0, status: 'inconclusive' })
    expect(tokens?.ratio).toBeCloseTo(1 / 2.1, 6)
    expect(tokens?.reason).toContain('4 pairs with both arms disturbed left out of this run-level figure')
    expect(verdict.status).toBe('inconclusive')
  })

  test('quiet pairs still judge it', () => {
    const quiet = (seed: number, factor: number): BenchmarkResult => ({
      ...run(seed, 1),
      throughput: { ...run(seed, 1).throughput, outputTokensPerSec: 1000 / factor },
    })
    const verdict = judgeVariant(
      'next',
      gated,
      trials([1, 3, 5].map((seed) => [quiet(seed, 1), quiet(seed + 100, 2)] as [BenchmarkResult, BenchmarkResult])),
      () => 0.95,
    )
    expect(verdict.checks[1]).toMatchObject({ metric: 'outputTokensPerSec', pairs: 3, status: 'fail' })
  })

  test('the figures beside the ratio are those of the pairs it is taken over', () => {
    // Two quiet pairs at 0.9x, one busy pair (stalled 3x in the variant) left out of the throughput.
    const at = (seed: number, tokensPerSec: number, disturbed: string[] = []): BenchmarkResult => {
      const result = run(seed, 1, disturbed)
      return { ...result, throughput: { ...result.throughput, outputTokensPerSec: tokensPerSec } }
    }
    const busyNote = ['other processes used 1.0 of 2 cores']
    const verdict = judgeVariant(
      'next',
      gated,
      trials([
        [at(1, 1000), at(101, 900)],
        [at(3, 1000), at(103, 900)],
        [at(5, 1000, busyNote), at(105, 333, busyNote)],
      ]),
      () => 0.95,
    )
    const tokens = verdict.checks[1]
    expect(tokens).toMatchObject({ metric: 'outputTokensPerSec', pairs: 2 })
    expect(tokens?.control).toBeCloseTo(1000, 6)
    expect(tokens?.variant).toBeCloseTo(900, 6)
    expect(tokens?.ratio).toBeCloseTo(0.9, 6)
  })
})
