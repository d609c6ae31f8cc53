// The bench of perf/llama-stall.ts: a real llama-server (built by scripts/llama/build.ts), which the
// script stops with SIGSTOP mid-run. Not named *.bench.ts: a plain `npx vitest bench` does not pick it up.
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'

bench.llm('llama.cpp, stopped mid-run', {
  server: llamaCpp({
    bin: process.env.LLAMA_STALL_SERVER ?? 'llama-server',
    modelPath: process.env.LLAMA_STALL_MODEL ?? 'missing.gguf',
    args: ['-t', '2', '-np', '4', '-c', '4096'],
  }),
  target: { stallTimeoutMs: Number(process.env.LLAMA_STALL_TIMEOUT_MS ?? 15_000) },
  workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 }, ignoreEos: true },
  load: { concurrency: 4, requests: 2000 },
  warmup: { requests: 8 },
  seed: 1,
  baseline: false,
  timeoutMs: 600_000,
})
