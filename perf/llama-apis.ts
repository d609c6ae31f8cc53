/**
 * The four APIs on one real llama-server: each round runs the same bench over chat, Responses,
 * Messages and completions (order reversed every other round, so a drift within a round does not
 * favour one), and the table compares each API's TTFT, TPOT and throughput with chat's in the same
 * round, beside chat's own spread from round to round (the run-to-run noise).
 *
 *   npm exec -- node perf/llama-apis.ts [--rounds 6] [--requests 40] [--hogs 2]
 *
 * Needs the llama-server build (scripts/llama/build.ts). `--hogs N` runs N busy loops beside it.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { findLlamaArtifacts } from '../scripts/llama/llama-cache.ts'
import { runBenchmark } from '../src/core/run.ts'
import { llamaCpp, startServer } from '../src/core/server/index.ts'
import type { ApiKind, BenchmarkResult } from '../src/core/contract/types.ts'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    requests: { type: 'string', default: '40' },
    hogs: { type: 'string', default: '0' },
  },
})
const rounds = Number(values.rounds)
const requests = Number(values.requests)
const artifacts = findLlamaArtifacts()
if (!artifacts.found) throw new Error(artifacts.reason)

const APIS: readonly ApiKind[] = ['chat', 'responses', 'messages', 'completions']
/** Per API, per round: TTFT p50 (ms), TPOT p50 (ms), output tokens/s. */
const figures = new Map<ApiKind, Array<[number, number, number]>>()

const hogs = Array.from({ length: Number(values.hogs) }, () =>
  spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
)
const server = await startServer(
  llamaCpp({
    bin: artifacts.manifest.serverPath,
    modelPath: artifacts.manifest.modelPath,
    args: ['-t', '2', '-np', '2', '-c', '2048'],
    logDir: mkdtempSync(path.join(os.tmpdir(), 'llama-apis-')),
    startTimeoutMs: 60_000,
  }),
  { print: () => {} },
)

function line(round: number, api: ApiKind, r: BenchmarkResult): string {
  const records = r.requests ?? []
  const lengths = [...new Set(records.map((q) => q.outputTokens))].join(',')
  const inputs = [...new Set(records.map((q) => q.inputTokens))].join(',')
  const finish = [...new Set(records.map((q) => q.finishReason))].join(',')
  const errors = r.errors.map((e) => `${e.count}x ${e.message.slice(0, 100)}`).join('; ') || 'none'
  return (
    `round ${round} ${api.padEnd(11)} ${r.counts.completed}/${r.counts.total} errors ${errors}; output ${lengths}, ` +
    `input ${inputs}, usage ${records.every((q) => q.usageReported)}, finish ${finish}, burst ${r.streaming.burstRequests}; ` +
    `TTFT p50 ${r.metrics.ttftMs.p50.toFixed(2)} p99 ${r.metrics.ttftMs.p99.toFixed(2)} ms, ` +
    `TPOT p50 ${r.metrics.tpotMs.p50.toFixed(3)} ms, ${r.throughput.outputTokensPerSec.toFixed(0)} tok/s`
  )
}

try {
  for (let round = 0; round < rounds; round++) {
    for (const api of round % 2 === 0 ? APIS : [...APIS].reverse()) {
      const r = await runBenchmark(
        {
          target: { baseUrl: server.baseUrl, api },
          workload: { kind: 'synthetic', inputTokens: { mean: 48 }, outputTokens: { mean: 128 } },
          warmup: { requests: 2 },
          seed: 5,
          recordRequests: true,
          load: { concurrency: 2, requests },
        },
        { skipGpu: true },
      )
      console.log(line(round, api, r))
      const rows = figures.get(api) ?? []
      rows.push([r.metrics.ttftMs.p50, r.metrics.tpotMs.p50, r.throughput.outputTokensPerSec])
      figures.set(api, rows)
    }
  }
} finally {
  await server.stop()
  for (const hog of hogs) hog.kill()
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}
const range = (values: number[], digits: number): string =>
  `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`
const chat = figures.get('chat') ?? []
console.log(
  '\n| API | TTFT p50, median (range), ms | TTFT p50 / chat, same round: median (range) | TPOT p50 / chat | tok/s / chat |',
)
console.log('| --- | --- | --- | --- | --- |')
for (const api of APIS) {
  const rows = figures.get(api) ?? []
  const ratio = (i: number) => rows.map((row, k) => (row[i] as number) / (chat[k]?.[i] ?? NaN))
  const cell = (i: number) => `${median(ratio(i)).toFixed(3)} (${range(ratio(i), 3)})`
  const ttft = rows.map((row) => row[0])
  console.log(`| ${api} | ${median(ttft).toFixed(2)} (${range(ttft, 2)}) | ${cell(0)} | ${cell(1)} | ${cell(2)} |`)
}
// Chat against itself one round later: what the ratios above are to be read against.
const drift = chat.slice(1).map((row, k) => row[0] / (chat[k]?.[0] as number))
console.log(`\nchat TTFT p50, round k+1 / round k: median ${median(drift).toFixed(3)} (${range(drift, 3)})`)
