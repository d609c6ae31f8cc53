// Config of the `vitest bench` runs of perf/llama-compare.ts: only its llama.cpp comparison.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { llmBench } from '../../src/vitest/plugin.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

export default defineConfig({
  root,
  plugins: [llmBench()],
  test: { include: [], benchmark: { include: ['perf/llama-compare/compare.bench-llama.ts'] } },
})
