import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  test,
  type RunnerTestCase,
  type RunnerTestSuite,
} from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { bench, DEFAULT_BENCH_TIMEOUT_MS } from '../../src/vitest/bench-llm.ts'
import { benchNameOf } from '../../src/vitest/bench-name.ts'
import { simulator } from '../../src/bench/bench-options.ts'
import { BENCH_LLM_OPTION_KEYS, planBench, validateBenchLlmOptions } from '../../src/bench/plan-bench.ts'

const workload = { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 4 } } as const
const load = { concurrency: 1, requests: 5 }

// Registered at collection like any bench file does; all skipped, so no server starts.
describe('registered benches', () => {
  bench.llm.skip('skipped with default timeout', { workload, load })
  bench.llm.skip('skipped with own timeout', { workload, load, timeoutMs: 1234 })
  bench.llm.skipIf(true)('skipIf true', { workload, load })
  bench.llm.runIf(false)('runIf false', { workload, load })
  describe('nested group', () => {
    bench.llm.skip('deep bench', { workload, load })
  })
})

// A bench that really runs (5 requests against a fast simulator of its own, no baseline file),
// inside a describe whose hooks must run around it as around any test.
describe('a bench inside a describe with hooks', () => {
  const events: string[] = []
  beforeAll(() => {
    events.push('beforeAll')
  })
  beforeEach(() => {
    events.push('beforeEach')
  })
  afterEach(({ task }) => {
    events.push(`afterEach ${task.name}: ${task.meta.llmBench?.result.counts.completed ?? 'no result'}`)
  })
  bench.llm('runs with hooks', {
    server: simulator({ prefillBaseMs: 2, decodeBaseMs: 1 }),
    workload,
    load,
    baseline: false,
    slo: { errors: { maxRate: 0 } },
    timeoutMs: 60_000,
  })
  test('the hooks ran around the bench and its result reached the task meta', () => {
    expect(events).toEqual(['beforeAll', 'beforeEach', 'afterEach runs with hooks: 5', 'beforeEach'])
  })
})

function findTest(suite: RunnerTestSuite | undefined, name: string): RunnerTestCase {
  const stack = [...(suite?.tasks ?? [])]
  while (stack.length > 0) {
    const task = stack.shift()
    if (task?.type === 'test' && task.name === name) return task
    if (task?.type === 'suite') stack.push(...task.tasks)
  }
  throw new Error(`no test named '${name}' was registered`)
}

describe('bench.llm registration', () => {
  test('.skip registers a skipped test with the default timeout', ({ task }) => {
    const registered = findTest(task.file, 'skipped with default timeout')
    expect(registered.mode).toBe('skip')
    // Per trial: up to 5 recorded trials and 2 re-measured ones; Vitest's own a minute later.
    expect(registered.timeout).toBe(DEFAULT_BENCH_TIMEOUT_MS * 7 + 60_000)
    expect(DEFAULT_BENCH_TIMEOUT_MS).toBe(600_000)
  })

  test('timeoutMs becomes the test timeout', ({ task }) => {
    expect(findTest(task.file, 'skipped with own timeout').timeout).toBe(1234 * 7 + 60_000)
  })

  test('skipIf(true) and runIf(false) skip; their names stay registered (baseline entries are kept)', ({ task }) => {
    expect(findTest(task.file, 'skipIf true').mode).toBe('skip')
    expect(findTest(task.file, 'runIf false').mode).toBe('skip')
  })

  test('the variants exist with the documented names', () => {
    expect(typeof bench.llm).toBe('function')
    expect(typeof bench.llm.skip).toBe('function')
    expect(typeof bench.llm.only).toBe('function')
    expect(typeof bench.llm.skipIf(false)).toBe('function')
    expect(typeof bench.llm.runIf(true)).toBe('function')
  })
})

describe('baseline key (full name with describe path)', () => {
  test('joins the describe path and the name with " > "', ({ task }) => {
    const deep = findTest(task.file, 'deep bench')
    expect(benchNameOf(deep)).toBe('registered benches > nested group > deep bench')
    expect(benchNameOf(task)).toBe(
      'baseline key (full name with describe path) > joins the describe path and the name with " > "',
    )
  })

  test('a bench at the top of a file is keyed by its name alone', () => {
    const file = { name: 'x.bench.ts', type: 'suite' } as unknown as RunnerTestCase['file']
    expect(benchNameOf({ name: 'top', suite: file, file })).toBe('top')
  })
})

describe('early option validation (at registration, before any server starts)', () => {
  let requests = 0
  let server: Server
  let baseUrl = ''
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++
      res.statusCode = 500
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  test('a misspelt top-level option throws OptionsError with a suggestion, and nothing is sent', () => {
    const call = () => bench.llm('typo', { target: { baseUrl }, workload, laod: load } as never)
    expect(call).toThrow(OptionsError)
    expect(call).toThrow(/`laod`.*Did you mean `load`\?/)
    expect(requests).toBe(0)
  })

  test('an unknown load option, a bad SLO, a bad tolerance and a bad timeout are named', () => {
    expect(() => bench.llm('x', { workload, load: { concurency: 4, requests: 5 } } as never)).toThrow(
      /load\.concurency/,
    )
    expect(() => bench.llm('x', { workload, load, slo: { ttftMs: { p98: 100 } } } as never)).toThrow(/slo\.ttftMs\.p98/)
    expect(() => bench.llm('x', { workload, load, baseline: { ttftMs: { p99: '10%' } } } as never)).toThrow(
      /baseline\.ttftMs\.p99/,
    )
    expect(() => bench.llm('x', { workload, load, baseline: { outputTokensPerSec: '+5%' } } as never)).toThrow(
      /wrong sign/,
    )
    expect(() => bench.llm('x', { workload, load, timeoutMs: 0 })).toThrow(/timeoutMs/)
    expect(() => bench.llm('x', { workload, load, server: simulator({ speedFactor: -1 }) })).toThrow(/speedFactor/)
    expect(() => bench.llm('x', { workload, load, server: { kind: 'vllm' } } as never)).toThrow(/`server`/)
    expect(() => bench.llm('', { workload, load })).toThrow(/name/)
    expect(() => bench.llm('x', { load } as never)).toThrow(/`workload`/)
    expect(requests).toBe(0)
  })

  test('valid options pass, including baseline: false and a partial target', () => {
    expect(() =>
      validateBenchLlmOptions('ok', {
        workload,
        load,
        baseline: false,
        target: { api: 'completions' },
        slo: { errors: { maxRate: 0 } },
      }),
    ).not.toThrow()
    expect(() =>
      validateBenchLlmOptions('ok', { workload, load, server: simulator({ speedFactor: 1.3 }), timeoutMs: 5000 }),
    ).not.toThrow()
  })

  test('every documented option key is accepted', () => {
    expect([...BENCH_LLM_OPTION_KEYS].sort()).toEqual(
      [
        'baseline',
        'cost',
        'goodput',
        'load',
        'recordRequests',
        'resetPrefixCache',
        'seed',
        'server',
        'serverMetrics',
        'slo',
        'soak',
        'stopWhen',
        'target',
        'timeoutMs',
        'trials',
        'warmup',
        'workers',
        'workload',
      ].sort(),
    )
  })

  test('a soak runs once, with a time limit of its duration, drain and recovery; trials are refused', () => {
    const options = {
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
      load: { concurrency: 1 },
      soak: { durationMs: 3_600_000 },
    }
    const plan = planBench('soak', options)
    expect(plan.trials).toMatchObject({ record: 1, max: 1 })
    expect(plan.run.load.durationMs).toBe(3_600_000)
    // An hour, the drain's 30 s, the recovery's 60 s and 10 minutes for start-up, per trial.
    expect(plan.limit.perTrialMs).toBe(3_600_000 + 30_000 + 60_000 + 600_000)
    expect(() => validateBenchLlmOptions('soak', { ...options, trials: { record: 3 } })).toThrow(
      /`trials`: a soak runs once: its windows are its repeats/,
    )
  })

  test('trials: counts from 1 to 20, a boolean restartServer and a known onInconclusive, each refused with what to give', () => {
    const options = {
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
      load: { concurrency: 1, requests: 1 },
    }
    expect(() => validateBenchLlmOptions('t', { ...options, trials: { record: 0 } })).toThrow(
      /`trials.record`: must be a whole number from 1 to 20, got 0/,
    )
    expect(() => validateBenchLlmOptions('t', { ...options, trials: { max: 2.5 } })).toThrow(
      /`trials.max`: must be a whole number/,
    )
    expect(() => validateBenchLlmOptions('t', { ...options, trials: { restartServer: 'yes' } })).toThrow(
      /`trials.restartServer`: must be true, false or 'record'/,
    )
    expect(() => validateBenchLlmOptions('t', { ...options, trials: { onInconclusive: 'error' } })).toThrow(
      /`trials.onInconclusive`: must be 'warn', 'fail' or 'pass'/,
    )
    expect(() => validateBenchLlmOptions('t', { ...options, trials: { recrd: 3 } })).toThrow(
      /`trials.recrd`: is not an option of `trials`. Did you mean `trials.record`\?/,
    )
    expect(() =>
      validateBenchLlmOptions('t', {
        ...options,
        trials: { record: 5, max: 1, restartServer: true, onInconclusive: 'fail' },
      }),
    ).not.toThrow()
  })

  test('resetPrefixCache must be a boolean', () => {
    const options = {
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 } },
      load: { concurrency: 1, requests: 1 },
    }
    expect(() => validateBenchLlmOptions('reset', { ...options, resetPrefixCache: 'yes' })).toThrow(
      /`resetPrefixCache`: must be true or false, got "yes"\. Use `resetPrefixCache: true`/,
    )
    expect(() => validateBenchLlmOptions('reset', { ...options, resetPrefixCache: true })).not.toThrow()
  })
})
