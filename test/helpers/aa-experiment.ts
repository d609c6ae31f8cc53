// The A/A experiment of the regression verdict against the built-in simulator (perf/aa-verdicts.ts
// prints it at full size; test/integration/aa-verdicts.test.ts runs a small one).
import { baselineEntryFrom } from '../../src/core/baseline/index.ts'
import { type RegressionPolicy, type Verdict } from '../../src/core/verdict/index.ts'
import { compare } from './compare-given.ts'
import { runBenchmark } from '../../src/core/run.ts'
import type { BenchmarkOptions } from '../../src/core/contract/options.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { startSimulator, type SimulatorOptions } from '../../src/sim/index.ts'

/** Settings of one A/A experiment. */
export interface AaExperimentOptions {
  /** Runs per arm (A/A and slowed). */
  runs: number
  /** Measured requests per run. */
  requests: number
  /** Speed factor of the slowed arm (1.3 = every modeled delay 30 % longer). */
  slowdown: number
  /**
   * Attempts per run when the client could not keep up (`result.client.keptUp: false`, e.g. the
   * process was starved of CPU on a loaded machine): such a verdict is inconclusive by design, so
   * the run is measured again, as a user would re-run it. Default 5.
   */
  attempts?: number
  /** Called after each run (progress output). */
  onRun?: (arm: 'aa' | 'slow', index: number, verdict: Verdict, attempts: number) => void
}

/** Outcome of {@link runAaExperiment}. */
export interface AaExperimentResult {
  policy: RegressionPolicy
  /** Completed requests behind the baseline's TTFT distribution. */
  baselineSamples: number
  aa: Verdict[]
  slow: Verdict[]
  /** Runs measured again because the client could not keep up, per arm. */
  repeated: { aa: number; slow: number }
}

/**
 * A small, fast simulator whose TTFT is dominated by the prefill cost (20 ms fixed), which the
 * speed factor scales like every other delay; decode steps are short so each run takes ~1 s.
 */
export const AA_SIMULATOR: SimulatorOptions = {
  seed: 7,
  prefillBaseMs: 20,
  prefillMsPerToken: 0.02,
  decodeBaseMs: 2,
  decodeMsPerSequence: 0.1,
  maxRunningSequences: 16,
}

/**
 * Gate on TTFT p50, +10 %: the median needs few samples for a tight interval (6 at 95 %), so a
 * 30 % slowdown is far outside the interval while an A/A difference stays inside it.
 */
export const AA_POLICY: RegressionPolicy = { ttftMs: { p50: '+10%' } }

function benchmarkOptions(baseUrl: string, requests: number): BenchmarkOptions {
  return {
    target: { baseUrl },
    workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 4 } },
    // One stream: every request gets a prefill step of its own, so TTFT is one prefill plus one
    // decode step (~23 ms at speed 1), unimodal. Two or more streams synchronise and make it bimodal.
    load: { concurrency: 1, requests },
    warmup: { requests: 4 },
    seed: 11,
  }
}

async function measureOnce(baseUrl: string, requests: number): Promise<BenchmarkResult> {
  const result = await runBenchmark(benchmarkOptions(baseUrl, requests), {
    skipGpu: true,
    server: { name: 'vitest-llm-bench-sim' },
  })
  if (result.counts.completed !== requests) {
    throw new Error(
      `expected ${requests} completed requests, got ${result.counts.completed} (${JSON.stringify(result.errors)})`,
    )
  }
  return result
}

/** Measures until the client kept up, at most `attempts` times; returns the last result. */
async function measure(
  baseUrl: string,
  requests: number,
  attempts: number,
): Promise<{ result: BenchmarkResult; attempts: number }> {
  let result = await measureOnce(baseUrl, requests)
  let attempt = 1
  while (!result.client.keptUp && attempt < attempts) {
    result = await measureOnce(baseUrl, requests)
    attempt++
  }
  return { result, attempts: attempt }
}

/** Records one baseline, then runs `runs` A/A comparisons and `runs` slowed ones against it. */
export async function runAaExperiment(options: AaExperimentOptions): Promise<AaExperimentResult> {
  const attempts = options.attempts ?? 5
  const sim = await startSimulator(AA_SIMULATOR)
  try {
    const baselineRun = await measure(sim.url, options.requests, attempts)
    const baseline = baselineEntryFrom(baselineRun.result)
    const verdicts = { aa: [] as Verdict[], slow: [] as Verdict[] }
    const repeated = { aa: 0, slow: 0 }
    for (const arm of ['aa', 'slow'] as const) {
      sim.setSpeedFactor(arm === 'aa' ? 1 : options.slowdown)
      for (let i = 0; i < options.runs; i++) {
        const run = await measure(sim.url, options.requests, attempts)
        const verdict = compare(baseline, run.result, AA_POLICY)
        verdicts[arm].push(verdict)
        repeated[arm] += run.attempts - 1
        options.onRun?.(arm, i, verdict, run.attempts)
      }
    }
    return { policy: AA_POLICY, baselineSamples: baselineRun.result.metrics.ttftMs.count, ...verdicts, repeated }
  } finally {
    await sim.close()
  }
}

/** `fail` count, `pass` count and `inconclusive` count of a list of verdicts. */
export function tally(verdicts: readonly Verdict[]): { fail: number; pass: number; inconclusive: number } {
  return {
    fail: verdicts.filter((v) => v.status === 'fail').length,
    pass: verdicts.filter((v) => v.status === 'pass').length,
    inconclusive: verdicts.filter((v) => v.status === 'inconclusive').length,
  }
}
