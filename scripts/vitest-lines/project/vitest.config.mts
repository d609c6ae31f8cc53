// A user's config as the README shows it: `.mts`, so it loads as ESM in a CommonJS package too.
import { defineConfig } from 'vitest/config'
import { llmBench, simulator } from 'vitest-llm-bench'
import { LlmJsonReporter } from 'vitest-llm-bench/reporters'

// LLM_BENCH_SIM_SPEED=2 makes the built-in simulator twice as slow: the regression to catch.
const speedFactor = Number(process.env.LLM_BENCH_SIM_SPEED ?? '1')

export default defineConfig({
  plugins: [llmBench({ server: simulator({ speedFactor }) })],
  // A file reporter: it must write its report under `vitest bench` on both Vitest lines.
  test: { reporters: ['default', new LlmJsonReporter()] },
})
