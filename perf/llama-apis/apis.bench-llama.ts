// The benches of perf/llama-apis.ts's `vitest bench` check: one bench per API on a real llama-server
// (built by scripts/llama/build.ts; embeddings and rerank on their own, started with the flags they
// need), recorded with -u and judged against its baseline. Not named
// *.bench.ts: `npx vitest bench` skips it.
import { describe } from 'vitest'
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'

/** llama-server on the tiny model with `extra` flags (embeddings and rerank each need their own server). */
const llama = (extra: string[] = []) =>
  llamaCpp({
    bin: process.env.LLAMA_APIS_SERVER ?? 'llama-server',
    modelPath: process.env.LLAMA_APIS_MODEL ?? 'missing.gguf',
    args: ['-t', '2', '-np', '2', '-c', '2048', ...extra],
  })
const server = llama()
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
  // Texts in, one JSON body out: 4 texts of ~48 tokens per request (rerank: a query and 4 documents).
  for (const [api, flags] of [
    ['embeddings', ['--embeddings', '--pooling', 'mean']],
    ['rerank', ['--reranking']],
  ] as const) {
    bench.llm(api, {
      server: llama([...flags]),
      target: { api },
      workload: { kind: 'synthetic', inputTokens: { mean: 48 }, batch: 4 },
      load: { concurrency: 2, requests: 100 },
      warmup: { requests: 4 },
      seed: 1,
    })
  }
})
