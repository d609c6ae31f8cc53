// Config of the `vitest bench` runs of perf/llama-verdicts.ts: only its llama.cpp benches,
// baselines in LLAMA_VERDICT_BASELINE_DIR, the JSON report in LLAMA_VERDICT_REPORT.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { LlmJsonReporter } from '../../reporters/index.ts'
import { llmBench } from '../../src/vitest/plugin.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

export default defineConfig({
  root,
  plugins: [
    llmBench({
      ...(process.env.LLAMA_VERDICT_BASELINE_DIR ? { baselineDir: process.env.LLAMA_VERDICT_BASELINE_DIR } : {}),
    }),
  ],
  test: {
    include: [],
    reporters: [
      'default',
      new LlmJsonReporter({ outputFile: process.env.LLAMA_VERDICT_REPORT ?? 'llm-bench-report/llama-verdicts.json' }),
    ],
    benchmark: { include: ['perf/llama-verdicts/verdict.bench-llama.ts'] },
  },
})
