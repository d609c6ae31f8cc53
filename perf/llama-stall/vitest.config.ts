// Config of the `vitest bench` run of perf/llama-stall.ts: its one bench, the JSON report in LLAMA_STALL_REPORT.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { LlmJsonReporter } from '../../reporters/index.ts'
import { llmBench } from '../../src/vitest/plugin.ts'

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  plugins: [llmBench()],
  test: {
    include: [],
    reporters: ['default', new LlmJsonReporter({ outputFile: process.env.LLAMA_STALL_REPORT ?? 'llm-bench-report/llama-stall.json' })],
    benchmark: { include: ['perf/llama-stall/stall.bench-llama.ts'] },
  },
})
