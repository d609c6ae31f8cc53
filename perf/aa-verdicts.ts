// A/A check of the regression verdict against the built-in simulator: one baseline, then N runs
// of the same configuration (no run may fail), then N runs with every modeled delay 30 % slower
// (nearly all must fail). Prints both rates with their sample sizes. A run whose client could not
// keep up (CPU starvation on a loaded machine makes the verdict inconclusive by design) is
// measured again, up to 5 attempts, and the count of such repeats is printed.
// Run: npm exec -- node perf/aa-verdicts.ts   (AA_RUNS=20 AA_REQUESTS=60 AA_SLOWDOWN=1.3 to change)
import { realpathSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { baselineEntryFrom, compare, formatVerdict, type RegressionPolicy, type Verdict } from '../src/core/baseline/index.ts'
import { runBenchmark } from '../src/core/run.ts'
import type { BenchmarkOptions, BenchmarkResult } from '../src/core/types.ts'
import { startSimulator, type SimulatorOptions } from '../src/sim/index.ts'

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
  const result = await runBenchmark(benchmarkOptions(baseUrl, requests), { skipGpu: true, server: { name: 'vitest-llm-bench-sim' } })
  if (result.counts.completed !== requests) {
    throw new Error(`expected ${requests} completed requests, got ${result.counts.completed} (${JSON.stringify(result.errors)})`)
  }
  return result
}

/** Measures until the client kept up, at most `attempts` times; returns the last result. */
async function measure(baseUrl: string, requests: number, attempts: number): Promise<{ result: BenchmarkResult; attempts: number }> {
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

async function main(): Promise<void> {
  const runs = Number(process.env.AA_RUNS ?? 20)
  const requests = Number(process.env.AA_REQUESTS ?? 60)
  const slowdown = Number(process.env.AA_SLOWDOWN ?? 1.3)
  const started = performance.now()
  const outcome = await runAaExperiment({
    runs,
    requests,
    slowdown,
    onRun(arm, index, verdict, attempts) {
      const check = verdict.checks[0]
      const ratio = check?.ratio?.toFixed(3) ?? '-'
      const ci = check && check.ciLow !== null && check.ciHigh !== null ? `[${check.ciLow.toFixed(3)}, ${check.ciHigh.toFixed(3)}]` : '-'
      console.log(`${arm === 'aa' ? 'A/A ' : 'slow'} #${String(index + 1).padStart(2)}  ttftMs p50 ${check?.baseline.toFixed(2)} -> ${check?.current.toFixed(2)} ms  ratio ${ratio}  CI ${ci}  ${verdict.status}${attempts > 1 ? `  (attempt ${attempts}: the client could not keep up before)` : ''}${verdict.notes.length > 0 ? `  [${verdict.notes.join(' ')}]` : ''}`)
    },
  })
  const aa = tally(outcome.aa)
  const slow = tally(outcome.slow)
  const last = outcome.slow.at(-1)
  if (last) console.log(`\nLast slowed verdict:\n${formatVerdict(last)}`)
  console.log(`\npolicy ${JSON.stringify(outcome.policy)}; ${requests} measured requests per run (baseline n = ${outcome.baselineSamples}); simulator ${JSON.stringify(AA_SIMULATOR)}`)
  console.log(`A/A (speed 1):        ${aa.fail} fail of ${runs} runs (${aa.pass} pass, ${aa.inconclusive} inconclusive; ${outcome.repeated.aa} re-measured: client starved)`)
  console.log(`slowed (speed ${slowdown}):   ${slow.fail} fail of ${runs} runs (${slow.pass} pass, ${slow.inconclusive} inconclusive; ${outcome.repeated.slow} re-measured: client starved)`)
  console.log(`took ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores`)
  if (aa.fail > 0 || slow.fail < runs - 1) process.exitCode = 1
}

// Runs when executed as a script; the integration test imports runAaExperiment instead.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main()
}
