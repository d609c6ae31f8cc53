// Measures the cached llama-server + tiny model the way the e2e tests do, and prints our TTFT and
// TPOT next to what llama-server reports in its own `timings` for the same requests.
//
//   npm exec -- node scripts/llama/compare-timings.ts [requests per level, default 48] [output tokens, default 128]
//
// Run scripts/llama/build.ts first. The server runs with -t 2 -np 2 -c 2048 (as in the tests).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runBenchmark } from '../../src/core/run.ts'
import { compareLlamaTimings } from '../../src/core/server/llama-timings.ts'
import { llamaCpp, startServer } from '../../src/core/server/index.ts'
import { findLlamaArtifacts } from './llama-cache.ts'

const requests = Number(process.argv[2] ?? 48)
const outputTokens = Number(process.argv[3] ?? 128)
const artifacts = findLlamaArtifacts()
if (!artifacts.found) {
  console.error(artifacts.reason)
  process.exit(1)
}
const { manifest } = artifacts
const logDir = mkdtempSync(join(tmpdir(), 'llama-compare-'))
const server = await startServer(
  llamaCpp({
    bin: manifest.serverPath,
    modelPath: manifest.modelPath,
    args: ['-t', '2', '-np', '2', '-c', '2048'],
    logDir,
  }),
  { print: () => {} },
)
const f = (n: number, digits = 2): string => n.toFixed(digits)
try {
  console.log(
    `llama-server ${manifest.serverVersion}; model ${manifest.modelPath} (${manifest.modelBytes} bytes); ${requests} requests per level, 48 input / ${outputTokens} output tokens`,
  )
  console.log(
    '| api | concurrency | TTFT p50 ours | prompt_ms p50 server | TTFT - prompt_ms p50 / p90 | TPOT p50 ours | predicted_per_token_ms p50 | ratio p50 (min..max) | ITL p50 | out tok/s (run) | decode tok/s per stream ours / server | errors |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const api of ['chat', 'completions'] as const) {
    for (const concurrency of [1, 2, 4]) {
      const result = await runBenchmark(
        {
          target: { baseUrl: server.baseUrl, api },
          workload: { kind: 'synthetic', inputTokens: { mean: 48 }, outputTokens: { mean: outputTokens } },
          load: { concurrency, requests },
          warmup: { requests: concurrency * 2 },
          seed: 11,
          recordRequests: true,
        },
        { skipGpu: true },
      )
      const c = compareLlamaTimings(result.requests ?? [])
      if (!c) throw new Error('no request carried llama-server timings')
      console.log(
        `| ${api} | ${concurrency} | ${f(c.ttft.clientP50Ms)} | ${f(c.ttft.serverPromptP50Ms)} | ${f(c.ttft.outsidePromptP50Ms)} / ${f(c.ttft.outsidePromptP90Ms)} | ${f(c.tpot.clientP50Ms, 3)} | ${f(c.tpot.serverP50Ms, 3)} | ${f(c.tpot.ratioP50, 3)} (${f(c.tpot.ratioMin, 3)}..${f(c.tpot.ratioMax, 3)}) | ${f(result.metrics.itlMs.p50, 3)} | ${f(result.throughput.outputTokensPerSec, 0)} | ${f(c.decodeTokensPerSec.client, 0)} / ${f(c.decodeTokensPerSec.server, 0)} | ${result.counts.failed} |`,
      )
    }
  }
} finally {
  await server.stop()
  rmSync(logDir, { recursive: true, force: true })
}
