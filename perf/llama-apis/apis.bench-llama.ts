// The benches of perf/llama-apis.ts's `vitest bench` check: one bench per API on one real llama-server
// (built by scripts/llama/build.ts), recorded with -u and judged against its baseline. Not named
// *.bench.ts: `npx vitest bench` skips it.
import { describe } from 'vitest'
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'

const server = llamaCpp({
  bin: process.env.LLAMA_APIS_SERVER ?? 'llama-server',
  modelPath: process.env.LLAMA_APIS_MODEL ?? 'missing.gguf',
  args: ['-t', '2', '-np', '2', '-c', '2048'],
})
const workload = { kind: 'synthetic', inputTokens: { mean: 48 }, outputTokens: { mean: 128 } } as const

describe('llama.cpp, every API', () => {
  for (const api of ['chat', 'responses', 'messages', 'completions'] as const) {
    bench.llm(api, {
      server,
      target: { api },
      workload,
      load: { concurrency: 2, requests: 100 },
      warmup: { requests: 4 },
      seed: 1,
    })
  }
})
