// The bench of perf/llama-compare.ts: the real llama-server (built by scripts/llama/build.ts) as two
// variants of bench.llm.compare, under `vitest bench` as users run it. Not named *.bench.ts: a plain
// `npx vitest bench` does not pick it up.
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'

const serverPath = process.env.LLAMA_COMPARE_SERVER ?? 'llama-server'
const modelPath = process.env.LLAMA_COMPARE_MODEL ?? 'missing.gguf'
/** The issue's `-t 2 -np 4 -c 4096`; the variant adds LLAMA_COMPARE_VARIANT_ARGS (none: an A/A pair). */
const args = ['-t', '2', '-np', '4', '-c', '4096']
const variantArgs = (process.env.LLAMA_COMPARE_VARIANT_ARGS ?? '').split(' ').filter(Boolean)
const requests = Number(process.env.LLAMA_COMPARE_REQUESTS ?? 150)

bench.llm.compare('llama.cpp side by side', {
  variants: {
    default: llamaCpp({ bin: serverPath, modelPath, args }),
    [variantArgs.length > 0 ? variantArgs.join(' ') : 'default again']: llamaCpp({
      bin: serverPath,
      modelPath,
      args: [...args, ...variantArgs],
    }),
  },
  control: 'default',
  workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 }, ignoreEos: true },
  load: { concurrency: 4, requests },
  warmup: { requests: 8 },
  seed: 1,
  budgetMs: 15 * 60_000,
})
