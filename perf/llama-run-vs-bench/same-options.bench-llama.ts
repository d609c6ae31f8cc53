// The bench of perf/llama-run-vs-bench.ts: the options `vitest-llm-bench run --base-url <url> --max-concurrency 4
// --num-prompts N --random-input-len 64 --random-output-len 32 --num-warmups 8 --seed 1` resolves to
// (`runOptionsFromFlags`), on the llama-server the script keeps up. Not *.bench.ts: `npx vitest bench` skips it.
import { bench } from '../../src/vitest/index.ts'

bench.llm('same options as run', {
  target: { baseUrl: process.env.LLAMA_RUN_URL ?? 'http://127.0.0.1:8931' },
  workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 } },
  load: { requests: Number(process.env.LLAMA_RUN_REQUESTS ?? 200), concurrency: 4 },
  warmup: { requests: 8 },
  seed: 1,
  baseline: false,
})
