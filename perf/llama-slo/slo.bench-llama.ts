// The benches of perf/llama-slo.ts: a p99 SLO judged on its distribution-free bounds, on a real
// llama-server (built by scripts/llama/build.ts). Not named *.bench.ts: `npx vitest bench` skips it.
import { describe } from 'vitest'
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'

const server = () =>
  llamaCpp({
    bin: process.env.LLAMA_SLO_SERVER ?? 'llama-server',
    modelPath: process.env.LLAMA_SLO_MODEL ?? 'missing.gguf',
    args: ['-t', '2', '-np', '4', '-c', '4096'],
  })
const workload = { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 16 }, ignoreEos: true } as const

describe('llama.cpp p99 SLO', () => {
  for (const [name, requests, limit] of [
    ['too few requests', 100, 2000],
    ['far below the limit', 400, 2000],
    ['far above the limit', 400, 1],
  ] as const) {
    bench.llm(name, {
      server: server(),
      workload,
      load: { concurrency: 4, requests },
      warmup: { requests: 4 },
      seed: 1,
      slo: { ttftMs: { p99: limit } },
      baseline: false,
    })
  }
})
