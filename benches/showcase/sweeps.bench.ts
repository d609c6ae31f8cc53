// Capacity search and an MLPerf scenario against simulators whose capacity is known (see
// simulatorCapacity): each block records its whole curve as one baseline entry. Not in the quick
// examples (32-42 s a run on a busy 2-core machine): LLM_BENCH_SHOWCASE=1 npx vitest bench benches/showcase
import { describe } from 'vitest'
import { bench, simulator } from 'vitest-llm-bench'

// 64 sequences per batch, 64 ms steps, 8-token outputs: saturates at 100 requests/s.
const batchOf64 = simulator({
  maxRunningSequences: 64,
  prefillBaseMs: 2,
  prefillMsPerToken: 0,
  decodeBaseMs: 16,
  decodeMsPerSequence: 0.75,
  seed: 1,
})

describe('sweeps', () => {
  bench.llm.sweep('highest Poisson rate with p90 TTFT under 200 ms', {
    server: batchOf64,
    workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },
    capacity: { limits: { ttftMs: 200 }, percentile: 0.9, rate: { min: 20, max: 160, start: 80 }, precision: 0.1 },
    load: { durationMs: 3000 },
    warmup: { requests: 8 },
    seed: 11,
    // Wide: a busy machine starves the in-process simulator of CPU now and then.
    expect: { capacity: { atLeast: 50, minVsBaseline: 0.7 } },
  })

  bench.llm.sweep('MLPerf SingleStream', {
    server: simulator({ prefillBaseMs: 2, decodeBaseMs: 2, decodeMsPerSequence: 0, seed: 1 }),
    workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 16 } },
    // With 64 queries LoadGen's estimate is the slowest one; 256 let it discard the 13 slowest.
    scenario: { name: 'SingleStream', requests: 256 },
    expect: { scenarioMetric: { maxVsBaseline: 2 } },
  })
})
