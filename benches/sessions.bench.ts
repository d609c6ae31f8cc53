// Multi-turn chats against a simulator with prefix caching: each turn re-sends the history, which
// the cache holds, so TTFT by turn (printed on the `session` line) stays low as prompts grow.
import { bench, simulator } from 'vitest-llm-bench'

bench.llm('chat sessions, 4 users', {
  server: simulator({ prefixCaching: true, prefillMsPerToken: 0.2, seed: 4 }),
  workload: {
    kind: 'sessions',
    source: {
      kind: 'synthetic',
      turns: { mean: 3, stddev: 1, min: 2, max: 5 },
      userTokens: { mean: 96, stddev: 16 },
      outputTokens: { mean: 16 },
      systemPromptTokens: 256,
    },
    thinkTimeMs: { mean: 50, stddev: 10 },
  },
  load: { concurrency: 4, sessions: 8 },
  warmup: { requests: 4 },
  seed: 4,
  // 3 trials: enough for the simulator (chat.bench.ts says why); leave `trials` out on a real server.
  trials: { record: 3 },
  goodput: { ttftMs: 250 },
  slo: { errors: { maxRate: 0 } },
  // Gated on E2E: four users' turns meet in the batch now and then, so TTFT is two-humped and its p50
  // moves between runs (the closed loop of chat.bench.ts says the same); TTFT by turn is reported.
  baseline: { e2eMs: { p50: '+15%' } },
})
