// For a machine with a GPU and vLLM installed: LLM_BENCH_VLLM_MODEL=Qwen/Qwen3-0.6B npx vitest bench benches/vllm.bench.ts
// The server is started with execa, polled until ready, and stopped (with its whole process
// group) when the bench file ends, also on failure or Ctrl-C.
import { describe } from 'vitest'
import { bench, vllm } from 'vitest-llm-bench'

const model = process.env.LLM_BENCH_VLLM_MODEL

describe.skipIf(!model)('vLLM', () => {
  bench.llm('chat p99 under load', {
    server: vllm({ model: model ?? '', args: ['--max-num-seqs', '64'] }),
    workload: { kind: 'synthetic', inputTokens: { mean: 512 }, outputTokens: { mean: 128 } },
    // A p99 SLO can pass from 299 requests (its 95 % distribution-free bound, docs/verdicts.md).
    load: { rate: 10, arrival: 'poisson', requests: 400 },
    warmup: { requests: 8 },
    // The tail absolutely, medians against the baseline: a relative p99 between runs rarely decides, and on an
    // open loop the offered rate sets the throughput, so the gates are latencies.
    slo: { ttftMs: { p99: 500 }, outputTokensPerSec: { min: 1000 } },
    baseline: { ttftMs: { p50: '+10%' }, tpotMs: { p50: '+10%' } },
    timeoutMs: 30 * 60_000,
  })
})
