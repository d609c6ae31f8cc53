// stopWhen on a real llama-server (built by scripts/llama/build.ts): an open loop that ramps past what
// the server can serve, stopped once TTFT p50 has been above 500 ms for 3 s. Run with
//   LLAMA_SOAK_SERVER=… LLAMA_SOAK_MODEL=… LLAMA_BENCH_FILE=perf/llama-soak/stop.bench-llama.ts \
//     npx vitest bench --run --config perf/llama-bench.config.ts
// Not named *.bench.ts: a plain `npx vitest bench` does not pick it up.
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'

bench.llm('llama.cpp ramped past its capacity, stopped', {
  server: llamaCpp({
    bin: process.env.LLAMA_SOAK_SERVER ?? 'llama-server',
    modelPath: process.env.LLAMA_SOAK_MODEL ?? 'missing.gguf',
    args: ['-t', '2', '-np', '2', '-c', '2048'],
  }),
  workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 }, ignoreEos: true },
  load: { rate: 100, durationMs: 60_000, rampUp: { from: 2, durationMs: 60_000 } },
  warmup: { requests: 4 },
  seed: 1,
  stopWhen: { ttftMs: { p50: 500 }, forMs: 3000, expected: true },
  baseline: false,
})
