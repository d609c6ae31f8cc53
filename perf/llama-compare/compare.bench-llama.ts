// The bench of perf/llama-compare.ts: the real llama-server (built by scripts/llama/build.ts) as two
// variants of bench.llm.compare, under `vitest bench` as users run it. Not named *.bench.ts: a plain
// `npx vitest bench` does not pick it up.
import { llamaCpp } from '../../src/core/server/index.ts'
import { bench } from '../../src/vitest/index.ts'

const serverPath = process.env.LLAMA_COMPARE_SERVER ?? 'llama-server'
const modelPath = process.env.LLAMA_COMPARE_MODEL ?? 'missing.gguf'
/**
 * The issue's `-t 2 -np 4 -c 4096`; each variant adds arguments from LLAMA_COMPARE_VARIANT_ARGS, variants
 * separated by commas (`-ub 1`, or `,-ub 1` for the default again and `-ub 1`; empty: an A/A pair).
 */
const args = ['-t', '2', '-np', '4', '-c', '4096']
const variantArgs = (process.env.LLAMA_COMPARE_VARIANT_ARGS ?? '').split(',').map((variant) => variant.trim())
const requests = Number(process.env.LLAMA_COMPARE_REQUESTS ?? 150)

bench.llm.compare('llama.cpp side by side', {
  variants: Object.fromEntries([
    ['default', llamaCpp({ bin: serverPath, modelPath, args })],
    ...variantArgs.map((extra) => [
      extra === '' ? 'default again' : extra,
      llamaCpp({ bin: serverPath, modelPath, args: [...args, ...extra.split(' ').filter(Boolean)] }),
    ]),
  ]),
  control: 'default',
  workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 }, ignoreEos: true },
  load: { concurrency: 4, requests },
  warmup: { requests: 8 },
  seed: 1,
  budgetMs: 15 * 60_000,
  arms: (process.env.LLAMA_COMPARE_ARMS ?? 'auto') as 'auto' | 'together' | 'apart',
  slices: Number(process.env.LLAMA_COMPARE_SLICES ?? 4),
  // The plan's default (6 apart, 10 together) unless --max-pairs gives one.
  ...(process.env.LLAMA_COMPARE_MAX_PAIRS ? { pairs: { max: Number(process.env.LLAMA_COMPARE_MAX_PAIRS) } } : {}),
})
