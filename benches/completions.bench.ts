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
  // Throughput here moves in waves of 8 sequences: its 95 % interval inside one 10 s run is about
  // ±12 % (measured: [0.890, 1.123] on an unchanged rerun, inconclusive at -10 %), so the gate is
  // -15 %, which a rerun can decide.
  baseline: { ttftMs: { p50: '+15%' }, outputTokensPerSec: '-15%' },
})
