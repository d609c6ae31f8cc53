// Config of the `vitest bench` run of perf/llama-slo.ts: its benches, the JSON report in LLAMA_SLO_REPORT.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { LlmJsonReporter } from '../../reporters/index.ts'
import { llmBench } from '../../src/vitest/plugin.ts'

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  plugins: [llmBench()],
  test: {
    include: [],
    reporters: ['default', new LlmJsonReporter({ outputFile: process.env.LLAMA_SLO_REPORT ?? 'llm-bench-report/llama-slo.json' })],
    benchmark: { include: ['perf/llama-slo/slo.bench-llama.ts'] },
  },
})
