import { runBenchmark } from '../../src/core/run.ts'
import { startSimulator } from '../../src/sim/index.ts'
const sim = await startSimulator({ seed: 7, recordSchedule: true, prefillBaseMs: 5, decodeBaseMs: 2 })
try {
  const r = await runBenchmark({ target: { baseUrl: sim.url }, workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 16 } }, load: { concurrency: 4, requests: 20 }, seed: 1, recordRequests: true }, { skipGpu: true })
  console.log(JSON.stringify({ rt: r.environment.runtime, counts: r.counts, errors: r.errors, ttft: r.metrics.ttftMs.p50, out: r.metrics.outputTokens.mean, warnings: r.warnings }))
} finally { await sim.close() }
