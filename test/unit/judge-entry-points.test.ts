// Every entry point that judges applies the same rules (issue 48, "one judge"): the six that read measurements and
// say pass, fail or inconclusive (`vitest bench` against its stored baseline, a sweep against its stored curve,
// `bench.llm.compare`, `ab`, `diff` of two saved runs, the `toNotRegress` matcher), each given the same three
// situations. What differs between them is the subject (one stored run, a curve, pairs measured side by side), never
// the rule: unchanged code is never failed, a run 3x slower on a quiet machine always is, and a run that lost 5 % of
// its requests to the server's errors is failed by the failure rule, not judged on its latencies. A disturbed machine
// is where subjects differ by design: it downgrades a failed check against a stored run or curve (the run measured the
// other processes too), while a pair whose arms were both disturbed is kept (both met the same machine).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { judgeAb } from '../../src/bench/ab-verdict.ts'
import type { ArmFile } from '../../src/bench/arm-file.ts'
import { judgeBench } from '../../src/bench/bench-judgement.ts'
import { faultOf, judgeVariant, type CompareTrial } from '../../src/bench/compare-bench.ts'
import { llmBenchMatchers } from '../../src/bench/matchers.ts'
import { diffRuns } from '../../src/bench/result-diff.ts'
import { judgeSweep } from '../../src/bench/sweep-judgement.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { SweepResult } from '../../src/core/sweep/index.ts'
import { curvePointOf } from '../../src/core/sweep/curve-point.ts'
import { DEFAULT_PARSED_POLICY } from '../../src/core/verdict/index.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'
import { makeSweep } from '../helpers/sweep-fixtures.ts'

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-judge-entry-points-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** The situations every entry point meets, applied to one run of the code under test. */
type Situation = 'unchanged' | '3x slower' | '5 % lost to server errors'
/** What an entry point made of it: `fail` is what fails a pull request (a failed gate, a fault, a failed run). */
type Outcome = 'pass' | 'fail' | 'inconclusive'

/** One run (400 requests): TTFT and TPOT p50 around 100 and 10 ms times `scale`, output tok/s over `scale`. */
function run(seed: number, scale = 1): BenchmarkResult {
  const random = seededRandom(seed)
  return makeResult({
    ttftMs: lognormalSamples(random, 400, 100 * scale, 0.2),
    tpotMs: lognormalSamples(random, 400, 10 * scale, 0.1),
    throughput: { outputTokensPerSec: 1000 / scale },
  })
}

/** The run of the code under test in `situation` (seed apart from the baseline's). */
function underTest(situation: Situation, seed: number): BenchmarkResult {
  if (situation === '3x slower') return run(seed, 3)
  const result = run(seed)
  if (situation === 'unchanged') return result
  return {
    ...result,
    counts: { total: 420, completed: 400, failed: 20 },
    errors: [{ kind: 'http', message: 'HTTP 500: internal error', count: 20 }],
  }
}

/** A sweep whose every point is the situation's run at that concurrency. */
function sweepOf(situation: Situation, seedBase: number): SweepResult {
  const sweep = makeSweep([8, 16, 32].map((value) => ({ value, outputTokensPerSec: 1000 })))
  const points = sweep.points.map((point, i) => {
    const measured = underTest(situation, seedBase + i)
    return { ...point, result: { ...measured, config: point.result.config } }
  })
  return { ...sweep, points, curve: points.map((point) => curvePointOf(point.value, point.result)) }
}

let files = 0
const statusOfVerdict = (failed: boolean, status: string | undefined): Outcome =>
  failed ? 'fail' : status === 'pass' ? 'pass' : status === 'fail' ? 'fail' : 'inconclusive'

/** The six entry points, each judging the situation's run against a baseline run of the same code. */
const ENTRY_POINTS: Record<string, (situation: Situation) => Promise<Outcome>> = {
  'vitest bench (stored baseline)': async (situation) => {
    const file = join(dir, `bench-${files++}.bench.ts`)
    const base = { name: 'b', file, slo: undefined, policy: DEFAULT_PARSED_POLICY, env: {} }
    await judgeBench({ ...base, result: run(1), provided: { update: 'new', ci: false } })
    const judged = await judgeBench({
      ...base,
      result: underTest(situation, 2),
      provided: { update: 'none', ci: true },
    })
    return statusOfVerdict(judged.failure !== undefined, judged.verdict?.status)
  },
  'sweep (stored curve)': async (situation) => {
    const file = join(dir, `sweep-${files++}.bench.ts`)
    const base = { name: 'curve', file, expect: { throughput: [{ at: 32, minVsBaseline: 0.9 }] }, env: {} }
    await judgeSweep({
      ...base,
      result: sweepOf('unchanged', 10),
      baseline: true,
      provided: { update: 'new', ci: false },
    })
    const judged = await judgeSweep({
      ...base,
      result: sweepOf(situation, 20),
      baseline: true,
      provided: { update: 'none', ci: true },
    })
    const undecided = judged.meta.checks.some((check) => check.status === 'inconclusive')
    return judged.failure !== undefined ? 'fail' : undecided ? 'inconclusive' : 'pass'
  },
  'bench.llm.compare (pairs)': (situation) => {
    const trials: CompareTrial[] = [1, 2, 3, 4].flatMap((pair) => [
      { label: 'control', pair, position: 2 * pair - 1, result: run(30 + pair) },
      { label: 'variant', pair, position: 2 * pair, result: underTest(situation, 40 + pair) },
    ])
    // The fault rule of a compared trial comes before any gate. compare-bench applies it per trial as it measures,
    // so this row holds `faultOf` and `judgeVariant` to the rules, not the harness's call of them (ab's row does).
    if (trials.some((trial) => faultOf(trial.label, trial.result) !== undefined)) return Promise.resolve('fail')
    const verdict = judgeVariant('variant', { control: 'control', policy: DEFAULT_PARSED_POLICY }, trials, () => 0.95)
    return Promise.resolve(statusOfVerdict(false, verdict.status))
  },
  'ab (arm files)': async (situation) => {
    const arm = (side: 'base' | 'head', pair: number, result: BenchmarkResult): ArmFile => ({
      kind: 'vitest-llm-bench-arm',
      version: 1,
      arm: side,
      pair,
      file: 'chat.bench.ts',
      name: 'chat',
      policy: DEFAULT_PARSED_POLICY,
      slo: undefined,
      result,
    })
    const armFiles = [1, 2, 3, 4].flatMap((pair) => [
      arm('base', pair, run(50 + pair)),
      arm('head', pair, underTest(situation, 60 + pair)),
    ])
    const [verdict] = judgeAb(armFiles, () => 0.95)
    return verdict?.status === 'fault' ? 'fail' : statusOfVerdict(false, verdict?.status)
  },
  'diff (two saved runs)': (situation) => {
    const [diff] = diffRuns([{ name: 'b', result: run(70) }], [{ name: 'b', result: underTest(situation, 71) }])
    if (diff?.state === 'failed') return Promise.resolve('fail')
    return Promise.resolve(statusOfVerdict(false, diff?.state === 'compared' ? diff.verdict.status : undefined))
  },
  'toNotRegress (matcher)': (situation) => {
    const matched = llmBenchMatchers.toNotRegress(underTest(situation, 81), run(80))
    return Promise.resolve(matched.pass ? 'pass' : 'fail')
  },
}

describe('one set of rules at every entry point that judges', () => {
  const cases = Object.keys(ENTRY_POINTS).flatMap((entry) =>
    (['unchanged', '3x slower', '5 % lost to server errors'] as const).map((situation) => ({ entry, situation })),
  )
  test.each(cases)('$entry: $situation', async ({ entry, situation }) => {
    const outcome = await ENTRY_POINTS[entry]?.(situation)
    if (situation === 'unchanged') expect(outcome).not.toBe('fail')
    else expect(outcome).toBe('fail')
  })
})
