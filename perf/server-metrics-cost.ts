// What scraping the server's metrics costs: against llama-server (this project's build, started
// with --metrics), runs alternate between scraping off, every 1000 ms (the default) and every
// 100 ms, and each mode's client CPU, TTFT, ITL and throughput are printed side by side; then the
// parse cost of a vLLM-sized exposition. Prints Markdown (docs/server-metrics.md holds a run).
// Run: npm exec -- node perf/server-metrics-cost.ts [--rounds=5]
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { findLlamaArtifacts } from '../scripts/llama/llama-cache.ts'
import { runBenchmark } from '../src/core/run.ts'
import { llamaCpp, startServer } from '../src/core/server/index.ts'
import { parsePrometheusText } from '../src/core/server/metrics/index.ts'
import type { BenchmarkResult, ServerMetricsOptions } from '../src/core/contract/types.ts'

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 5)
const artifacts = findLlamaArtifacts()
if (!artifacts.found) {
  console.error(`llama-server is not built (${artifacts.reason}): npm exec -- node scripts/llama/build.ts`)
  process.exit(2)
}
const MODES: Array<{ name: string; option: ServerMetricsOptions | false }> = [
  { name: 'off', option: false },
  { name: 'every 1000 ms', option: { intervalMs: 1000 } },
  { name: 'every 100 ms', option: { intervalMs: 100 } },
]
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

const server = await startServer(
  llamaCpp({
    bin: artifacts.manifest.serverPath,
    modelPath: artifacts.manifest.modelPath,
    args: ['-t', '2', '-np', '4', '-c', '4096'],
    startTimeoutMs: 60_000,
  }),
  {
    print: () => {},
  },
)
const rows = new Map<string, Array<{ cpuMs: number; result: BenchmarkResult }>>()
try {
  console.log(
    `# Server-metrics scrape cost\n\n${new Date().toISOString()}; Node ${process.version}; llama-server ${artifacts.manifest.commit.slice(0, 7)} -t 2 -np 4; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${rounds} rounds, modes interleaved\n`,
  )
  for (let round = 0; round < rounds; round++) {
    for (const mode of MODES) {
      const before = process.cpuUsage()
      const result = await runBenchmark(
        {
          target: { baseUrl: server.baseUrl, api: 'chat' },
          workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 128 } },
          load: { concurrency: 4, requests: 32 },
          warmup: { requests: 4 },
          seed: round,
          serverMetrics: mode.option,
        },
        { skipGpu: true },
      )
      const used = process.cpuUsage(before)
      if (process.env.DEBUG_COST)
        console.error(
          mode.name,
          result.durationMs.toFixed(0),
          'e2e max',
          result.metrics.e2eMs.max.toFixed(0),
          'p50',
          result.metrics.e2eMs.p50.toFixed(0),
          'ttft max',
          result.metrics.ttftMs.max.toFixed(0),
          result.counts,
        )
      const list = rows.get(mode.name) ?? []
      list.push({ cpuMs: (used.user + used.system) / 1000, result })
      rows.set(mode.name, list)
    }
  }
} finally {
  await server.stop()
}

console.log(
  '| scraping | client CPU per run, ms | run duration, ms | TTFT p50, ms | ITL p50, ms | E2E p50, ms | output tok/s | scrapes per run | scrape mean, ms |',
)
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const mode of MODES) {
  const list = rows.get(mode.name) ?? []
  const m = (pick: (r: BenchmarkResult) => number) => median(list.map((x) => pick(x.result)))
  const scrapes = list.map((x) => x.result.server?.metrics?.scrapes ?? 0)
  const scrapeMs = list.map((x) => x.result.server?.metrics?.scrapeMeanMs ?? 0)
  console.log(
    `| ${mode.name} | ${median(list.map((x) => x.cpuMs)).toFixed(0)} | ${m((r) => r.durationMs).toFixed(0)} | ${m((r) => r.metrics.ttftMs.p50).toFixed(2)} | ${m((r) => r.metrics.itlMs.p50).toFixed(3)} | ` +
      `${m((r) => r.metrics.e2eMs.p50).toFixed(1)} | ${m((r) => r.throughput.outputTokensPerSec).toFixed(0)} | ${median(scrapes).toFixed(0)} | ${mode.option === false ? '-' : median(scrapeMs).toFixed(2)} |`,
  )
}

// Parse cost of a vLLM V1 exposition (the fixture: 39 families), repeated to the size a large deployment serves.
const vllm = readFileSync(new URL('../test/fixtures/server-metrics/vllm-v1-3168f587.txt', import.meta.url), 'utf8')
for (const copies of [1, 10]) {
  const text = Array.from({ length: copies }, (_, i) => vllm.replaceAll('engine="0"', `engine="${i}"`)).join('\n')
  const n = 200
  const t0 = performance.now()
  for (let i = 0; i < n; i++) parsePrometheusText(text)
  const perParse = (performance.now() - t0) / n
  console.log(
    `\nParse of a vLLM exposition x${copies} (${(text.length / 1024).toFixed(0)} KiB, ${text.split('\n').length} lines): ${perParse.toFixed(3)} ms per scrape (mean of ${n})`,
  )
}
