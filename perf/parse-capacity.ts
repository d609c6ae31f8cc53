// Parse capacity: streamed events per second and client CPU per event, against a server in its
// own process that adds no delay (the simulator at speed factor 0, and the scripted server in
// instant mode, which costs less per event and so leaves more of the machine to the client).
// Run alone: npm exec -- node perf/parse-capacity.ts [streams,...] [workers,...]
import { startChildServer } from './lib/child-server.ts'
import { measureRun } from './lib/measure-run.ts'

export interface CapacityRow {
  server: string
  streams: number
  workers: number
  requests: number
  tokens: number
  eventsPerSec: number
  cpuUsPerEvent: number
  /** Main event loop busy share (1 thread only; undefined with workers, whose loops are their own). */
  eventLoopUtilization: number | undefined
  systemCpuShare: number
  /** CPU the server process used per event, µs: the other side of the machine's budget. */
  serverCpuUsPerEvent: number
  failed: number
  loadAverage: number
}

export const CAPACITY_STREAMS = [1, 64, 512, 2000]
export const CAPACITY_WORKERS = [1, 2]
export const CAPACITY_TOKENS = 256

const SERVERS = [
  ['simulator (speed 0)', 'sim', { speedFactor: 0, maxRunningSequences: 4096 }],
  ['scripted (instant)', 'scripted', { mode: 'instant' }],
] as const

/** Every server x streams x workers row (workers above 1 only where the streams can be shared). */
export async function runParseCapacity(
  streams: number[] = CAPACITY_STREAMS,
  workers: number[] = CAPACITY_WORKERS,
  tokens = CAPACITY_TOKENS,
): Promise<CapacityRow[]> {
  const rows: CapacityRow[] = []
  for (const [label, kind, options] of SERVERS) {
    const server = await startChildServer(kind, options)
    try {
      for (const s of streams) {
        for (const w of workers) {
          if (w > s) continue
          const requests = Math.max(s * 3, 300)
          const serverBefore = server.cpuUs()
          const run = await measureRun({
            target: { baseUrl: server.url },
            workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: tokens } },
            load: { concurrency: s, requests },
            warmup: { requests: Math.min(s, 64) },
            workers: w,
          })
          const serverCpuUs = server.cpuUs() - serverBefore
          const allEvents = run.result.counts.completed * tokens
          rows.push({
            server: label,
            streams: s,
            workers: w,
            requests,
            tokens,
            eventsPerSec: run.eventsPerSec,
            cpuUsPerEvent: run.cpuUsPerEvent,
            eventLoopUtilization: w === 1 ? run.eventLoopUtilization : undefined,
            systemCpuShare: run.systemCpuShare,
            serverCpuUsPerEvent: serverCpuUs / allEvents,
            failed: run.result.counts.failed,
            loadAverage: run.loadAverage,
          })
        }
      }
    } finally {
      await server.close()
    }
  }
  return rows
}

/** Markdown table of capacity rows. */
export function formatCapacityRows(rows: CapacityRow[]): string {
  const lines = [
    '| server | streams | workers | events/s | client CPU µs/event (kernel share) | client event loop busy | server CPU µs/event | failed | load avg |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const r of rows) {
    lines.push(
      `| ${r.server} | ${r.streams} | ${r.workers} | ${Math.round(r.eventsPerSec).toLocaleString('en-US')} | ${r.cpuUsPerEvent.toFixed(2)} (${Math.round(r.systemCpuShare * 100)} %) | ${r.eventLoopUtilization === undefined ? '-' : `${Math.round(r.eventLoopUtilization * 100)} %`} | ${r.serverCpuUsPerEvent.toFixed(2)} | ${r.failed} | ${r.loadAverage.toFixed(2)} |`,
    )
  }
  return lines.join('\n')
}

if (import.meta.main) {
  const streams = process.argv[2]?.split(',').map(Number)
  const workers = process.argv[3]?.split(',').map(Number)
  console.log(formatCapacityRows(await runParseCapacity(streams, workers)))
}
