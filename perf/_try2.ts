import { currentReadTick } from '../src/core/client/read-tick.ts'
import { StreamingRequest } from '../src/core/client/streaming-request.ts'
import { startChildServer } from './lib/child-server.ts'
import { measureRun } from './lib/measure-run.ts'
let reads = 0, bytes = 0, ticks = 0, lastTick = -1
const orig = StreamingRequest.prototype.onResponseData
StreamingRequest.prototype.onResponseData = function (c: any, chunk: Uint8Array) { reads++; const tk = currentReadTick(); if (tk !== lastTick) { ticks++; lastTick = tk }; bytes += chunk.byteLength; return orig.call(this, c, chunk) }
const kind = (process.argv[2] ?? 'scripted') as 'scripted' | 'sim'
const server = await startChildServer(kind, kind === 'sim' ? { speedFactor: 0, maxRunningSequences: 4096 } : { eventsPerWrite: Number(process.env.EPW ?? 1) })
try {
  for (const c of (process.env.C ?? '1,64,512').split(',').map(Number)) {
    reads = 0; bytes = 0; ticks = 0
    const m = await measureRun({ target: { baseUrl: server.url }, workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 256 } }, load: { concurrency: c, requests: Math.max(c * 4, 400) }, warmup: { requests: Math.min(c, 64) } })
    const total = m.result.counts.completed * 256
    console.log(c, Math.round(m.eventsPerSec), m.cpuUsPerEvent.toFixed(2), 'elu', m.eventLoopUtilization.toFixed(2), 'events/read', (total / reads).toFixed(2), 'events/tick', (total / ticks).toFixed(2), 'sys', m.systemCpuShare.toFixed(2))
  }
} finally { await server.close() }
