/**
 * How often a soak finds a trend that is not there: unchanged simulator soaks (the settings of
 * test/integration/soak-simulator.test.ts: 20 s, 2 s windows, concurrency 4), and for each the share
 * of figures whose 95 % interval excludes 0 (a trend of any size) and the checks that failed their
 * limit (5 %/h on an hour compressed into 20 s). Then the same with a leak, for the detection rate.
 *
 *   npm exec -- node perf/soak-false-trend.ts [--runs 10] [--leak-per-hour 30]
 */
import { parseArgs } from 'node:util'
import type { BenchmarkResult } from '../src/core/contract/types.ts'
import { runBenchmark } from '../src/core/run.ts'
import { startSimulator } from '../src/sim/index.ts'

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '10' }, 'leak-per-hour': { type: 'string', default: '30' } },
})
const runs = Number(values.runs)
const COMPRESSION = 180
process.env.LLM_BENCH_NVIDIA_SMI = '/nonexistent/nvidia-smi'

async function soak(slowdownPerHour: number, seed: number): Promise<BenchmarkResult> {
  const sim = await startSimulator({ seed, slowdownPerHour })
  try {
    return await runBenchmark({
      target: { baseUrl: sim.url },
      workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 16 } },
      load: { concurrency: 4 },
      serverMetrics: false,
      seed,
      soak: {
        durationMs: 20_000,
        windowMs: 2_000,
        expect: {
          ttftMs: { p50: `+${5 * COMPRESSION}%/h`, p99: `+${5 * COMPRESSION}%/h` },
          e2eMs: { p50: `+${5 * COMPRESSION}%/h` },
          outputTokensPerSec: `-${5 * COMPRESSION}%/h`,
        },
      },
    })
  } finally {
    await sim.close()
  }
}

for (const [label, leak] of [
  ['unchanged', 0],
  [`leak ${values['leak-per-hour']} %/h`, (Number(values['leak-per-hour']) * COMPRESSION) / 100],
] as const) {
  let trends = 0
  let excludingZero = 0
  const verdicts: Record<string, number> = { pass: 0, fail: 0, inconclusive: 0 }
  for (let run = 0; run < runs; run++) {
    const result = await soak(leak, run + 1)
    const s = result.soak!
    for (const t of s.trends) {
      if (t.ciLow === null || t.ciHigh === null) continue
      trends++
      if (t.ciLow > 0 || t.ciHigh < 0) excludingZero++
    }
    for (const c of s.checks) verdicts[c.verdict]!++
    const e2e = s.trends.find((t) => t.figure === 'e2eMs.p50')
    console.log(
      `${label} run ${run + 1}: ${s.verdict}; E2E p50 ${e2e?.slopePerHour.toFixed(0)} %/h ` +
        `[${e2e?.ciLow?.toFixed(0)}, ${e2e?.ciHigh?.toFixed(0)}]; checks ${s.checks.map((c) => c.verdict).join(' ')}`,
    )
  }
  const checks = verdicts.pass! + verdicts.fail! + verdicts.inconclusive!
  console.log(
    `${label}: ${runs} runs; intervals excluding 0: ${excludingZero} of ${trends} (${((100 * excludingZero) / trends).toFixed(1)} %); ` +
      `checks: ${verdicts.fail} fail, ${verdicts.inconclusive} inconclusive, ${verdicts.pass} pass of ${checks}`,
  )
}
