/**
 * One fixed, seeded load against the built-in simulator, run in whatever runtime starts this file,
 * printed as one JSON object on stdout. Run it under each runtime and compare the outputs
 * (test/runtimes/compare-runtimes.test.ts does):
 *
 *   npm exec -- node scripts/runtimes/compare.ts
 *   npx bun scripts/runtimes/compare.ts
 *   npx deno run -A scripts/runtimes/compare.ts
 *
 * What must be identical: counts, error kinds, token totals, the planned schedule and which request
 * got which lengths. What may differ within the runtimes' spread: every latency and throughput figure.
 */
import { planArrivals } from '../../src/core/load/index.ts'
import { resolveLoad } from '../../src/core/plan/index.ts'
import { runBenchmark } from '../../src/core/run.ts'
import { defaultHttpTransport, detectRuntime } from '../../src/core/platform/runtime.ts'
import type { BenchmarkOptions, LoadOptions } from '../../src/core/contract/options.ts'
import type { BenchmarkResult, MetricSummary } from '../../src/core/contract/result.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { startSimulator } from '../../src/sim/index.ts'
import type { SimulatorOptions } from '../../src/sim/index.ts'

/** Simulator timing: slow enough that latencies mean something, fast enough for a CI step. */
const SIM: SimulatorOptions = {
  seed: 11,
  prefillBaseMs: 10,
  prefillMsPerToken: 0.02,
  decodeBaseMs: 4,
  decodeMsPerSequence: 0.25,
  maxRunningSequences: 16,
}

interface Phase {
  name: string
  sim: SimulatorOptions
  options: Omit<BenchmarkOptions, 'target'>
}

const WORDS = [
  'the',
  'model',
  'serves',
  'tokens',
  'in',
  'batches',
  'under',
  'load',
  'while',
  'latency',
  'stays',
  'low',
  'café',
  '数据',
]

/**
 * Fixed prompts of 16 to 143 words. Synthetic prompts start with a per-run random salt (so a
 * server's prefix cache cannot serve a repeated run), which makes input lengths vary by a token or
 * two from run to run; fixed prompts keep input tokens comparable across runtimes.
 */
function fixedPrompts(count: number): string[] {
  let state = 0x2545f491
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state
  }
  return Array.from({ length: count }, (_, i) => {
    const words = 16 + (next() % 128)
    return [`prompt ${i}:`, ...Array.from({ length: words }, () => WORDS[next() % WORDS.length])].join(' ')
  })
}

const PHASES: Phase[] = [
  {
    // Open loop: the schedule is the seeded Poisson plan, independent of how fast responses come back.
    name: 'poisson',
    sim: SIM,
    options: {
      workload: { kind: 'prompts', prompts: fixedPrompts(64), maxTokens: 32 },
      load: { rate: 40, arrival: 'poisson', requests: 60 },
      warmup: { requests: 4 },
      seed: 5,
      recordRequests: true,
    },
  },
  {
    // One request at a time, so the simulator's seeded fault stream hits the same requests everywhere.
    // Synthetic (salted) prompts: output tokens compare exactly, input tokens only roughly.
    name: 'faults',
    sim: { ...SIM, faults: { httpErrorRate: 0.15, errorEventRate: 0.15 } },
    options: {
      workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 12 } },
      load: { concurrency: 1, requests: 24 },
      seed: 6,
      recordRequests: true,
    },
  },
]

const round = (value: number, digits = 3): number => Number(value.toFixed(digits))

function figures(d: MetricSummary): { p50: number; p90: number; p99: number; mean: number; count: number } {
  return { p50: round(d.p50), p90: round(d.p90), p99: round(d.p99), mean: round(d.mean), count: d.count }
}

function summarize(
  result: BenchmarkResult,
  plannedMs: number[],
  simulated: { requests: number; completionTokens: number; faults: Record<string, number> },
) {
  const records = [...(result.requests ?? [])].sort((a: RequestRecord, b: RequestRecord) => a.index - b.index)
  const completed = records.filter((r) => r.ok)
  const firstPlanned = records.find((r) => r.plannedAt !== undefined)?.plannedAt
  return {
    counts: result.counts,
    errors: result.errors.map((e) => ({ kind: e.kind, count: e.count })).sort((a, b) => a.kind.localeCompare(b.kind)),
    tokens: {
      output: completed.reduce((sum, r) => sum + r.outputTokens, 0),
      input: completed.reduce((sum, r) => sum + r.inputTokens, 0),
    },
    schedule: {
      /** Planned send offsets from the seeded plan, ms. */
      plannedMs,
      /** Offsets the load generator used (plannedAt - first plannedAt), ms; must match plannedMs less its first. */
      usedPlannedMs:
        firstPlanned === undefined
          ? []
          : records.map((r) => (r.plannedAt === undefined ? null : round(r.plannedAt - firstPlanned, 6))),
      /** Per request index: ok, input tokens, output tokens. */
      requests: records.map((r) => [r.index, r.ok, r.inputTokens, r.outputTokens] as const),
    },
    simulator: simulated,
    latency: {
      ttftMs: figures(result.metrics.ttftMs),
      tpotMs: figures(result.metrics.tpotMs),
      itlMs: figures(result.metrics.itlMs),
      e2eMs: figures(result.metrics.e2eMs),
    },
    throughput: {
      requestsPerSec: round(result.throughput.requestsPerSec),
      outputTokensPerSec: round(result.throughput.outputTokensPerSec),
    },
    durationMs: round(result.durationMs, 1),
    client: {
      keptUp: result.client.keptUp,
      eventLoopDelayP99Ms: result.client.eventLoopDelayMs ? round(result.client.eventLoopDelayMs.p99) : null,
      generatorLagP99Ms: result.client.generatorLagMs ? round(result.client.generatorLagMs.p99) : null,
      /** Cores other processes used during the run, and the hypervisor's steal share (the self-check's). */
      otherCores: result.client.selfCheck?.otherCores ?? null,
      stealShare: result.client.selfCheck?.stealShare ?? null,
    },
    streamed: result.streaming.streamed,
    /** The runtime the result's environment (and so a baseline's fingerprint) names. */
    environmentRuntime: result.environment.runtime,
  }
}

async function runPhase(phase: Phase) {
  const sim = await startSimulator({ ...phase.sim, recordSchedule: true })
  try {
    const result = await runBenchmark({ ...phase.options, target: { baseUrl: sim.url } }, { skipGpu: true })
    const warmup = phase.options.warmup?.requests ?? 0
    const measured = sim.schedule.slice(warmup)
    const faults: Record<string, number> = {}
    for (const entry of measured) if (entry.fault) faults[entry.fault] = (faults[entry.fault] ?? 0) + 1
    const load = resolveLoad(phase.options.load as LoadOptions)
    const plannedMs =
      load.rate !== undefined
        ? planArrivals(load, phase.options.seed ?? 0, load.requests ?? 0).map((t) => round(t, 6))
        : []
    return summarize(result, plannedMs, {
      requests: measured.length,
      completionTokens: measured.reduce((sum, e) => sum + e.completionTokens, 0),
      faults,
    })
  } finally {
    await sim.close()
  }
}

const output: Record<string, unknown> = { runtime: detectRuntime(), transport: defaultHttpTransport() }
for (const phase of PHASES) output[phase.name] = await runPhase(phase)
console.log(JSON.stringify(output))
