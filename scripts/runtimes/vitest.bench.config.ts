/**
 * Vitest config for the example benches under another runtime (CI's runtime check): the repository's
 * aliases, the plugin with its baselines in `LLM_BENCH_BASELINES` (one folder per runtime, since the
 * runtime is part of a baseline's fingerprint) and the shared simulator slowed by `LLM_BENCH_SIM_SPEED`
 * (default 1) to stage a regression.
 *
 *   LLM_BENCH_BASELINES=/tmp/b/bun npx bun --bun vitest bench --run -u --config scripts/runtimes/vitest.bench.config.ts benches/chat.bench.ts
 */
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { llmBench } from '../../src/vitest/plugin.ts'
import { simulator } from '../../src/bench/bench-options.ts'

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url))
const baselines = process.env.LLM_BENCH_BASELINES
const speed = Number(process.env.LLM_BENCH_SIM_SPEED ?? '1')

export default defineConfig({
  root: src('../../'),
  plugins: [
    llmBench({
      ...(baselines ? { baselineDir: baselines } : {}),
      server: simulator({ speedFactor: Number.isFinite(speed) && speed >= 0 ? speed : 1 }),
    }),
  ],
  resolve: {
    alias: [
      { find: /^vitest-llm-bench$/, replacement: src('../../src/index.ts') },
      { find: /^vitest-llm-bench\/core$/, replacement: src('../../src/core/index.ts') },
      { find: /^vitest-llm-bench\/sim$/, replacement: src('../../src/sim/index.ts') },
      { find: /^vitest-llm-bench\/reporters$/, replacement: src('../../reporters/index.ts') },
    ],
  },
  test: { testTimeout: 120_000, hookTimeout: 60_000 },
})
