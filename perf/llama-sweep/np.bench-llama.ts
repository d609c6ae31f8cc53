// The bench of perf/llama-sweep.ts: a sweep over llama-server's slots (-np), a server started per value, on
// the real llama-server (built by scripts/llama/build.ts). Not named *.bench.ts: `npx vitest bench` skips it.
import { describe } from 'vitest'
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'

describe('llama.cpp server configurations', () => {
  bench.llm.sweep('slots, -np 1 to 8 at 8 streams', {
    server: llamaCpp({
      bin: process.env.LLAMA_SWEEP_SERVER ?? 'llama-server',
      modelPath: process.env.LLAMA_SWEEP_MODEL ?? 'missing.gguf',
      args: ['-t', '2', '-np', '4', '-c', '4096'],
    }),
    workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 64 }, ignoreEos: true },
    over: { serverArg: { '-np': [1, 2, 4, 8] } },
    load: { concurrency: 8, requests: 64 },
    warmup: { requests: 4 },
    seed: 1,
    baseline: false,
  })
})
