/**
 * Options are parsed once: every option group's parser is a spy (the real function, counted), and a
 * bench with every group set runs through the runner-neutral harness (`bench.llm` outside Vitest)
 * against the simulator: recorded from 2 trials, then compared over up to 2 trials. Each group
 * must be parsed exactly once per bench, at collection, however many trials follow: the simulator's options too,
 * though each trial starts a simulator of its own.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest'

type Module = Record<string, unknown>
const spied = async (importOriginal: () => Promise<Module>, ...names: string[]): Promise<Module> => {
  const actual = await importOriginal()
  const spies: Module = {}
  for (const name of names) spies[name] = vi.fn(actual[name] as (...args: unknown[]) => unknown)
  return { ...actual, ...spies }
}

vi.mock('../../src/core/load/validate-load.ts', (io) => spied(io, 'validateLoad'))
vi.mock('../../src/core/load/run-warmup.ts', (io) => spied(io, 'validateWarmupOptions'))
vi.mock('../../src/core/metrics/goodput.ts', (io) => spied(io, 'resolveGoodputLimits'))
vi.mock('../../src/core/metrics/cost.ts', (io) => spied(io, 'validateCostOptions'))
vi.mock('../../src/core/server/metrics/server-metrics-options.ts', (io) => spied(io, 'validateServerMetricsOptions'))
vi.mock('../../src/core/slo/slo-options.ts', (io) => spied(io, 'validateSloOptions'))
vi.mock('../../src/core/verdict/regression-policy.ts', (io) => spied(io, 'parseRegressionPolicy'))
vi.mock('../../src/core/workers/split-load.ts', (io) => spied(io, 'resolveWorkers'))
vi.mock('../../src/bench/bench-trials.ts', (io) => spied(io, 'resolveTrials'))
vi.mock('../../src/core/plan/run-plan.ts', (io) => spied(io, 'planRun'))
vi.mock('../../src/sim/options.ts', (io) => spied(io, 'resolveSimulatorOptions'))
vi.mock('../../src/core/plan/resolve-benchmark.ts', (io) => spied(io, 'checkTarget', 'resolveBenchmark'))

const { validateLoad } = await import('../../src/core/load/validate-load.ts')
const { validateWarmupOptions } = await import('../../src/core/load/run-warmup.ts')
const { resolveGoodputLimits } = await import('../../src/core/metrics/goodput.ts')
const { validateCostOptions } = await import('../../src/core/metrics/cost.ts')
const { validateServerMetricsOptions } = await import('../../src/core/server/metrics/server-metrics-options.ts')
const { validateSloOptions } = await import('../../src/core/slo/slo-options.ts')
const { parseRegressionPolicy } = await import('../../src/core/verdict/regression-policy.ts')
const { resolveWorkers } = await import('../../src/core/workers/split-load.ts')
const { resolveTrials } = await import('../../src/bench/bench-trials.ts')
const { planRun } = await import('../../src/core/plan/run-plan.ts')
const { resolveSimulatorOptions } = await import('../../src/sim/options.ts')
const { checkTarget, resolveBenchmark } = await import('../../src/core/plan/resolve-benchmark.ts')
const { createStandaloneBenchLlm } = await import('../../src/bench/standalone-bench-llm.ts')
const { simulator } = await import('../../src/bench/bench-options.ts')
const { runBenchmark } = await import('../../src/core/run.ts')
const { startSimulator } = await import('../../src/sim/index.ts')
const { runSweep } = await import('../../src/core/sweep/index.ts')

const parsers = {
  validateLoad,
  validateWarmupOptions,
  resolveGoodputLimits,
  validateCostOptions,
  validateServerMetricsOptions,
  validateSloOptions,
  parseRegressionPolicy,
  resolveWorkers,
  resolveTrials,
  planRun,
  resolveSimulatorOptions,
}
const counts = (): Record<string, number> =>
  Object.fromEntries(Object.entries(parsers).map(([name, fn]) => [name, vi.mocked(fn).mock.calls.length]))
const once = Object.fromEntries(Object.keys(parsers).map((name) => [name, 1]))

afterEach(() => {
  vi.clearAllMocks()
})

describe('each option group is parsed once', () => {
  test('per bench, at collection: recorded from 2 trials, then compared over up to 2 trials', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-parse-once-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const registered: Array<() => Promise<void>> = []
    const llm = createStandaloneBenchLlm((_mode, _name, fn) => registered.push(fn), {
      file: join(dir, 'parse.bench.ts'),
      env: {},
      log: () => {},
    })
    const bench = () =>
      llm('parsed once', {
        server: simulator({ seed: 5, prefillBaseMs: 2, decodeBaseMs: 1 }),
        target: { api: 'chat' },
        workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
        load: { concurrency: 2, requests: 12 },
        warmup: { requests: 2 },
        seed: 3,
        goodput: { ttftMs: 1000 },
        cost: { pricePerGpuHour: 2 },
        serverMetrics: { intervalMs: 200 },
        slo: { ttftMs: { p99: 10_000 } },
        baseline: { e2eMs: { p50: '+50%' } },
        trials: { record: 2, max: 2 },
      })

    bench()
    expect(counts()).toEqual(once)
    await registered[0]?.()
    // Two trials ran (the baseline records 2): nothing was parsed again.
    expect(counts()).toEqual(once)
    // The target is known once the simulator runs, and checked once per trial (a restarted server may have another port).
    // On a disturbed machine a recording measures a disturbed trial again, twice at most.
    expect(vi.mocked(checkTarget).mock.calls.length).toBeGreaterThanOrEqual(2)
    expect(vi.mocked(checkTarget).mock.calls.length).toBeLessThanOrEqual(4)
    expect(vi.mocked(resolveBenchmark)).not.toHaveBeenCalled()

    vi.clearAllMocks()
    bench()
    await registered[1]?.()
    expect(counts()).toEqual(once)
  })

  test('per runBenchmark call', async () => {
    const sim = await startSimulator({ seed: 5, prefillBaseMs: 2, decodeBaseMs: 1 })
    onTestFinished(() => sim.close())
    await runBenchmark(
      {
        target: { baseUrl: sim.url },
        workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
        load: { rate: 50, requests: 10 },
        warmup: { requests: 1 },
        goodput: { e2eMs: 1000 },
        cost: { pricePerGpuHour: 2 },
      },
      { skipGpu: true },
    )
    expect(vi.mocked(resolveBenchmark).mock.calls.length).toBe(1)
    const { validateSloOptions: _slo, parseRegressionPolicy: _policy, resolveTrials: _trials, ...run } = counts()
    expect(run).toEqual({
      validateLoad: 1,
      validateWarmupOptions: 1,
      resolveGoodputLimits: 1,
      validateCostOptions: 1,
      validateServerMetricsOptions: 1,
      resolveWorkers: 1,
      planRun: 1,
      // startSimulator's own.
      resolveSimulatorOptions: 1,
    })
  })

  test('per sweep point: 3 points, each planned once (the shared load is also checked once before the first point)', async () => {
    const sim = await startSimulator({ seed: 5, prefillBaseMs: 2, decodeBaseMs: 1 })
    onTestFinished(() => sim.close())
    const swept = await runSweep(
      {
        target: { baseUrl: sim.url },
        workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
        over: { concurrency: [1, 2, 4] },
        load: { requests: 8 },
        warmup: { requests: 1 },
        goodput: { e2eMs: 1000 },
        cost: { pricePerGpuHour: 2 },
      },
      { skipGpu: true },
    )
    expect(swept.points).toHaveLength(3)
    const { validateSloOptions: _slo, parseRegressionPolicy: _policy, resolveTrials: _trials, ...run } = counts()
    expect(run).toEqual({
      validateLoad: 4,
      validateWarmupOptions: 3,
      resolveGoodputLimits: 3,
      validateCostOptions: 3,
      validateServerMetricsOptions: 3,
      resolveWorkers: 3,
      planRun: 3,
      resolveSimulatorOptions: 1,
    })
  })
})
