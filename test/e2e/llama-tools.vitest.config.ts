// Config of `vitest bench` over the tool-call benches against llama-server (llama-tools.e2e-bench.ts):
// no baselines are written (every bench there says `baseline: false`), no reporters of ours.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { llmBench } from '../../src/vitest/plugin.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

export default defineConfig({
  root,
  plugins: [llmBench({ reporters: false })],
  test: {
    include: [],
    benchmark: { include: ['test/e2e/llama-tools.e2e-bench.ts'] },
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
})
