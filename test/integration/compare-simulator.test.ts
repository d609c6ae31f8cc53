// bench.llm.compare on the simulator: variants measured side by side in counterbalanced pairs, each
// trial on a fresh simulator; an A/A pair never fails, twice as slow fails in the minimum pairs, and
// a variant that returns errors fails the bench whatever the machine is doing.
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { planCompare } from '../../src/bench/compare-bench-options.ts'
import { formatCompareTable, runCompareBench } from '../../src/bench/compare-bench.ts'
import type { BenchCompareOptions } from '../../src/bench/compare-bench-options.ts'
import { simulator } from '../../src/bench/bench-options.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { AA_SIMULATOR } from '../helpers/aa-experiment.ts'

const file = path.join(import.meta.dirname, 'compare.bench.ts')

function options(
  variants: BenchCompareOptions['variants'],
  extra: Partial<BenchCompareOptions> = {},
): BenchCompareOptions {
  return {
    variants,
    control: 'default',
    workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 8 } },
    load: { concurrency: 2, requests: 40 },
    warmup: { requests: 4 },
    seed: 3,
    ...extra,
  }
}

async function run(name: string, opts: BenchCompareOptions) {
  return runCompareBench({ name, file, options: opts, plan: planCompare(name, opts) })
}

describe('bench.llm.compare on the simulator', () => {
  test('twice as slow fails on every median gate after the minimum 3 pairs, in the order A B, B A, A B', async () => {
    const { result, failure } = await run(
      '2x',
      options(
        { default: simulator(AA_SIMULATOR), slow: simulator({ ...AA_SIMULATOR, speedFactor: 2 }) },
        { arms: 'apart' },
      ),
    )
    expect(result.arms).toEqual({ mode: 'apart', why: 'asked for (`arms: "apart"`)' })
    // One variant: its column is headed by its label, as the control's is (ab's says base and head).
    expect(formatCompareTable(result)).toMatch(/\nvariant +gate +default +slow +ratio +interval +pairs +verdict\n/)
    expect(result.trials.every((trial) => trial.slices === undefined)).toBe(true)
    expect(result.order).toEqual([
      ['default', 'slow'],
      ['slow', 'default'],
      ['default', 'slow'],
    ])
    expect(result.trials.map((trial) => `${trial.pair}${trial.label[0]}`)).toEqual(['1d', '1s', '2s', '2d', '3d', '3s'])
    expect(result.stopped).toBe('every verdict decided after 3 pairs')
    const slow = result.variants[0]
    expect(slow?.label).toBe('slow')
    expect(slow?.status).toBe('fail')
    const ttft = slow?.checks.find((check) => check.metric === 'ttftMs' && check.statistic === 'p50')
    expect(ttft?.status).toBe('fail')
    expect(ttft?.ratio).toBeGreaterThan(1.6)
    expect(ttft?.ciLow).toBeGreaterThan(1.1)
    expect(failure).toMatch(
      /^2x: side by side, 3 pairs \(every verdict decided after 3 pairs\)\n {2}- slow vs default: vitest-llm-bench-sim options: speedFactor 1 -> 2: ttftMs p50 [\d.]+x \[[\d.]+, [\d.]+\], beyond \+10 % on every pair together \(3 pairs\)/,
    )
    expect(formatCompareTable(result)).toMatch(
      /^side by side: 3 pairs in [\d.]+ s \(every verdict decided after 3 pairs\); order AB BA AB \(A default, B slow\); intervals at 98\.79 % \(this look's level, so that all looks keep 95 %\)\narms apart \(asked for \(`arms: "apart"`\)\): one arm at a time, each trial on a freshly started server\nslow against default: vitest-llm-bench-sim options: speedFactor 1 -> 2\n(?:slow against default: \d pairs? kept although both arms were measured on a disturbed machine \(it cancels in their ratio\)\n)?variant +gate/,
    )
  }, 180_000)

  test('A/A: the same server twice never fails; the table has one row per gate', async () => {
    const { result, failure, notes } = await run(
      'aa',
      options({ default: simulator(AA_SIMULATOR), again: simulator(AA_SIMULATOR) }),
    )
    expect(failure).toBeUndefined()
    expect(result.variants[0]?.status).not.toBe('fail')
    expect(result.variants[0]?.checks.map((check) => `${check.metric} ${check.statistic}`)).toEqual([
      'ttftMs p50',
      'tpotMs p50',
      'outputTokensPerSec value',
    ])
    for (const check of result.variants[0]?.checks ?? []) expect(check.ratio).toBeGreaterThan(0.8)
    // The headline, how the arms ran, the column names and one row per gate (and, on a busy machine, a line saying
    // how many pairs had both arms disturbed).
    expect(
      notes[0]?.split('\n').filter((line) => !line.includes('both arms were measured on a disturbed')),
    ).toHaveLength(6)
    expect(result.order.length).toBeGreaterThanOrEqual(3)
  }, 240_000)

  test('arms together: both simulators up, each arm loaded in 4 slices of 10 requests in the order A B B A A B B A', async () => {
    const { result } = await run(
      'together',
      options({ default: simulator(AA_SIMULATOR), slow: simulator({ ...AA_SIMULATOR, speedFactor: 2 }) }),
    )
    expect(result.arms).toMatchObject({ mode: 'together', why: 'the simulators run in this process', slices: 4 })
    expect(result.order[0]).toEqual(['default', 'slow'])
    expect(result.order[1]).toEqual(['slow', 'default'])
    for (const trial of result.trials) {
      expect(trial.slices?.map((slice) => slice.counts.completed)).toEqual([10, 10, 10, 10])
      // The merged trial is its slices together: 40 requests.
      expect(trial.result.counts.completed).toBe(40)
    }
    // Slice k of every arm ran on its own seed, the same for both arms: the same prompts, loaded next to each other.
    const first = result.trials.filter((trial) => trial.pair === 1)
    expect(first[0]?.slices?.map((slice) => slice.config.seed)).toEqual([3, 4, 5, 6])
    expect(first[1]?.slices?.map((slice) => slice.config.seed)).toEqual([3, 4, 5, 6])
    // The slices were loaded in turn: default's slice k ended before slow's slice k started (pair 1: A B B A …).
    const [a, b] = first.map((trial) => trial.slices ?? [])
    const starts = (slices: readonly { startedAt: string }[]) => slices.map((s) => Date.parse(s.startedAt))
    const [sa, sb] = [starts(a ?? []), starts(b ?? [])]
    expect(sa[0]).toBeLessThan(sb[0] as number)
    expect(sb[1]).toBeLessThan(sa[1] as number)
    expect(sa[2]).toBeLessThan(sb[2] as number)
    expect(sb[3]).toBeLessThan(sa[3] as number)
    const slow = result.variants[0]
    expect(slow?.status).toBe('fail')
    const ttft = slow?.checks.find((check) => check.metric === 'ttftMs' && check.statistic === 'p50')
    expect(ttft?.ratio).toBeGreaterThan(1.6)
    expect(formatCompareTable(result)).toContain(
      "arms together (the simulators run in this process): both up in every pair, each arm's load in 4 slices",
    )
  }, 240_000)

  test('a variant whose server returns errors fails the bench at once, naming it and the error', async () => {
    const { failure, result } = await run(
      'faulty',
      options({
        default: simulator(AA_SIMULATOR),
        faulty: simulator({ ...AA_SIMULATOR, faults: { httpErrorRate: 0.3, httpErrorStatus: 500 } }),
      }),
    )
    expect(failure).toMatch(
      /^faulty: faulty: \d+ of \d+ requests failed \([\d.]+ %\), above the 1 % a compared trial may lose; most often \d+ x http/,
    )
    expect(result.trials).toHaveLength(2)
  }, 60_000)

  test('options are checked at collection, naming the option', () => {
    const base = options({ default: simulator(AA_SIMULATOR), other: simulator(AA_SIMULATOR) })
    expect(() => planCompare('x', { ...base, control: 'nope' })).toThrow(
      /Invalid option `control`: must be one of the variants' labels \('default', 'other'\)/,
    )
    expect(() => planCompare('x', { ...base, variants: { default: simulator() } })).toThrow(
      /`variants`: must name two servers at least/,
    )
    expect(() => planCompare('x', { ...base, pairs: { min: 1 } })).toThrow(/`pairs.min`: must be an integer >= 2/)
    expect(() => planCompare('x', { ...base, pair: 3 } as never)).toThrow(/Did you mean `pairs`\?/)
    expect(() =>
      planCompare('x', { ...base, variants: { default: simulator(), bad: { kind: 'nope' } as never } }),
    ).toThrow(OptionsError)
    expect(() => planCompare('x', { ...base, load: { concurrency: -1, requests: 4 } })).toThrow(/load\.concurrency/)
    const plan = planCompare('x', base)
    // Arms together (simulators fit): up to 10 pairs; apart, 6.
    expect(plan.limits).toEqual({ min: 3, max: 10, budgetMs: 1_800_000 })
    expect(planCompare('x', { ...base, arms: 'apart' }).limits).toEqual({ min: 3, max: 6, budgetMs: 1_800_000 })
    expect(planCompare('x', { ...base, pairs: { max: 4 } }).limits.max).toBe(4)
    expect(plan.arms.map((arm) => arm.label)).toEqual(['default', 'other'])
    expect(plan.timeoutMs).toBe(2_400_000)
    expect(plan.placement).toEqual({ mode: 'together', why: 'the simulators run in this process' })
    expect(plan.slices).toBe(4)
    expect(() => planCompare('x', { ...base, arms: 'side' as never })).toThrow(
      /`arms`: must be 'together', 'apart' or 'auto', got "side"/,
    )
    expect(() => planCompare('x', { ...base, slices: 0 })).toThrow(/`slices`: must be an integer >= 1, got 0/)
    expect(() => planCompare('x', { ...base, slices: 41 })).toThrow(/`slices`: 41 slices cannot share 40 requests/)
    expect(() =>
      planCompare('x', {
        ...base,
        arms: 'together',
        load: { concurrency: 2, requests: 40, rampUp: { from: 1, durationMs: 1000 } },
      }),
    ).toThrow(/`arms`: cannot be 'together': a ramp-up shapes the whole run/)
    expect(
      planCompare('x', { ...base, load: { concurrency: 2, requests: 40, rampUp: { from: 1, durationMs: 1000 } } })
        .placement,
    ).toEqual({ mode: 'apart', why: 'a ramp-up shapes the whole run, so its load cannot be cut into slices' })
  })
})
