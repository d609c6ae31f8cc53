import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { baselineEntryFrom, baselinePathFor } from '../../src/core/baseline/index.ts'
import { DEFAULT_PARSED_POLICY } from '../../src/core/verdict/index.ts'
import type { BenchmarkResult, ErrorCount, SelfCheck } from '../../src/core/contract/result.ts'
import type { SweepResult } from '../../src/core/sweep/index.ts'
import { judgeBench } from '../../src/bench/bench-judgement.ts'
import { judgeSweep, type SweepJudgeInput } from '../../src/bench/sweep-judgement.ts'
import { sweepStatus } from '../../reporters/sweep-entry.ts'
import { compare } from '../helpers/compare-given.ts'
import { makeSweep, type PointSpec } from '../helpers/sweep-fixtures.ts'

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-bench-sweep-judgement-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const BUSY: SelfCheck = {
  cores: 2,
  loadAverage1m: 5,
  otherCores: 1.9,
  disturbed: ['other processes used 1.9 of 2 cores'],
}
const QUIET: SelfCheck = { cores: 2, loadAverage1m: 0.2, otherCores: 0, disturbed: [] }
const BY_SERVER: ErrorCount[] = [{ kind: 'http', message: 'HTTP 500: internal error', count: 10 }]
const BY_MACHINE: ErrorCount[] = [
  { kind: 'timeout', message: 'request timed out after 30000 ms', count: 6 },
  { kind: 'cancelled', message: 'cancelled at the drain', count: 4 },
]

const CURVE: PointSpec[] = [
  { value: 8, outputTokensPerSec: 500 },
  { value: 16, outputTokensPerSec: 900 },
  { value: 32, outputTokensPerSec: 1000 },
  { value: 64, outputTokensPerSec: 1010 },
]
/** The curve 20 % lower at 64, where `expect` asks for at least 0.9x the baseline. */
const SLOWER: PointSpec[] = CURVE.map((spec) => (spec.value === 64 ? { ...spec, outputTokensPerSec: 808 } : spec))
const EXPECT = { throughput: [{ at: 64, minVsBaseline: 0.9 }] }

/** The sweep with its first point (concurrency 8) changed. */
function withFirstPoint(sweep: SweepResult, change: (result: BenchmarkResult) => BenchmarkResult): SweepResult {
  const [first, ...rest] = sweep.points
  if (!first) throw new Error('no point')
  return { ...sweep, points: [{ ...first, result: change(first.result) }, ...rest] }
}

const client =
  (selfCheck: SelfCheck, keptUp = true) =>
  (result: BenchmarkResult) => ({
    ...result,
    client: { ...result.client, keptUp, warnings: keptUp ? [] : ['schedule lag p99 850 ms'], selfCheck },
  })

function sweepInput(file: string, result: SweepResult, overrides: Partial<SweepJudgeInput> = {}): SweepJudgeInput {
  return {
    name: 'curve',
    file: join(dir, file),
    result,
    expect: EXPECT,
    baseline: true,
    provided: { update: 'new', ci: false },
    env: {},
    ...overrides,
  }
}

const statusOf = (judged: Awaited<ReturnType<typeof judgeSweep>>) =>
  sweepStatus({ state: judged.failure ? 'failed' : 'passed', ...judged.meta })

describe('a sweep is judged by the rules of bench.llm', () => {
  test.each([
    { machine: 'quiet', errors: 'the server', selfCheck: QUIET, failures: BY_SERVER, excused: false },
    { machine: 'disturbed', errors: 'the server', selfCheck: BUSY, failures: BY_SERVER, excused: false },
    { machine: 'quiet', errors: 'timeouts and the drain', selfCheck: QUIET, failures: BY_MACHINE, excused: false },
    { machine: 'disturbed', errors: 'timeouts and the drain', selfCheck: BUSY, failures: BY_MACHINE, excused: true },
  ])(
    'a point that lost 10 of 210 requests to $errors on a $machine machine: as a bench run with them',
    async ({ machine, errors, selfCheck, failures, excused }) => {
      const lossy = (result: BenchmarkResult): BenchmarkResult => ({
        ...client(selfCheck)(result),
        counts: { total: 210, completed: 200, failed: 10 },
        errors: failures,
      })
      const sweep = withFirstPoint(makeSweep(CURVE), lossy)
      const point = sweep.points[0]?.result as BenchmarkResult
      const tag = `${machine}-${errors.replaceAll(' ', '-')}`
      const benchFile = join(dir, `lossy-${tag}.bench.ts`)
      const bench = await judgeBench({
        name: 'point',
        file: benchFile,
        result: point,
        slo: undefined,
        policy: DEFAULT_PARSED_POLICY,
        provided: { update: 'new', ci: false },
        env: {},
      })
      const judged = await judgeSweep(sweepInput(`lossy-sweep-${tag}.bench.ts`, sweep))

      // Failed, or (the machine's failures on a disturbed machine) neither failed nor judged: the bench's ruling.
      expect(bench.failure === undefined).toBe(excused)
      expect(judged.failure === undefined).toBe(excused)
      const check = judged.meta.checks.find((c) => c.name === 'failed requests at concurrency 8')
      expect(check?.status).toBe(excused ? 'inconclusive' : 'fail')
      expect(check?.message).toMatch(/^10 of 210 requests failed \(4\.8 %\), above the 1 % a point may lose/)
      if (excused) {
        expect(check?.message).toContain('not failed: the machine was disturbed (other processes used 1.9 of 2 cores)')
        expect(bench.baselineState).toBe('not judged')
        expect(judged.meta.baselineState).toBe('not judged')
        expect(statusOf(judged)).toBe('inconclusive')
      } else {
        expect(judged.failure).toContain('failed requests at concurrency 8: 10 of 210 requests failed')
        expect(bench.baselineState).toBeUndefined()
        expect(judged.meta.baselineState).toBeUndefined()
      }
      // Neither compared nor written, whatever the machine: no baseline from a run that lost requests.
      expect(judged.meta.checks[0]).toEqual({
        name: 'baseline',
        status: 'skip',
        message: 'not compared or written: points lost requests',
      })
      await expect(readFile(baselinePathFor(benchFile), 'utf8')).rejects.toThrow(/ENOENT/)
      await expect(
        readFile(baselinePathFor(sweepInput(`lossy-sweep-${tag}.bench.ts`, sweep).file), 'utf8'),
      ).rejects.toThrow(/ENOENT/)
    },
  )

  test('a relative fail on a disturbed machine is inconclusive, naming the point and what disturbed it', async () => {
    const file = 'disturbed.bench.ts'
    expect((await judgeSweep(sweepInput(file, makeSweep(CURVE)))).meta.baselineState).toBe('written')

    const quiet = await judgeSweep(sweepInput(file, makeSweep(SLOWER)))
    expect(quiet.meta.baselineState).toBe('compare')
    expect(quiet.meta.checks).toEqual([
      {
        name: 'output tokens/s at concurrency 64 vs baseline',
        status: 'fail',
        message: '808 >= 0.9 x baseline 1010 = 909 (ratio 0.800)',
      },
    ])
    expect(quiet.failure).toContain('output tokens/s at concurrency 64 vs baseline: 808 >= 0.9 x baseline 1010')

    const busy = await judgeSweep(sweepInput(file, withFirstPoint(makeSweep(SLOWER), client(BUSY))))
    expect(busy.meta.baselineState).toBe('compare')
    expect(busy.failure).toBeUndefined()
    expect(busy.meta.checks).toEqual([
      {
        name: 'output tokens/s at concurrency 64 vs baseline',
        status: 'inconclusive',
        message:
          'the machine was disturbed while this run measured (concurrency 8: other processes used 1.9 of 2 cores); ' +
          '808 >= 0.9 x baseline 1010 = 909 (ratio 0.800)',
      },
    ])
    expect(statusOf(busy)).toBe('inconclusive')

    // A bench 20 % slower on the same machine: the same rule, the same words.
    const before = makeSweep(CURVE).points[3]?.result as BenchmarkResult
    const after = client(BUSY)(makeSweep(SLOWER).points[3]?.result as BenchmarkResult)
    const verdict = compare(baselineEntryFrom(before), after, { outputTokensPerSec: '-10%' })
    expect(verdict.checks[0]?.status).toBe('inconclusive')
    expect(verdict.checks[0]?.reason).toMatch(
      /^the machine was disturbed while this run measured \(other processes used 1\.9 of 2 cores\); /,
    )
  })

  test('a relative fail while the client fell behind is inconclusive, as a bench', async () => {
    const file = 'behind.bench.ts'
    await judgeSweep(sweepInput(file, makeSweep(CURVE)))
    const behind = await judgeSweep(sweepInput(file, withFirstPoint(makeSweep(SLOWER), client(QUIET, false))))
    expect(behind.failure).toBeUndefined()
    expect(behind.meta.checks[0]?.status).toBe('inconclusive')
    expect(behind.meta.checks[0]?.message).toBe(
      'the client could not keep up; 808 >= 0.9 x baseline 1010 = 909 (ratio 0.800)',
    )
  })

  test('against a baseline recorded on a disturbed machine no relative check passes, as against a bench', async () => {
    const file = 'provisional.bench.ts'
    const recorded = await judgeSweep(sweepInput(file, withFirstPoint(makeSweep(CURVE), client(BUSY))))
    expect(recorded.meta.baselineState).toBe('provisional')
    // Under CI the provisional entry is compared, not replaced.
    const equal = await judgeSweep(sweepInput(file, makeSweep(CURVE), { provided: { update: 'none', ci: true } }))
    expect(equal.meta.baselineState).toBe('compare')
    expect(equal.failure).toBeUndefined()
    expect(equal.meta.checks[0]).toEqual({
      name: 'output tokens/s at concurrency 64 vs baseline',
      status: 'inconclusive',
      message:
        'the baseline was recorded while the machine was disturbed ' +
        '(concurrency 8: other processes used 1.9 of 2 cores) and can hide a slowdown; ' +
        '1010 >= 0.9 x baseline 1010 = 909 (ratio 1.000)',
    })
    expect(statusOf(equal)).toBe('inconclusive')
  })
})
