// Runs out of the box: with no server configured, the plugin starts the built-in simulator.
import { describe } from 'vitest'
import { bench } from 'vitest-llm-bench'

describe('chat', () => {
  bench.llm('steady closed loop, 8 streams', {
    workload: { kind: 'synthetic', inputTokens: { mean: 256, stddev: 32 }, outputTokens: { mean: 32 } },
    load: { concurrency: 8, requests: 120 },
    warmup: { requests: 8 },
    seed: 1,
    slo: { ttftMs: { p99: 1000 }, errors: { maxRate: 0 } },
    baseline: { ttftMs: { p50: '+15%' }, tpotMs: { p50: '+10%' }, outputTokensPerSec: '-10%' },
  })

  bench.llm('poisson arrivals, 20 req/s', {
    workload: { kind: 'synthetic', inputTokens: { mean: 128 }, outputTokens: { mean: 32 } },
    load: { rate: 20, arrival: 'poisson', requests: 100 },
    warmup: { requests: 4 },
    seed: 2,
    goodput: { ttftMs: 200, tpotMs: 50 },
    slo: { tpotMs: { p99: 200 } },
    baseline: { tpotMs: { p50: '+10%' } },
  })
})
