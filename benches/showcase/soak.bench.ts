// A soak, judged by its trend per hour, with an hour compressed into 20 s (180x) as
// test/integration/soak-simulator.test.ts does: a limit of 5 %/h on the hour is '+900%/h' here.
// Give the simulator `slowdownPerHour: 54` (a 30 %/h leak, compressed the same way: 0.3 x 180) to see it fail.
// Not in the quick examples: LLM_BENCH_SHOWCASE=1 npx vitest bench benches/showcase
import { bench, simulator } from 'vitest-llm-bench'

const compression = 180

bench.llm('an hour at 4 in flight, compressed', {
  server: simulator({ seed: 5 }),
  workload: { kind: 'synthetic', inputTokens: { mean: 128 }, outputTokens: { mean: 32 } },
  load: { concurrency: 4 }, // no requests: a soak runs for its duration
  soak: {
    durationMs: 3_600_000 / compression,
    windowMs: 2_000,
    expect: {
      e2eMs: { p50: `+${5 * compression}%/h` },
      outputTokensPerSec: `-${5 * compression}%/h`,
      errors: { maxRate: 0.001 },
    },
  },
})
