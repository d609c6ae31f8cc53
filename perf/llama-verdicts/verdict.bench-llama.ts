// The benches of perf/llama-verdicts.ts: a real llama-server (built by scripts/llama/build.ts),
// launched by each bench and so restarted every run, under `vitest bench` as users run it.
// Not named *.bench.ts: a plain `npx vitest bench` does not pick it up.
import { describe } from 'vitest'
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'

const serverPath = process.env.LLAMA_VERDICT_SERVER ?? 'llama-server'
const modelPath = process.env.LLAMA_VERDICT_MODEL ?? 'missing.gguf'
/** The server's arguments: the issue's `-t 2 -np 4 -c 4096`, plus a regression (e.g. `-ub 1`) from LLAMA_VERDICT_EXTRA_ARGS. */
const args = [
  '-t',
  '2',
  '-np',
  '4',
  '-c',
  '4096',
  ...(process.env.LLAMA_VERDICT_EXTRA_ARGS ?? '').split(' ').filter(Boolean),
]
const server = () =>
  llamaCpp({
    bin: serverPath,
    modelPath,
    args,
    ...(process.env.LLAMA_VERDICT_LOG_DIR ? { logDir: process.env.LLAMA_VERDICT_LOG_DIR } : {}),
  })
const workload = { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 }, ignoreEos: true } as const
const requests = Number(process.env.LLAMA_VERDICT_REQUESTS ?? 300)
/** LLAMA_VERDICT_SERVER_METRICS=off turns the /metrics scrape off (an A/B of its effect on the verdicts). */
const serverMetrics = process.env.LLAMA_VERDICT_SERVER_METRICS === 'off' ? { serverMetrics: false as const } : {}

describe('llama.cpp', () => {
  bench.llm('closed loop, 4 streams', {
    server: server(),
    workload,
    load: { concurrency: 4, requests },
    warmup: { requests: 8 },
    seed: 1,
    ...serverMetrics,
    baseline: { e2eMs: { p50: '+10%' }, outputTokensPerSec: '-5%' },
    timeoutMs: 600_000,
  })
  bench.llm('open loop, 8 req/s', {
    server: server(),
    workload,
    load: { rate: 8, arrival: 'poisson', requests: Math.round((requests * 160) / 300) },
    warmup: { requests: 8 },
    seed: 2,
    ...serverMetrics,
    baseline: { ttftMs: { p50: '+10%', p99: '+10%' }, tpotMs: { p50: '+10%' } },
    timeoutMs: 600_000,
  })
  // Multi-turn chats: each turn re-sends the history, which the slot's prompt cache holds (4 users on 4 slots).
  bench.llm('sessions, 4 users', {
    server: server(),
    workload: {
      kind: 'sessions',
      source: { kind: 'synthetic', turns: { mean: 3 }, userTokens: { mean: 64 }, outputTokens: { mean: 32 } },
    },
    load: { concurrency: 4, sessions: Math.round(requests / 3) },
    warmup: { requests: 8 },
    seed: 3,
    ...serverMetrics,
    baseline: { e2eMs: { p50: '+10%' }, outputTokensPerSec: '-5%' },
    timeoutMs: 600_000,
  })
})
