// Config of the child `vitest bench` run that test/e2e/llama-server.test.ts starts: only the
// llama.cpp bench, baselines in the folder the parent chooses (LLAMA_E2E_BASELINE_DIR).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { llmBench } from '../../src/vitest/plugin.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

export default defineConfig({
  root,
  plugins: [
    llmBench({
      ...(process.env.LLAMA_E2E_BASELINE_DIR ? { baselineDir: process.env.LLAMA_E2E_BASELINE_DIR } : {}),
      reporters: false,
    }),
  ],
  test: {
    include: [],
    benchmark: { include: ['test/e2e/llama-server.e2e-bench.ts'] },
  },
})
