import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { llmBench } from './src/vitest/plugin.ts'

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url))

export default defineConfig({
  plugins: [llmBench()],
  resolve: {
    // The package imports itself by name (as users do); resolve those names to the sources.
    alias: [
      { find: /^vitest-llm-bench$/, replacement: src('./src/index.ts') },
      { find: /^vitest-llm-bench\/core$/, replacement: src('./src/core/index.ts') },
      { find: /^vitest-llm-bench\/sim$/, replacement: src('./src/sim/index.ts') },
      { find: /^vitest-llm-bench\/reporters$/, replacement: src('./reporters/index.ts') },
    ],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], benchmark: { include: [] } },
      },
      {
        // The example benches (`npx vitest bench`): a project of their own, named for what they are.
        // The long showcase benches (soak, capacity search, MLPerf, compare) in benches/showcase/ run only with
        // LLM_BENCH_SHOWCASE=1, to keep a newcomer's first run short.
        extends: true,
        test: {
          name: 'examples',
          include: [],
          benchmark: {
            include: process.env.LLM_BENCH_SHOWCASE === '1' ? ['benches/**/*.bench.ts'] : ['benches/*.bench.ts'],
          },
        },
      },
      {
        // Tests that measure real time against real servers: one file at a time, after the unit
        // tests, so no other test file competes for the CPU while they measure.
        extends: true,
        test: {
          name: 'timing',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/runtimes/**/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          benchmark: { include: [] },
        },
      },
    ],
  },
})
