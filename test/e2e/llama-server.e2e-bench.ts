// A bench.llm against a real llama-server, run by test/e2e/llama-server.test.ts in a child
// `vitest bench` (config: llama.vitest.config.ts) so that it can write, then meet, a baseline in
// a temporary folder. Not named *.bench.ts, so a plain `npx vitest bench` does not pick it up.
import { describe } from 'vitest'
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'
import { LLAMA_E2E_SERVER_ARGS } from '../helpers/llama-server-args.ts'

const serverPath = process.env.LLAMA_E2E_SERVER
const modelPath = process.env.LLAMA_E2E_MODEL

describe('llama.cpp', () => {
  bench.llm.runIf(serverPath && modelPath)('tiny model, 2 streams', {
    server: llamaCpp({
      bin: serverPath ?? 'llama-server',
      modelPath: modelPath ?? 'missing.gguf',
      args: LLAMA_E2E_SERVER_ARGS,
      ...(process.env.LLAMA_E2E_LOG_DIR ? { logDir: process.env.LLAMA_E2E_LOG_DIR } : {}),
    }),
    workload: { kind: 'synthetic', inputTokens: { mean: 48 }, outputTokens: { mean: 64 } },
    load: { concurrency: 2, requests: 16 },
    warmup: { requests: 2 },
    seed: 3,
    slo: { errors: { maxRate: 0 } },
    // Wide on purpose: the two runs share 2 CPU cores with the rest of the test suite, and CPU
    // contention alone moved this tiny model's TPOT fivefold. What is tested is the flow.
    baseline: { ttftMs: { p50: '+500%' }, tpotMs: { p50: '+500%' }, outputTokensPerSec: '-85%' },
    timeoutMs: 60_000,
  })

  // Multi-turn chats through the same path: each turn re-sends the history, which the slot's prompt cache holds.
  bench.llm.runIf(serverPath && modelPath)('chat sessions, 2 users', {
    server: llamaCpp({
      bin: serverPath ?? 'llama-server',
      modelPath: modelPath ?? 'missing.gguf',
      args: LLAMA_E2E_SERVER_ARGS,
      ...(process.env.LLAMA_E2E_LOG_DIR ? { logDir: process.env.LLAMA_E2E_LOG_DIR } : {}),
    }),
    workload: {
      kind: 'sessions',
      source: { kind: 'synthetic', turns: { mean: 3 }, userTokens: { mean: 64 }, outputTokens: { mean: 32 } },
    },
    load: { concurrency: 2, sessions: 6 },
    warmup: { requests: 2 },
    seed: 3,
    slo: { errors: { maxRate: 0 } },
    baseline: { ttftMs: { p50: '+500%' }, outputTokensPerSec: '-85%' },
    timeoutMs: 60_000,
  })

  // A server per value of -np (slots): the curve over the server's own configuration, and its knee.
  const sweep = serverPath && modelPath ? bench.llm.sweep : bench.llm.sweep.skip
  sweep('slots curve, -np 1 2 4', {
    server: llamaCpp({
      bin: serverPath ?? 'llama-server',
      modelPath: modelPath ?? 'missing.gguf',
      args: LLAMA_E2E_SERVER_ARGS,
      ...(process.env.LLAMA_E2E_LOG_DIR ? { logDir: process.env.LLAMA_E2E_LOG_DIR } : {}),
    }),
    workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 32 } },
    over: { serverArg: { '-np': [1, 2, 4] } },
    load: { concurrency: 4, requests: 16 },
    warmup: { requests: 2 },
    seed: 3,
    expect: { throughput: [{ at: 4, min: 1 }] },
    timeoutMs: 120_000,
  })
})
