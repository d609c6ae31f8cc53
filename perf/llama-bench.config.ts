// Config of the `vitest bench` runs of perf/llama-stall.ts and perf/llama-slo.ts: the one bench file
// LLAMA_BENCH_FILE names (not *.bench.ts, so a plain `npx vitest bench` skips it), its JSON report in
// LLAMA_BENCH_REPORT.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { LlmJsonReporter } from '../reporters/index.ts'
import { llmBench } from '../src/vitest/plugin.ts'

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  plugins: [llmBench()],
  test: {
    include: [],
    reporters: [
      'default',
      new LlmJsonReporter({ outputFile: process.env.LLAMA_BENCH_REPORT ?? 'llm-bench-report/llama-bench.json' }),
    ],
    benchmark: { include: [process.env.LLAMA_BENCH_FILE ?? 'perf/llama-slo/slo.bench-llama.ts'] },
  },
})
