// The /v1/completions endpoint, against a simulator of this bench's own with a smaller batch.
import { bench, simulator } from 'vitest-llm-bench'

bench.llm('completions beyond the batch size', {
  server: simulator({ maxRunningSequences: 8, seed: 3 }),
  target: { api: 'completions' },
  workload: { kind: 'synthetic', inputTokens: { mean: 512 }, outputTokens: { mean: 48 } },
  load: { concurrency: 16, requests: 96 },
  warmup: { requests: 8 },
  seed: 3,
  cost: { pricePerGpuHour: 2.5, gpus: 1 },
  slo: { outputTokensPerSec: { min: 100 } },
  baseline: { ttftMs: { p50: '+15%' }, outputTokensPerSec: '-10%' },
})
