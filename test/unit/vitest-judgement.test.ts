import { formatFigure } from '../../src/core/platform/format-figure.ts'
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises'
import { entryStatus } from '../../reporters/report-entry.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { baselinePathFor } from '../../src/core/baseline/index.ts'
import { DEFAULT_PARSED_POLICY, parseRegressionPolicy } from '../../src/core/verdict/index.ts'
import { BaselineFileError } from '../../src/core/contract/errors.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { judgeBench, type JudgeInput } from '../../src/bench/bench-judgement.ts'
import { httpFailure } from '../../src/core/client/failure.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'
import { shownPath } from '../../src/core/platform/shown-path.ts'

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-bench-judgement-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

function resultWith(seed: number, scale: number): BenchmarkResult {
  const ttft = lognormalSamples(seededRandom(seed), 400, 100, 0.2).map((v) => v * scale)
  return makeResult({ ttftMs: ttft, tpotMs: lognormalSamples(seededRandom(seed + 1), 400, 20, 0.1) })
}

function input(file: string, result: BenchmarkResult, overrides: Partial<JudgeInput> = {}): JudgeInput {
  return {
    name: 'chat > p50 under load',
    file,
    result,
    slo: undefined,
    // One recording's trials trusted alone: these tests are about recording and judging, not between sessions.
    policy: parseRegressionPolicy({ ttftMs: { p50: '+10%' }, assumedSessionSpread: 0 }),
    provided: { update: 'new', ci: false },
    ...overrides,
  }
}

describe('judgeBench', () => {
  test('records a missing baseline locally, then passes an equal run and fails a 30% slower one with one readable block', async () => {
    const file = join(dir, 'chat.bench.ts')
    const path = baselinePathFor(file)
    const first = await judgeBench(input(file, resultWith(1, 1)))
    expect(first.failure).toBeUndefined()
    expect(first.baselineState).toBe('written')
    expect(first.notes.join('\n')).toContain(`baseline written: ${path} [chat > p50 under load]`)
    const stored = JSON.parse(await readFile(path, 'utf8')) as { entries: Record<string, unknown> }
    expect(Object.keys(stored.entries)).toEqual(['chat > p50 under load'])

    const same = await judgeBench(input(file, resultWith(2, 1)))
    expect(same.baselineState).toBe('compare')
    expect(same.verdict?.status).toBe('pass')
    expect(same.failure).toBeUndefined()

    const slow = await judgeBench(input(file, resultWith(3, 1.3)))
    expect(slow.verdict?.status).toBe('fail')
    const text = slow.failure ?? ''
    // Headline with the bench and the sample.
    expect(text).toMatch(/^chat > p50 under load: 400 of 400 requests completed in 60\.0 s/)
    // The verdict table: metric, baseline, current, ratio, CI, tolerance, n, status side by side.
    expect(text).toMatch(
      /ttftMs p50\s+\d+(?:\.\d+)? ms\s+\d+(?:\.\d+)? ms\s+1\.\d{3}\s+\[1\.\d{3}, 1\.\d{3}\]\s+\+10%\s+400\/400\s+FAIL/,
    )
    // The sentence naming the metric, measured and baseline values, ratio, limit and sample sizes.
    const check = slow.verdict?.checks[0]
    expect(check).toBeDefined()
    const current = formatFigure(check?.current ?? 0)
    const baseline = formatFigure(check?.baseline ?? 0)
    expect(text).toContain(
      `ttftMs p50 is ${current} ms, baseline ${baseline} ms: ratio ${check?.ratio?.toFixed(3)} (95% CI [${check?.ciLow?.toFixed(3)}, ${check?.ciHigh?.toFixed(3)}]) is beyond the limit 1.100 (+10%, at most ${formatFigure((check?.baseline ?? 0) * 1.1)} ms); n = 400 baseline / 400 current requests.`,
    )
    expect(text).toContain(`Regressed against the baseline recorded `)
    expect(text).toContain(`run \`vitest bench -u\` and commit ${path}`)
  })

  test("a soak's own error limit replaces the 1 % rule; without one, the failure names the soak's limit", async () => {
    const file = join(dir, 'soak.bench.ts')
    const soak = (checks: NonNullable<BenchmarkResult['soak']>['checks']): NonNullable<BenchmarkResult['soak']> => ({
      durationMs: 600_000,
      windowMs: 60_000,
      windows: [],
      trends: [],
      checks,
      verdict: 'pass',
    })
    const failing: BenchmarkResult = {
      ...resultWith(21, 1),
      counts: { total: 408, completed: 400, failed: 8 },
      errors: [{ kind: 'http', message: 'HTTP 500', count: 8 }],
    }
    // 2 % failed, within the soak's own 5 %: the soak passes on its own limit.
    const allowed = soak([
      { figure: 'errors.rate', limit: '0.05', verdict: 'pass', reason: 'error rate 1.96 % (8 of 408) <= 5.00 %' },
    ])
    const own = await judgeBench(input(file, { ...failing, soak: allowed }, { policy: DEFAULT_PARSED_POLICY }))
    expect(own.failure).toBeUndefined()
    // No error limit of its own: the 1 % rule fails it, without speaking of a baseline a soak never has.
    const none = await judgeBench(input(file, { ...failing, soak: soak([]) }, { policy: DEFAULT_PARSED_POLICY }))
    expect(none.failure).toContain('8 of 408 requests failed (2.0 %), above the 1 %')
    expect(none.failure).not.toContain('baseline')
    expect(none.failure).toContain('soak: { expect: { errors: { maxRate } } }')
  })

  test('more than 1 % failed requests: not judged, no baseline written, unless the bench sets its own error SLO', async () => {
    const file = join(dir, 'failing.bench.ts')
    const good = resultWith(11, 1)
    const failing: BenchmarkResult = {
      ...good,
      counts: { total: 410, completed: 400, failed: 10 },
      errors: [{ kind: 'network', message: 'connect ECONNREFUSED 127.0.0.1:8000', count: 10 }],
    }
    const judged = await judgeBench(input(file, failing))
    expect(judged.failure).toContain(
      '10 of 410 requests failed (2.4 %), above the 1 % a run may lose and still be judged',
    )
    expect(judged.failure).toContain('10 x network: connect ECONNREFUSED')
    expect(judged.failure).toContain('slo: { errors: { maxRate } }')
    expect(judged.baselineState).toBeUndefined()
    await expect(readFile(baselinePathFor(file), 'utf8')).rejects.toThrow(/ENOENT/)
    // 1 failure in 401 (0.25 %) is within the default; a bench's own error SLO replaces the default.
    const few = await judgeBench(input(file, { ...failing, counts: { total: 401, completed: 400, failed: 1 } }))
    expect(few.failure).toBeUndefined()
    // On a disturbed machine, failures the machine can cause (timeouts, requests cut off at the drain)
    // are not judged, and not failed: the machine is named.
    const selfCheck = {
      cores: 2,
      loadAverage1m: 5,
      otherCores: 1.9,
      disturbed: ['other processes used 1.9 of 2 cores'],
    }
    const busy: BenchmarkResult = {
      ...failing,
      errors: [
        { kind: 'timeout', message: 'request timed out after 30000 ms', count: 6 },
        { kind: 'cancelled', message: 'cancelled at the drain', count: 4 },
      ],
      client: { ...failing.client, selfCheck },
    }
    const busyFile = join(dir, 'failing-busy.bench.ts')
    const onBusy = await judgeBench(input(busyFile, busy))
    expect(onBusy.failure).toBeUndefined()
    expect(onBusy.notes.join('\n')).toContain('not judged: 10 of 410 requests failed')
    expect(onBusy.notes.join('\n')).toContain(
      'Not failed either: the machine was disturbed (other processes used 1.9 of 2 cores)',
    )
    // Reports show it as inconclusive, never as a green pass (it had been `pass` in every report).
    expect(onBusy.baselineState).toBe('not judged')
    expect(
      entryStatus({
        name: 'x',
        file: 'x.bench.ts',
        state: 'passed',
        result: busy,
        baselineState: onBusy.baselineState,
      }),
    ).toBe('inconclusive')
    await expect(readFile(baselinePathFor(busyFile), 'utf8')).rejects.toThrow(/ENOENT/)
    // The server's own failures (a refused connection, a status code, an error event) count on any machine.
    for (const kind of ['network', 'http', 'stream-error', 'incomplete'] as const) {
      const serverFaults: BenchmarkResult = {
        ...failing,
        errors: [{ kind, message: `${kind} failure`, count: 10 }],
        client: { ...failing.client, selfCheck },
      }
      const judgedBusy = await judgeBench(input(join(dir, `server-${kind}.bench.ts`), serverFaults))
      expect(judgedBusy.failure, kind).toContain(
        '10 of 410 requests failed (2.4 %), above the 1 % a run may lose and still be judged',
      )
    }
    const own = await judgeBench(input(join(dir, 'own-slo.bench.ts'), failing, { slo: { errors: { maxRate: 0.05 } } }))
    expect(own.failure).toBeUndefined()
    expect(own.baselineState).toBe('written')
  })

  test('no request completed: an error status says what to change, not that the server may be down', async () => {
    const none = (kind: 'http' | 'network', message: string): BenchmarkResult => ({
      ...resultWith(12, 1),
      counts: { total: 40, completed: 0, failed: 40 },
      errors: [{ kind, message, count: 40 }],
    })
    const context = httpFailure(
      400,
      '{"error":{"message":"the request exceeds the available context size, try increasing it"}}',
      'http://127.0.0.1:8080/v1/chat/completions',
    )
    const refused = await judgeBench(
      input(join(dir, 'refused.bench.ts'), none('http', context.message), { policy: false }),
    )
    expect(refused.failure).toContain(
      'No request completed: 40 x http: POST http://127.0.0.1:8080/v1/chat/completions: HTTP 400: the request exceeds the available context size, try increasing it. The server is up and refused it: check the prompt and output lengths against its context size, target.model and extraBody.',
    )
    expect(refused.failure).not.toContain('Check that the server is up')
    const down = await judgeBench(
      input(
        join(dir, 'down.bench.ts'),
        none('network', 'connection refused; is the server running and listening there? Check target.baseUrl'),
        { policy: false },
      ),
    )
    expect(down.failure).toContain(
      'No request completed: 40 x network: connection refused; is the server running and listening there? Check target.baseUrl. Check that the server is up and serves the model.',
    )
  })

  test('a server that stopped answering fails the bench on any machine, named, and writes no baseline', async () => {
    const selfCheck = {
      cores: 2,
      loadAverage1m: 5,
      otherCores: 1.9,
      disturbed: ['other processes used 1.9 of 2 cores'],
    }
    const measured = resultWith(11, 1)
    const stalled: BenchmarkResult = {
      ...measured,
      counts: { total: 404, completed: 400, failed: 4 },
      errors: [{ kind: 'cancelled', message: 'cancelled: the run was aborted', count: 4 }],
      stall: { silentMs: 3012, inFlight: 4, stallTimeoutMs: 3000 },
      client: { ...measured.client, selfCheck },
    }
    for (const result of [stalled, { ...stalled, client: measured.client }]) {
      const file = join(dir, `stalled-${result.client.selfCheck ? 'busy' : 'quiet'}.bench.ts`)
      const judged = await judgeBench(input(file, result))
      expect(judged.failure).toContain(
        'The server stopped answering: no byte from any of the 4 requests in flight for 3 s (target.stallTimeoutMs: 3000 ms), and the run was stopped. ' +
          'The run is not judged and no baseline is written; the 400 requests that completed before are in the reports.',
      )
      await expect(readFile(baselinePathFor(file), 'utf8')).rejects.toThrow(/ENOENT/)
    }
  })

  test('recording rule: a disturbed run is recorded provisionally, nothing passes against it, a quiet local run replaces it', async () => {
    const file = join(dir, 'busy.bench.ts')
    const name = 'chat > p50 under load'
    const quiet = resultWith(21, 1)
    const busyCheck = {
      cores: 2,
      loadAverage1m: 4.2,
      otherCores: 1.8,
      disturbed: ['other processes used 1.8 of 2 cores'],
    }
    const busy: BenchmarkResult = { ...quiet, client: { ...quiet.client, selfCheck: busyCheck } }
    const stored = async () =>
      (
        JSON.parse(await readFile(baselinePathFor(file), 'utf8')) as {
          entries: Record<string, { provisional?: string[]; selfCheck?: { disturbed: string[] } }>
        }
      ).entries[name]

    const first = await judgeBench(input(file, busy, { env: {} }))
    expect(first.failure).toBeUndefined()
    // Written, as a provisional entry: the reports show it so, never as a pass.
    expect(first.baselineState).toBe('provisional')
    expect(first.notes).toContain(
      'baseline recorded provisionally: the machine was disturbed while this run measured (other processes used 1.8 of 2 cores). ' +
        'No verdict passes against it; the next run on a quiet machine replaces it (`vitest bench`, or `-u`).',
    )
    expect((await stored())?.provisional).toEqual(['other processes used 1.8 of 2 cores'])

    // Under CI nothing is written: the unchanged quiet run cannot pass against it, it is inconclusive and names why.
    const ci = { provided: { update: 'none' as const, ci: true } }
    const unchanged = await judgeBench(input(file, quiet, ci))
    expect(unchanged.failure).toBeUndefined()
    expect(unchanged.verdict?.status).toBe('inconclusive')
    expect(unchanged.verdict?.checks[0]?.reason).toContain(
      'the baseline was recorded while the machine was disturbed (other processes used 1.8 of 2 cores) and can hide a slowdown',
    )
    // A run slower than the (slowed) baseline still fails.
    const slower = await judgeBench(input(file, resultWith(22, 1.5), ci))
    expect(slower.verdict?.status).toBe('fail')
    expect(slower.failure).toContain('Regressed against the baseline')
    expect((await stored())?.provisional).toEqual(['other processes used 1.8 of 2 cores'])

    // Locally, a quiet run slower beyond the gates even than the disturbed recording is a regression:
    // it fails and the provisional entry stays (it had replaced it, and then every slowed run passed).
    const regressed = await judgeBench(input(file, resultWith(23, 1.5)))
    expect(regressed.baselineState).toBe('compare')
    expect(regressed.verdict?.status).toBe('fail')
    expect(regressed.failure).toContain('Regressed against the baseline')
    expect((await stored())?.provisional).toEqual(['other processes used 1.8 of 2 cores'])
    // The first quiet run that is not slower replaces it and says so; the entry is then trusted.
    const replaced = await judgeBench(input(file, quiet))
    expect(replaced.baselineState).toBe('updated')
    expect(replaced.notes.join('\n')).toMatch(
      /replaced the provisional baseline recorded .* \(other processes used 1\.8 of 2 cores\) with this quiet run's/,
    )
    expect((await stored())?.provisional).toBeUndefined()
    // A disturbed run never replaces a trusted entry without -u; with -u it becomes provisional again.
    const busyAgain = await judgeBench(input(file, busy, { env: {} }))
    expect(busyAgain.baselineState).toBe('compare')
    const rerecorded = await judgeBench(input(file, busy, { env: {}, provided: { update: 'all', ci: false } }))
    expect(rerecorded.baselineState).toBe('provisional')
    expect((await stored())?.provisional).toEqual(['other processes used 1.8 of 2 cores'])

    // Forced, it is recorded as trusted; the self-check still says what disturbed it.
    const forced = await judgeBench(
      input(file, busy, { env: { LLM_BENCH_FORCE_BASELINE: '1' }, provided: { update: 'all', ci: false } }),
    )
    expect(forced.baselineState).toBe('updated')
    expect(forced.notes.join('\n')).toContain(
      'baseline recorded as trusted although the machine was disturbed (other processes used 1.8 of 2 cores): LLM_BENCH_FORCE_BASELINE=1',
    )
    expect((await stored())?.provisional).toBeUndefined()
    expect((await stored())?.selfCheck?.disturbed).toEqual(['other processes used 1.8 of 2 cores'])
  })

  test("onInconclusive: 'warn' passes with each undecided check's reason in the notes, 'fail' fails with them, 'pass' says nothing", async () => {
    const file = join(dir, 'undecided.bench.ts')
    await judgeBench(input(file, resultWith(31, 1)))
    // 10 % slower against a +10% tolerance: the interval straddles the limit.
    const edge = resultWith(32, 1.1)
    const trials = { record: 5, max: 3, restartServer: 'never' as const }
    const warn = await judgeBench(input(file, edge, { trials: { ...trials, onInconclusive: 'warn' } }))
    expect(warn.verdict?.status).toBe('inconclusive')
    expect(warn.failure).toBeUndefined()
    expect(warn.notes.join('\n')).toMatch(
      /inconclusive: chat > p50 under load: ttftMs p50: the 95% interval \[.*\] contains the limit 1\.100/,
    )
    const strict = await judgeBench(input(file, edge, { trials: { ...trials, onInconclusive: 'fail' } }))
    expect(strict.failure).toContain(
      'Inconclusive, and this bench fails on inconclusive (trials.onInconclusive: "fail")',
    )
    const quiet = await judgeBench(input(file, edge, { trials: { ...trials, onInconclusive: 'pass' } }))
    expect(quiet.failure).toBeUndefined()
    expect(quiet.notes.some((note) => note.startsWith('inconclusive:'))).toBe(false)
  })

  test('under CI a missing entry fails, telling to run `vitest bench -u` and commit, and writes nothing', async () => {
    const file = join(dir, 'ci.bench.ts')
    const judged = await judgeBench(input(file, resultWith(4, 1), { provided: { update: 'none', ci: true } }))
    const path = baselinePathFor(file)
    expect(judged.baselineState).toBe('missing')
    expect(judged.failure).toContain(
      `No baseline for 'chat > p50 under load' in ${path}. Run \`vitest bench -u\` locally and commit ${path}.`,
    )
    await expect(readFile(path, 'utf8')).rejects.toThrow(/ENOENT/)
  })

  test('-u (update all) rewrites an existing entry instead of comparing', async () => {
    const file = join(dir, 'update.bench.ts')
    await judgeBench(input(file, resultWith(5, 1)))
    const before = await readFile(baselinePathFor(file), 'utf8')
    const judged = await judgeBench(input(file, resultWith(6, 1.3), { provided: { update: 'all', ci: false } }))
    expect(judged.baselineState).toBe('updated')
    expect(judged.failure).toBeUndefined()
    expect(await readFile(baselinePathFor(file), 'utf8')).not.toBe(before)
  })

  test('a corrupted baseline file rejects with its path', async () => {
    const file = join(dir, 'broken.bench.ts')
    const path = baselinePathFor(file)
    await mkdir(join(dir, '__llm_baselines__'), { recursive: true })
    await writeFile(path, '{ "entries": ')
    const judged = judgeBench(input(file, resultWith(7, 1)))
    await expect(judged).rejects.toBeInstanceOf(BaselineFileError)
    await expect(judgeBench(input(file, resultWith(7, 1)))).rejects.toThrow(path)
  })

  test('an SLO failure is reported with the limit, the measured value and n; baseline: false writes no file', async () => {
    const file = join(dir, 'slo.bench.ts')
    const judged = await judgeBench(input(file, resultWith(8, 1), { policy: false, slo: { ttftMs: { p50: 50 } } }))
    expect(judged.failure).toMatch(/SLO: FAIL/)
    expect(judged.failure).toMatch(/ttftMs p50\s+\d+(\.\d+)? ms\s+<= 50 ms\s+400\s+FAIL/)
    expect(judged.baselinePath).toBeUndefined()
    await expect(readFile(baselinePathFor(file), 'utf8')).rejects.toThrow(/ENOENT/)
  })

  test('entries of other benches in the file are kept (not obsolete mid-run)', async () => {
    const file = join(dir, 'two.bench.ts')
    await judgeBench(input(file, resultWith(9, 1), { name: 'first' }))
    await judgeBench(input(file, resultWith(10, 1), { name: 'second', provided: { update: 'all', ci: false } }))
    const stored = JSON.parse(await readFile(baselinePathFor(file), 'utf8')) as { entries: Record<string, unknown> }
    expect(Object.keys(stored.entries).sort()).toEqual(['first', 'second'])
  })
  test('LLM_BENCH_ADD_SESSION: a judged run that did not fail on a quiet machine is one more session; the default policy allows for them', async () => {
    const file = join(dir, 'sessions.bench.ts')
    const policy = parseRegressionPolicy({ ttftMs: { p50: '+10%' } })
    const add = { policy, provided: { update: 'new' as const, ci: false, addSession: true } }
    const stored = async () =>
      (
        JSON.parse(await readFile(baselinePathFor(file), 'utf8')) as {
          entries: Record<string, { sessions?: unknown[] }>
        }
      ).entries['chat > p50 under load']?.sessions ?? []
    await judgeBench(input(file, resultWith(31, 1), { policy }))
    expect(await stored()).toHaveLength(1)
    // 30 % slower, unchanged code on a machine that moved: not failed on one stored session, and says what decides.
    const moved = await judgeBench(input(file, resultWith(32, 1.3), add))
    expect(moved.failure).toBeUndefined()
    expect(moved.verdict?.checks[0]?.reason).toContain('between-session spread not known yet (1 session stored)')
    expect(moved.notes).toContain(
      `session added to ${shownPath(baselinePathFor(file))} [chat > p50 under load]: 2 stored on this machine`,
    )
    expect(await stored()).toHaveLength(2)
    // A failed run is never a session.
    const failed = await judgeBench(input(file, resultWith(33, 3), add))
    expect(failed.verdict?.status).toBe('fail')
    expect(failed.notes).toContain('session not added: it failed a gate')
    expect(await stored()).toHaveLength(2)
    // Without the variable nothing is added.
    await judgeBench(input(file, resultWith(34, 1), { policy }))
    expect(await stored()).toHaveLength(2)
  })
})
