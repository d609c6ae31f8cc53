// Two servers side by side in one job: every variant judged against the control on the ratios of
// counterbalanced pairs, both simulators up and loaded in turn (docs/ab.md). The variant models a
// build 20 % faster; give it `speedFactor: 1.3` to see a regression fail.
// Not in the quick examples: LLM_BENCH_SHOWCASE=1 npx vitest bench benches/showcase
import { bench, simulator } from 'vitest-llm-bench'

bench.llm.compare('a faster build against the current one', {
  variants: {
    current: simulator({ seed: 6 }),
    faster: simulator({ seed: 6, speedFactor: 0.8 }),
  },
  control: 'current',
  workload: { kind: 'synthetic', inputTokens: { mean: 128 }, outputTokens: { mean: 32 } },
  load: { concurrency: 4, requests: 48 },
  // At most 6 pairs (arms together allow 10 by default): a showcase, not a gate that must decide.
  pairs: { max: 6 },
})
