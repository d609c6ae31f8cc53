// Memory: resident and heap size of the client process while it runs many short requests, with
// and without recordRequests. Without, a run keeps histograms and running sums, so memory must
// stay flat; with, it grows by the size of one record per request.
// Run alone (with --expose-gc so each sample is taken after a full collection):
//   npm exec -- node --expose-gc perf/memory.ts [requests=1000000] [recordedRequests=200000]
import { loadavg } from 'node:os'
import { runBenchmark } from '../src/core/run.ts'
import { startChildServer } from './lib/child-server.ts'
import type { ChildServer } from './lib/child-server.ts'

/** Memory after `done` requests, MB (10^6 bytes). */
export interface MemorySample {
  done: number
  rssMb: number
  heapUsedMb: number
  elapsedS: number
  loadAverage: number
}

export interface MemoryRow {
  recordRequests: boolean
  requests: number
  completed: number
  samples: MemorySample[]
  /** RSS at the last sample minus RSS at the first, MB. */
  rssGrowthMb: number
  /** Heap at the last sample minus heap at the first, per request between them, bytes. */
  heapBytesPerRequest: number
  requestsPerSec: number
}

const MB = 1e6
/** Output tokens per request: short requests, so the request count (not the token count) is what grows. */
const OUTPUT_TOKENS = 4

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc) {
    gc()
    gc()
  }
}

/** Runs `requests` short requests at `concurrency`, sampling memory every `every` completions. */
export async function measureMemory(
  server: ChildServer,
  requests: number,
  recordRequests: boolean,
  every: number,
  concurrency = 64,
): Promise<MemoryRow> {
  const samples: MemorySample[] = []
  const start = performance.now()
  const sample = (done: number): void => {
    collectGarbage()
    const usage = process.memoryUsage()
    samples.push({
      done,
      rssMb: usage.rss / MB,
      heapUsedMb: usage.heapUsed / MB,
      elapsedS: (performance.now() - start) / 1000,
      loadAverage: loadavg()[0] ?? NaN,
    })
  }
  const result = await runBenchmark(
    {
      target: { baseUrl: server.url },
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: OUTPUT_TOKENS } },
      load: { concurrency, requests },
      warmup: { requests: concurrency },
      recordRequests,
      onProgress: (progress) => {
        if (progress.done % every === 0) sample(progress.done)
      },
    },
    { skipGpu: true },
  )
  const first = samples[0]
  const last = samples.at(-1)
  const between = first && last ? last.done - first.done : 0
  return {
    recordRequests,
    requests,
    completed: result.counts.completed,
    samples,
    rssGrowthMb: first && last ? last.rssMb - first.rssMb : NaN,
    heapBytesPerRequest: first && last && between > 0 ? ((last.heapUsedMb - first.heapUsedMb) * MB) / between : NaN,
    requestsPerSec: result.throughput.requestsPerSec,
  }
}

/** Markdown: one line per sample of each row. */
export function formatMemoryRows(rows: MemoryRow[]): string {
  const lines = [
    '| recordRequests | requests done | RSS (MB) | heap used (MB) | elapsed (s) | load avg |',
    '| :---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows) {
    for (const s of row.samples) {
      lines.push(
        `| ${row.recordRequests ? 'yes' : 'no'} | ${s.done.toLocaleString('en-US')} | ${s.rssMb.toFixed(1)} | ${s.heapUsedMb.toFixed(1)} | ${s.elapsedS.toFixed(0)} | ${s.loadAverage.toFixed(2)} |`,
      )
    }
  }
  lines.push('')
  for (const row of rows) {
    lines.push(
      `- recordRequests ${row.recordRequests ? 'on' : 'off'}: ${row.completed.toLocaleString('en-US')} of ${row.requests.toLocaleString('en-US')} requests completed at ${Math.round(row.requestsPerSec).toLocaleString('en-US')} requests/s; RSS ${row.rssGrowthMb >= 0 ? '+' : ''}${row.rssGrowthMb.toFixed(1)} MB from the first sample to the last; heap ${row.heapBytesPerRequest.toFixed(1)} bytes per request.`,
    )
  }
  return lines.join('\n')
}

/** Starts the scripted server (instant mode), runs both rows, stops it. */
export async function runMemory(requests: number, recordedRequests: number): Promise<MemoryRow[]> {
  if ((globalThis as { gc?: unknown }).gc === undefined)
    console.warn(
      'memory: run node with --expose-gc for samples after a full collection; figures include garbage otherwise.',
    )
  const server = await startChildServer('scripted', { mode: 'instant', eventsPerWrite: OUTPUT_TOKENS })
  try {
    const flat = await measureMemory(server, requests, false, Math.max(1, Math.round(requests / 10)))
    const recorded = await measureMemory(server, recordedRequests, true, Math.max(1, Math.round(recordedRequests / 4)))
    return [flat, recorded]
  } finally {
    await server.close()
  }
}

/** Runs {@link runMemory} in a fresh Node process (with --expose-gc), so earlier sections' heap does not count. */
export async function runMemoryInChild(requests: number, recordedRequests: number): Promise<MemoryRow[]> {
  const { execa } = await import('execa')
  const script = new URL(import.meta.url).pathname
  const { stdout } = await execa(
    process.execPath,
    ['--expose-gc', script, String(requests), String(recordedRequests), '--json'],
    { stderr: 'inherit' },
  )
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as MemoryRow[]
}

if (import.meta.main) {
  const requests = Number(process.argv[2] ?? 1_000_000)
  const recorded = Number(process.argv[3] ?? 200_000)
  const rows = await runMemory(requests, recorded)
  console.log(process.argv.includes('--json') ? JSON.stringify(rows) : formatMemoryRows(rows))
}
