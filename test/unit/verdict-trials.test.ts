/** Trials: between-run spread in the verdict, merged results, and what a recording says about its gates. */
import { describe, expect, test } from 'vitest'
import { baselineEntryFrom } from '../../src/core/baseline/index.ts'
import {
  formatVerdict,
  pooledSpread,
  spreadNotes,
  supportedTolerance,
  trialInterval,
  parseRegressionPolicy,
} from '../../src/core/verdict/index.ts'
import { compare } from '../helpers/compare-given.ts'
import { mergeTrials, trialFiguresOf } from '../../src/core/trials/index.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { decodeHistogram } from '../../src/core/metrics/histogram.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'

/** One trial: 400 requests, TTFT median `median` ms (lognormal, sigma 0.2). */
function trial(seed: number, median: number, outputTokensPerSec = 1000): BenchmarkResult {
  return makeResult({
    ttftMs: lognormalSamples(seededRandom(seed), 400, median, 0.2),
    throughput: { outputTokensPerSec },
  })
}

/** Several trials as one result, as runBench hands them to the judge. */
function trials(seed: number, medians: readonly number[]): BenchmarkResult {
  return mergeTrials(medians.map((median, i) => trial(seed + i, median, 1000 * (100 / median))))
}

describe('trialInterval', () => {
  test('a t interval on log figures with the pooled spread, by hand', () => {
    const baseline = [100, 110, 90, 105, 95]
    const logs = baseline.map(Math.log)
    const mean = logs.reduce((a, b) => a + b, 0) / 5
    const s = Math.sqrt(logs.reduce((a, v) => a + (v - mean) ** 2, 0) / 4)
    expect(pooledSpread(baseline, [120])?.logStdDev).toBeCloseTo(s, 12)
    const interval = trialInterval(baseline, [120], 0.95, 0)
    // t(0.975, 4) = 2.7764451
    const half = 2.7764451 * s * Math.sqrt(1 / 5 + 1)
    expect(interval?.ratio).toBeCloseTo(120 / Math.exp(mean), 9)
    expect(interval?.high).toBeCloseTo((120 / Math.exp(mean)) * Math.exp(half), 5)
    expect(interval?.low).toBeCloseTo((120 / Math.exp(mean)) * Math.exp(-half), 5)
  })

  test('never narrower than the within-run noise, and undefined without two trials on either side', () => {
    const agreeing = trialInterval([100, 100.1, 99.9], [100], 0.95, 0.05)
    expect(Math.log((agreeing?.high ?? 0) / (agreeing?.ratio ?? 1))).toBeGreaterThanOrEqual(4.3 * 0.05 - 1e-9)
    expect(trialInterval([100], [110], 0.95, 0.01)).toBeUndefined()
  })

  test('supportedTolerance: the smallest tolerance an unchanged run passes', () => {
    const spread = { logStdDev: 0.05, df: 4 }
    const once = supportedTolerance(spread, 5, 1, 0.95)
    expect(once).toBeCloseTo(Math.exp(2.7764451 * 0.05 * Math.sqrt(1.2)) - 1, 6)
    // More current trials: more degrees of freedom and a smaller 1/k.
    expect(supportedTolerance(spread, 5, 3, 0.95)).toBeLessThan(once)
  })
})

describe('mergeTrials', () => {
  test('counts and durations add, histograms add, mean and stddev pool exactly, throughput is totals over time', () => {
    const a = makeResult({ ttftMs: [10, 20, 30], durationMs: 1000, throughput: { outputTokensPerSec: 300 } })
    const b = makeResult({ ttftMs: [40, 50], durationMs: 3000, throughput: { outputTokensPerSec: 100 } })
    const merged = mergeTrials([a, b])
    expect(merged.counts).toEqual({ total: 5, completed: 5, failed: 0 })
    expect(merged.durationMs).toBe(4000)
    expect(merged.metrics.ttftMs.count).toBe(5)
    expect(merged.metrics.ttftMs.mean).toBeCloseTo(30, 9)
    expect(merged.metrics.ttftMs.stddev).toBeCloseTo(Math.sqrt(200), 6)
    expect(merged.metrics.ttftMs.min).toBe(10)
    expect(merged.metrics.ttftMs.max).toBe(50)
    expect(merged.metrics.ttftMs.p50).toBeCloseTo(30, 1)
    expect(decodeHistogram(merged.histograms.ttftUs as string).totalCount).toBe(5)
    // (300 tok/s × 1 s + 100 tok/s × 3 s) / 4 s
    expect(merged.throughput.outputTokensPerSec).toBeCloseTo(150, 9)
    expect(merged.trials?.map((t) => t.latency.ttftMs.count)).toEqual([3, 2])
  })

  test('one result keeps its figures and gains its single trial', () => {
    const one = trial(1, 100)
    const merged = mergeTrials([one])
    expect(merged.metrics).toEqual(one.metrics)
    expect(merged.trials).toEqual([trialFiguresOf(one)])
  })
})

describe('compare with trials', () => {
  const policy = { ttftMs: { p50: '+10%' as const }, outputTokensPerSec: '-5%' as const }

  test('a baseline of trials spread wider than the runs inside them: an unchanged run that one run would fail is not failed', () => {
    // Five recorded trials whose medians spread about 17 %: a current run at +30 % is inside that spread.
    const baseline = baselineEntryFrom(trials(10, [100, 125, 80, 115, 88]))
    const current = trial(30, 130, 1000 * (100 / 130))
    const verdict = compare(baseline, current, policy)
    const ttft = verdict.checks.find((c) => c.metric === 'ttftMs')
    expect(ttft?.trials).toEqual({ baseline: 5, current: 1 })
    // Judged on trials, its sample sizes are the trials (issue 31: 'n base/cur 1/10' for a 5-trial baseline).
    expect(formatVerdict(verdict)).toMatch(/ttftMs p50 .* 5\/1 trials +INCONCLUSIVE/)
    expect(ttft?.status).toBe('inconclusive')
    expect(ttft?.reason).toContain('between-trial spread')
    // Against one recorded trial (no spread known) the same run fails: the within-run interval is narrow.
    const single = baselineEntryFrom(trial(10, 100))
    expect(compare(single, current, policy).checks.find((c) => c.metric === 'ttftMs')?.status).toBe('fail')
  })

  test('a regression well beyond the spread fails, and an unchanged run with steady trials passes', () => {
    const baseline = baselineEntryFrom(trials(40, [100, 101, 99, 100.5, 99.5]))
    expect(compare(baseline, trials(60, [200, 202, 198]), policy).status).toBe('fail')
    const same = compare(baseline, trials(70, [100, 100.5, 99.5]), policy)
    expect(same.checks.find((c) => c.metric === 'ttftMs')?.status).toBe('pass')
  })

  test('a disturbed machine: a failing check becomes inconclusive and says why', () => {
    const baseline = baselineEntryFrom(trials(40, [100, 101, 99, 100.5, 99.5]))
    const slow = trials(60, [200, 202, 198])
    const busy: BenchmarkResult = {
      ...slow,
      client: {
        ...slow.client,
        selfCheck: { cores: 2, loadAverage1m: 4, otherCores: 1.9, disturbed: ['other processes used 1.9 of 2 cores'] },
      },
    }
    const verdict = compare(baseline, busy, policy)
    expect(verdict.status).toBe('inconclusive')
    expect(verdict.checks.find((c) => c.metric === 'ttftMs')?.reason).toContain(
      'the machine was disturbed while this run measured (other processes used 1.9 of 2 cores)',
    )
    expect(verdict.notes.join(' ')).toContain('Run it again on a quiet machine')
  })
})

describe('compare and the client lateness', () => {
  test('a latency fail no larger than how late the client read becomes inconclusive and says so', () => {
    const baseline = baselineEntryFrom(trial(100, 10))
    const slower = trial(101, 13)
    const policy = { ttftMs: { p50: '+10%' as const } }
    expect(compare(baseline, slower, policy).status).toBe('fail')
    const lateness = {
      watchedRequests: 400,
      lateRequests: 120,
      share: 0.3,
      thresholdMs: 5,
      p50Ms: 4,
      p99Ms: 8,
      maxMs: 12,
    }
    const late: BenchmarkResult = { ...slower, client: { ...slower.client, lateness } }
    const verdict = compare(baseline, late, policy)
    expect(verdict.status).toBe('inconclusive')
    // A p50 check meets the median lateness (4 ms), not the tail's.
    expect(verdict.checks[0]?.reason).toMatch(
      /^the change \(\d+\.\d+ ms\) is within the client's measured lateness \(p50 4\.00 ms, 120 of 400 requests read more than 5 ms late\)/,
    )
    // A change well beyond the lateness still fails.
    const muchSlower: BenchmarkResult = { ...trial(102, 40), client: { ...slower.client, lateness } }
    expect(compare(baseline, muchSlower, policy).status).toBe('fail')
  })
})

describe('a spread, printed', () => {
  test('one rule everywhere: one decimal, trailing zero dropped, under 0.05 % as <0.1%', async () => {
    const { formatSpread } = await import('../../src/core/platform/format-figure.ts')
    expect([0.64, 0.15, 0.04206, 0.009159, 0.0007522, 0.0003578, 0].map(formatSpread)).toEqual([
      '64%',
      '15%',
      '4.2%',
      '0.9%',
      '0.1%',
      '<0.1%',
      '0%',
    ])
    // The recording's note and a verdict's reason print the same spread the same way.
    const entry = baselineEntryFrom(trials(80, [100, 100.5, 99.6, 100.2, 99.8]))
    const [note] = spreadNotes(entry, parseRegressionPolicy({ ttftMs: { p50: '+10%' } }), 3)
    expect(note).toMatch(/^between-trial spread over 5 recorded trials: ttftMs p50 (\d+(\.\d)?|<0\.1)%$/)
    const verdict = compare(entry, trials(81, [100, 100.5, 99.6]), { ttftMs: { p50: '+10%' } })
    expect(verdict.checks[0]?.reason).toMatch(/between-trial spread (\d+(\.\d)?|<0\.1)% over 5 baseline/)
  })
})

describe('spreadNotes', () => {
  test('names each gate the recorded spread cannot support, with the tolerance it can', () => {
    const entry = baselineEntryFrom(trials(80, [100, 125, 80, 110, 90]))
    const notes = spreadNotes(entry, parseRegressionPolicy({ ttftMs: { p50: '+10%' } }), 3)
    expect(notes[0]).toMatch(/^between-trial spread over 5 recorded trials: ttftMs p50 \d+(\.\d+)?%/)
    expect(notes[1]).toMatch(
      /^ttftMs p50: the recorded trials spread \d+(\.\d+)?%, too much for \+10% to decide: an unchanged run passes only with a tolerance of at least \+\d+(\.\d+)?% \(1 trial\) or \+\d+(\.\d+)?% \(3 trials\)/,
    )
    // A spread the tolerance supports gives the spread line only.
    expect(
      spreadNotes(
        baselineEntryFrom(trials(90, [100, 101, 99, 100.5, 99.5])),
        parseRegressionPolicy({ ttftMs: { p50: '+10%' } }),
        3,
      ),
    ).toHaveLength(1)
    expect(
      spreadNotes(baselineEntryFrom(trial(1, 100)), parseRegressionPolicy({ ttftMs: { p50: '+10%' } }), 3),
    ).toEqual([])
  })
})

describe('gates that cannot decide, found at collection', () => {
  test('an open loop throughput gate and a p99 on too few requests, each said with what to do instead', async () => {
    const { undecidableGates } = await import('../../src/core/verdict/index.ts')
    const { planBench, warnUndecidableGates } = await import('../../src/bench/plan-bench.ts')
    const open = undecidableGates(parseRegressionPolicy({ ttftMs: { p99: '+10%' }, outputTokensPerSec: '-5%' }), {
      rate: 8,
      requests: 100,
    })
    expect(open).toHaveLength(2)
    expect(open[0]).toContain('outputTokensPerSec is gated on an open loop (rate 8/s): the offered rate sets it')
    expect(open[1]).toMatch(/^ttftMs p99 needs at least \d+ requests for a verdict, and this bench sends 100/)
    expect(
      undecidableGates(parseRegressionPolicy({ outputTokensPerSec: '-5%', e2eMs: { p50: '+10%' } }), {
        concurrency: 4,
        requests: 300,
      }),
    ).toEqual([])
    const options = {
      workload: { kind: 'synthetic' as const, inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
      load: { rate: 8, requests: 400 },
      baseline: { outputTokensPerSec: '-5%' as const },
    }
    const plan = planBench('open', options)
    const printed: string[] = []
    warnUndecidableGates('open', plan, {}, (line) => printed.push(line))
    expect(printed).toEqual([
      expect.stringContaining("vitest-llm-bench: bench.llm('open'): outputTokensPerSec is gated on an open loop"),
    ])
    expect(() => warnUndecidableGates('open', plan, { LLM_BENCH_STRICT_GATES: '1' })).toThrow(
      /`baseline`: of bench.llm\('open'\) cannot decide/,
    )
  })

  test('the default gates never warn: an open loop with no gates set is quiet, even in strict mode', async () => {
    const { planBench, warnUndecidableGates } = await import('../../src/bench/plan-bench.ts')
    const workload = { kind: 'synthetic' as const, inputTokens: { mean: 8 }, outputTokens: { mean: 8 } }
    // 100 requests: too few for a p99 gate, and the open loop sets the throughput; neither was asked for.
    const plan = planBench('open, defaults', { workload, load: { rate: 8, requests: 100 } })
    const printed: string[] = []
    warnUndecidableGates('open, defaults', plan, {}, (line) => printed.push(line))
    expect(printed).toEqual([])
    expect(() => warnUndecidableGates('open, defaults', plan, { LLM_BENCH_STRICT_GATES: '1' })).not.toThrow()
    // A gate the user set explicitly still warns about itself.
    const own = planBench('open, own', {
      workload,
      load: { rate: 8, requests: 100 },
      baseline: { ttftMs: { p99: '+10%' } },
    })
    warnUndecidableGates('open, own', own, {}, (line) => printed.push(line))
    expect(printed).toEqual([
      expect.stringMatching(/bench\.llm\('open, own'\): ttftMs p99 needs at least \d+ requests/),
    ])
  })
})

describe("a bench's time limit, planned once", () => {
  test('timeoutMs per trial (default 10 minutes), times the trials it may run and two re-measures', async () => {
    const { planBench } = await import('../../src/bench/plan-bench.ts')
    const workload = { kind: 'synthetic' as const, inputTokens: { mean: 8 }, outputTokens: { mean: 8 } }
    const load = { concurrency: 2, requests: 10 }
    expect(planBench('a', { workload, load, timeoutMs: 1000, trials: { record: 2, max: 4 } }).limit).toEqual({
      perTrialMs: 1000,
      trials: 6,
      ms: 6000,
    })
    expect(planBench('b', { workload, load }).limit).toEqual({ perTrialMs: 600_000, trials: 7, ms: 4_200_000 })
  })
})
