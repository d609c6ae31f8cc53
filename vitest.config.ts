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
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
