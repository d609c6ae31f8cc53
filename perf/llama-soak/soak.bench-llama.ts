// The bench of perf/llama-soak.ts: a soak on a real llama-server (built by scripts/llama/build.ts).
// Not named *.bench.ts: a plain `npx vitest bench` does not pick it up.
import { llamaCpp } from '../../src/core/server/index.ts'
import type { SoakRateLimit } from '../../src/core/contract/types.ts'
import { bench } from '../../src/vitest/index.ts'

const limit = (process.env.LLAMA_SOAK_LIMIT ?? '+100%/h') as SoakRateLimit

bench.llm('llama.cpp soak', {
  server: llamaCpp({
    bin: process.env.LLAMA_SOAK_SERVER ?? 'llama-server',
    modelPath: process.env.LLAMA_SOAK_MODEL ?? 'missing.gguf',
    args: ['-t', '2', '-np', '2', '-c', '2048', ...(process.env.LLAMA_SOAK_ARGS ?? '').split(' ').filter(Boolean)],
  }),
  workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 }, ignoreEos: true },
  load: { concurrency: 2 },
  warmup: { requests: 8 },
  seed: 1,
  soak: {
    durationMs: Number(process.env.LLAMA_SOAK_DURATION_MS ?? 600_000),
    windowMs: Number(process.env.LLAMA_SOAK_WINDOW_MS ?? 30_000),
    expect: { ttftMs: { p50: limit }, e2eMs: { p50: limit }, errors: { maxRate: 0.001 } },
    recovery: { withinMs: 30_000 },
  },
})
