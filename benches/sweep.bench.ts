// A concurrency curve against a simulator whose capacity is known (see simulatorCapacity): the sweep
// records its whole curve as one baseline entry. Capacity search and MLPerf scenarios:
// showcase/sweeps.bench.ts (LLM_BENCH_SHOWCASE=1 npx vitest bench benches/showcase).
import { bench, simulator } from 'vitest-llm-bench'

// 8 sequences per batch, 40 ms decode steps: the throughput plateau (190 output tokens/s) starts at concurrency 8.
const batchOf8 = simulator({
  maxRunningSequences: 8,
  prefillBaseMs: 4,
  prefillMsPerToken: 0,
  decodeBaseMs: 24,
  decodeMsPerSequence: 2,
  seed: 1,
})

bench.llm.sweep('concurrency curve to the knee', {
  server: batchOf8,
  workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 16 } },
  over: { concurrency: [1, 4, 8, 16] },
  load: { durationMs: 600 },
  warmup: { requests: 8, durationMs: 100 },
  seed: 3,
  saturation: { minGain: 0.15 },
  expect: {
    throughput: [{ at: 16, minVsBaseline: 0.8 }],
    knee: { notEarlierThanBaseline: true },
  },
})
