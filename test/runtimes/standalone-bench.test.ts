/** bench.llm outside Vitest: update flag, bench-file discovery, and registration on a runner's `test`. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { simulator } from '../../src/bench/bench-options.ts'
import type { BenchLlmOptions } from '../../src/bench/bench-options.ts'
import { runBench } from '../../src/bench/run-bench.ts'
import {
  callerFileOf,
  createStandaloneBenchLlm,
  standaloneProvided,
  updateModeFromEnv,
} from '../../src/bench/standalone-bench-llm.ts'
import type { RegisterTest } from '../../src/bench/standalone-bench-llm.ts'
import { disturbanceNamed } from '../helpers/busy-machine.ts'
import { expectRecorded } from '../helpers/busy-machine.ts'

describe('LLM_BENCH_UPDATE', () => {
  test.each([
    [{}, 'new'],
    [{ CI: 'true' }, 'none'],
    [{ LLM_BENCH_UPDATE: '1' }, 'all'],
    [{ LLM_BENCH_UPDATE: 'true', CI: 'true' }, 'all'],
    [{ LLM_BENCH_UPDATE: 'all' }, 'all'],
    [{ LLM_BENCH_UPDATE: 'new', CI: '1' }, 'new'],
    [{ LLM_BENCH_UPDATE: '0' }, 'none'],
    [{ LLM_BENCH_UPDATE: 'none' }, 'none'],
  ] as const)('%j -> %s', (env, mode) => {
    expect(updateModeFromEnv(env)).toBe(mode)
  })

  test('an unknown value is an OptionsError naming the variable and the values it takes', () => {
    expect(() => updateModeFromEnv({ LLM_BENCH_UPDATE: 'yes please' })).toThrow(OptionsError)
    expect(() => updateModeFromEnv({ LLM_BENCH_UPDATE: 'yes please' })).toThrow(/LLM_BENCH_UPDATE.*Use 1/)
  })

  test('LLM_BENCH_BASELINE_DIR moves the baseline files, as the plugin option baselineDir does', () => {
    expect(standaloneProvided({ LLM_BENCH_BASELINE_DIR: '/tmp/b', CI: 'true' })).toEqual({
      update: 'none',
      ci: true,
      baselineDir: '/tmp/b',
    })
  })
})

describe('callerFileOf: the bench file from the stack of a bench.llm call', () => {
  const own = (file: string) => /[\\/]src[\\/](bun|deno)[\\/]/.test(file) || /standalone-bench-llm\.[jt]s$/.test(file)
  test.each([
    [
      'Bun',
      'Error\n    at registerIn (/repo/src/bench/standalone-bench-llm.ts:150:20)\n    at /repo/src/bun/bench-llm.ts:10:3\n    at /home/me/app/benches/chat.bench.ts:4:7',
      '/home/me/app/benches/chat.bench.ts',
    ],
    [
      'Bun, named frame',
      'Error\n    at <anonymous> (/repo/src/bench/standalone-bench-llm.ts:150:20)\n    at <anonymous> (/home/me/app/chat.bench.ts:4:7)',
      '/home/me/app/chat.bench.ts',
    ],
    [
      'Deno',
      'Error\n    at registerIn (file:///repo/src/bench/standalone-bench-llm.ts:150:20)\n    at file:///home/me/app/b%20c/chat.bench.ts:4:7',
      '/home/me/app/b c/chat.bench.ts',
    ],
    [
      'Node',
      'Error\n    at registerIn (/repo/dist/src/bench/standalone-bench-llm.js:1:1)\n    at Object.<anonymous> (/home/me/app/chat.bench.ts:4:7)',
      '/home/me/app/chat.bench.ts',
    ],
  ])('%s', (_runtime, stack, file) => {
    expect(callerFileOf(stack, own)).toBe(file)
  })

  test('no file in the stack: undefined', () => {
    expect(callerFileOf('Error\n    at <anonymous>\n    at native', own)).toBeUndefined()
  })
})

describe('createStandaloneBenchLlm', () => {
  interface Registered {
    mode: string
    name: string
    fn: () => Promise<void>
    timeoutMs: number
  }
  function runner(): { registered: Registered[]; register: RegisterTest } {
    const registered: Registered[] = []
    return { registered, register: (mode, name, fn, timeoutMs) => registered.push({ mode, name, fn, timeoutMs }) }
  }
  const options = (speedFactor: number): BenchLlmOptions => ({
    server: simulator({ speedFactor, seed: 3, prefillBaseMs: 6, decodeBaseMs: 3 }),
    workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 12 } },
    load: { concurrency: 2, requests: 40 },
    seed: 1,
    baseline: { tpotMs: { p50: '+20%' } },
  })

  test('registers skip, only, skipIf and runIf as the runner spells them, with the timeout', () => {
    const { registered, register } = runner()
    const llm = createStandaloneBenchLlm(register, { file: '/x/a.bench.ts' })
    llm('plain', options(1))
    llm.skip('skipped', { ...options(1), timeoutMs: 1234 })
    llm.only('only', options(1))
    llm.skipIf(true)('skipIf true', options(1))
    llm.runIf(false)('runIf false', options(1))
    llm.runIf(true)('runIf true', options(1))
    // timeoutMs holds per trial: the test may run up to 5 recorded trials and 2 re-measured ones; the
    // runner's limit is a minute later, so the bench's own message comes first.
    expect(registered.map((r) => [r.mode, r.name, r.timeoutMs])).toEqual([
      ['run', 'plain', 600_000 * 7 + 60_000],
      ['skip', 'skipped', 1234 * 7 + 60_000],
      ['only', 'only', 600_000 * 7 + 60_000],
      ['skip', 'skipIf true', 600_000 * 7 + 60_000],
      ['skip', 'runIf false', 600_000 * 7 + 60_000],
      ['run', 'runIf true', 600_000 * 7 + 60_000],
    ])
  })

  test('at its time limit the run stops and the bench fails naming timeoutMs, with what it measured', async () => {
    const { registered, register } = runner()
    const lines: string[] = []
    const long = {
      ...options(1),
      load: { concurrency: 2, requests: 1_000_000 },
      baseline: false as const,
      timeoutMs: 300,
    }
    createStandaloneBenchLlm(register, {
      file: '/tmp/limit.bench.ts',
      env: { CI: 'true' },
      log: (line) => lines.push(line),
    })('endless', long)
    const started = performance.now()
    const failure = await registered[0]?.fn().then(
      () => undefined,
      (error: unknown) => error,
    )
    // 300 ms x 7 trials: the load ends at 2.1 s, the server is stopped and the bench fails.
    expect(performance.now() - started).toBeLessThan(10_000)
    expect((failure as Error).name).toBe('LlmBenchAssertionError')
    expect((failure as Error).message).toMatch(
      /^endless: stopped at its time limit, 2.1 s \(`timeoutMs` 300 ms per trial, times the 7 trials it may run: those it records or compares, plus 2 re-measures of a disturbed trial\), with \d+ of \d+ requests completed, which are in the reports\. Raise `timeoutMs`/,
    )
    expect(lines.join('\n')).toContain('endless')
  })

  test('bad options fail when the file is loaded, before anything runs', () => {
    const { registered, register } = runner()
    const llm = createStandaloneBenchLlm(register, { file: '/x/a.bench.ts' })
    expect(() => llm('typo', { ...options(1), laod: {} } as unknown as BenchLlmOptions)).toThrow(OptionsError)
    expect(registered).toHaveLength(0)
  })

  test('the bench file is the caller of bench.llm when not given', () => {
    const { registered, register } = runner()
    createStandaloneBenchLlm(register)('here', options(1))
    expect(registered).toHaveLength(1)
  })

  test('under CI a missing baseline fails the bench, naming the runner update command instead of `vitest bench -u`', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-standalone-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const { registered, register } = runner()
    createStandaloneBenchLlm(register, {
      file: join(dir, 'chat.bench.ts'),
      env: { CI: 'true' },
      log: () => {},
      updateCommand: 'LLM_BENCH_UPDATE=1 bun test',
    })('chat steady', options(1))
    const failure = await registered[0]?.fn().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(Error)
    expect((failure as Error).name).toBe('LlmBenchAssertionError')
    expect((failure as Error).message).toContain("No baseline for 'chat steady'")
    expect((failure as Error).message).toContain('`LLM_BENCH_UPDATE=1 bun test`')
    expect((failure as Error).message).not.toContain('vitest bench -u')
  })

  test('resetPrefixCache asks the target to empty its cache; a server without the endpoint gets a warning, not a failure', async () => {
    const reset = await runBench({
      name: 'reset',
      file: '/tmp/reset.bench.ts',
      options: { ...options(1), baseline: false, resetPrefixCache: true },
      provided: { update: 'none', ci: true },
    })
    expect(reset.judgement.failure).toBeUndefined()
    expect(reset.result.warnings.filter((w) => w.startsWith('resetPrefixCache: '))).toEqual([
      expect.stringMatching(
        /^resetPrefixCache: http:\/\/127\.0\.0\.1:\d+ offers neither POST \/reset_prefix_cache \(vLLM with VLLM_SERVER_DEV_MODE=1\) nor POST \/flush_cache \(SGLang\)/,
      ),
    ])
    const plain = await runBench({
      name: 'plain',
      file: '/tmp/reset.bench.ts',
      options: { ...options(1), baseline: false },
      provided: { update: 'none', ci: true },
    })
    expect(plain.result.warnings.some((w) => w.startsWith('resetPrefixCache: '))).toBe(false)
  })

  test('trials: a baseline is recorded from `record` trials; a regression is confirmed on `max` trials; an unchanged run never fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-trials-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'trials.bench.ts')
    const withTrials = (speed: number): BenchLlmOptions => ({ ...options(speed), trials: { record: 3, max: 3 } })
    const recorded = await runBench({
      name: 'trials',
      file,
      options: withTrials(1),
      provided: { update: 'new', ci: false },
    })
    expectRecorded(recorded.judgement, recorded.result)
    expect(recorded.result.trials).toHaveLength(3)
    expect(recorded.result.counts.completed).toBe(120)
    expect(recorded.judgement.notes.join('\n')).toMatch(
      /\[trials\] \(3 trials\)[\s\S]*between-trial spread over 3 recorded trials: tpotMs p50/,
    )
    const stored = JSON.parse(await readFile(join(dir, '__llm_baselines__', 'trials.bench.ts.json'), 'utf8')) as {
      entries: Record<string, { trials?: unknown[] }>
    }
    expect(stored.entries.trials?.trials).toHaveLength(3)

    const same = await runBench({
      name: 'trials',
      file,
      options: withTrials(1),
      provided: { update: 'none', ci: true },
    })
    expect(same.judgement.verdict?.status).not.toBe('fail')
    expect(same.judgement.verdict?.checks[0]?.trials?.baseline).toBe(3)
    // One stored session: its allowance (an assumed 12.7 %) contains the +20 % limit whatever more trials show, so no
    // second trial is measured for it, and the reason says that more cannot narrow it.
    const [sameCheck] = same.judgement.verdict?.checks ?? []
    expect(sameCheck?.status).toBe('inconclusive')
    expect(sameCheck?.sessions?.containsLimit).toBe(true)
    expect(sameCheck?.reason).toMatch(/an allowance that spans the limit by itself: more samples cannot narrow it/)
    expect(same.result.trials).toHaveLength(1)

    const slow = await runBench({
      name: 'trials',
      file,
      options: withTrials(3),
      provided: { update: 'none', ci: true },
    })
    const verdict = slow.judgement.verdict
    const why = [...(verdict?.notes ?? []), ...(verdict?.checks ?? []).map((check) => check.reason ?? '')].join('\n')
    // Steal below the disturbance limit can explain up to 1 + 40 x its share (3x at 5 %): then the
    // 3x slower run is inconclusive and must say so; it never passes.
    expect(verdict?.status).not.toBe('pass')
    if (slow.result.client.keptUp && disturbanceNamed(why) === undefined) {
      expect(verdict?.status, why).toBe('fail')
      // A fail is measured again until the budget: it holds on every trial together.
      expect(slow.result.trials).toHaveLength(3)
      expect(slow.judgement.verdict?.checks[0]?.trials).toEqual({ baseline: 3, current: 3 })
    }
    const once = await runBench({
      name: 'trials',
      file,
      options: { ...options(3), trials: { max: 1 } },
      provided: { update: 'none', ci: true },
    })
    expect(once.result.trials).toHaveLength(1)
  })

  test('writes the baseline beside the bench file, then judges a 3x slower run a regression', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-standalone-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'chat.bench.ts')
    const lines: string[] = []
    const { registered, register } = runner()
    createStandaloneBenchLlm(register, { file, env: {}, log: (line) => lines.push(line) })('chat steady', options(1))
    await registered[0]?.fn()
    // A baseline is recorded from 5 trials of 40 requests: provisionally on a busy machine, which a line names.
    expect(lines[0]).toMatch(
      /^chat steady: 200\/200 completed, TTFT p99 [\d.]+ ms, \d+ output tok\/s, baseline: (written|provisional)$/,
    )
    if (lines[0]?.endsWith('provisional'))
      expect(lines.some((line) => line.startsWith('baseline recorded provisionally: the machine was disturbed'))).toBe(
        true,
      )
    expect(
      lines.some((line) => line.startsWith('baseline written: ') && line.includes('[chat steady] (5 trials)')),
    ).toBe(true)
    const stored = JSON.parse(await readFile(join(dir, '__llm_baselines__', 'chat.bench.ts.json'), 'utf8')) as {
      entries: Record<string, unknown>
    }
    expect(Object.keys(stored.entries)).toEqual(['chat steady'])

    const { result, judgement } = await runBench({
      name: 'chat steady',
      file,
      options: options(3),
      provided: { update: 'none', ci: true },
    })
    const tpot = judgement.verdict?.checks.find((check) => check.metric === 'tpotMs')
    expect(tpot?.ratio).toBeGreaterThan(2)
    // A client starved of CPU, a disturbed machine or one slower than at recording makes every
    // failure inconclusive (compare.ts): only then may it not fail, and the reason must say which.
    const reasons = (judgement.verdict?.checks ?? []).map((check) => check.reason ?? '').join(' | ')
    if (judgement.verdict?.status === 'inconclusive') {
      expect(reasons).toMatch(
        /could not keep up|disturbed|of the CPU \(steal\)|slower than when the baseline was recorded|within the client's measured lateness/,
      )
    } else {
      expect(judgement.verdict?.status, `${reasons} ${JSON.stringify(result.client.selfCheck)}`).toBe('fail')
      expect(judgement.failure).toContain('Regressed against the baseline')
    }
  })
})

describe('a provisional baseline outside Vitest', () => {
  test('a local run measures it again as a recording (its trials), and replaces it when quiet', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-standalone-provisional-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'chat.bench.ts')
    const options: BenchLlmOptions = {
      server: simulator({ seed: 3, prefillBaseMs: 6, decodeBaseMs: 3 }),
      workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 12 } },
      load: { concurrency: 2, requests: 20 },
      seed: 1,
      baseline: { tpotMs: { p50: '+20%' } },
      trials: { record: 2, max: 3 },
    }
    await runBench({ name: 'chat', file, options, provided: { update: 'all', ci: false } })
    // The stored entry as if it had been recorded on a disturbed machine.
    const path = join(dir, '__llm_baselines__', 'chat.bench.ts.json')
    const stored = JSON.parse(await readFile(path, 'utf8')) as { entries: Record<string, { provisional?: string[] }> }
    const entry = stored.entries.chat
    if (entry === undefined) throw new Error('no entry written')
    entry.provisional = ['the hypervisor took 9.0 % of the CPU (steal)']
    await writeFile(path, JSON.stringify(stored))
    const { result, judgement } = await runBench({
      name: 'chat',
      file,
      options,
      provided: { update: 'new', ci: false },
    })
    // Two trials, as a recording takes (a compared run would take one first).
    expect(result.trials).toHaveLength(2)
    if ((result.client.selfCheck?.disturbed.length ?? 0) === 0) {
      expect(judgement.baselineState).toBe('updated')
      expect(judgement.notes.join('\n')).toContain('replaced the provisional baseline recorded')
    } else {
      expect(judgement.baselineState).toBe('compare')
    }
  }, 60_000)
})

describe('bench.llm.sweep outside Vitest', () => {
  test('a curve over concurrency is recorded as one baseline entry, compared on the next run, and a failed expectation fails the test naming the check', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-standalone-sweep-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const registered: Array<{ mode: string; name: string; fn: () => Promise<void> }> = []
    const lines: string[] = []
    const llm = createStandaloneBenchLlm((mode, name, fn) => registered.push({ mode, name, fn }), {
      file: join(dir, 'sweep.bench.ts'),
      env: {},
      log: (line) => lines.push(line),
      updateCommand: 'LLM_BENCH_UPDATE=1 bun test',
    })
    const sweep = {
      server: simulator({ seed: 3, prefillBaseMs: 4, decodeBaseMs: 2 }),
      workload: { kind: 'synthetic' as const, inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
      over: { concurrency: [1, 2] },
      load: { requests: 8 },
    }
    llm.sweep('curve', sweep)
    llm.sweep.skip('skipped curve', sweep)
    llm.sweep('impossible', { ...sweep, expect: { throughput: [{ at: 2, min: 1e9 }] } })
    expect(registered.map((r) => [r.mode, r.name])).toEqual([
      ['run', 'curve'],
      ['skip', 'skipped curve'],
      ['run', 'impossible'],
    ])
    expect(() => llm.sweep('typo', { ...sweep, ovr: {} } as never)).toThrow(OptionsError)

    await registered[0]?.fn()
    // Written; provisional when the machine was disturbed (a reports' `?`, by design).
    expect(lines[0]).toMatch(/^curve: 2 points in \d+\.\d s · baseline (written|provisional)$/)
    const stored = JSON.parse(await readFile(join(dir, '__llm_baselines__', 'sweep.bench.ts.json'), 'utf8')) as {
      entries: Record<string, { sweep?: { points?: unknown[] } }>
    }
    expect(stored.entries.curve?.sweep?.points).toHaveLength(2)
    await registered[0]?.fn()
    // Compared; or, when the first sweep was measured disturbed (a provisional entry), replaced by this quiet one.
    expect(
      lines.find((line) => line.startsWith('curve: 2 points') && /baseline (compare|updated)$/.test(line)),
    ).toBeDefined()

    const failure = await registered[2]?.fn().then(
      () => undefined,
      (error: unknown) => error as Error,
    )
    expect(failure?.name).toBe('LlmBenchAssertionError')
    expect(failure?.message).toMatch(/^impossible: 2 points in /)
    expect(failure?.message).toMatch(/output tokens\/s at concurrency 2: \d+(?:\.\d+)? >= 1000000000/)
  })
})

describe('bench.llm.compare outside Vitest', () => {
  test('variants side by side: twice as slow fails the registered test, naming the variant, gate and pairs', async () => {
    const registered: Array<{ mode: string; name: string; fn: () => Promise<void> }> = []
    const lines: string[] = []
    const llm = createStandaloneBenchLlm((mode, name, fn) => registered.push({ mode, name, fn }), {
      file: join(tmpdir(), 'compare.bench.ts'),
      env: {},
      log: (line) => lines.push(line),
    })
    const sim = { seed: 3, prefillBaseMs: 20, decodeBaseMs: 4 }
    const options = {
      variants: { default: simulator(sim), slow: simulator({ ...sim, speedFactor: 2 }) },
      control: 'default',
      workload: { kind: 'synthetic' as const, inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
      load: { concurrency: 2, requests: 30 },
      baseline: { ttftMs: { p50: '+10%' as const } },
      // More pairs only if one was left out (one arm measured on a disturbed machine).
      pairs: { min: 2, max: 4 },
    }
    llm.compare('two servers', options)
    llm.compare.skip('skipped', options)
    expect(registered.map((r) => [r.mode, r.name])).toEqual([
      ['run', 'two servers'],
      ['skip', 'skipped'],
    ])
    expect(() => llm.compare('typo', { ...options, contrl: 'default' } as never)).toThrow(/Did you mean `control`\?/)
    const failure = await registered[0]?.fn().then(
      () => undefined,
      (error: unknown) => error as Error,
    )
    if (failure === undefined) {
      // Beside other work (two CPU-bound processes in the hog runs), pairs a busy machine hit on one arm are left out
      // and the rest may not decide: then the tool must have said the machine was disturbed, and the slow variant is
      // never passed. On a quiet machine this branch fails: the variant must fail.
      const said = lines.join('\n')
      expect(said).toMatch(/measured on a disturbed machine/)
      expect(said).toMatch(
        /inconclusive: two servers: slow vs default: (?:vitest-llm-bench-sim options: [^:]+: )?ttftMs p50/,
      )
      return
    }
    expect(failure.name).toBe('LlmBenchAssertionError')
    expect(failure.message).toMatch(
      /^two servers: side by side, \d pairs \(.*\)\n {2}- slow vs default: (?:vitest-llm-bench-sim options: speedFactor [\d.]+ -> [\d.]+: )?ttftMs p50 [\d.]+x \[[\d.]+, [\d.]+\], beyond \+10 % on every pair together \(\d pairs\)/,
    )
  }, 60_000)
})
