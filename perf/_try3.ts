import { startChildServer } from './lib/child-server.ts'
import { measureRun } from './lib/measure-run.ts'
const kind = (process.argv[2] ?? 'scripted') as 'scripted' | 'sim'
const server = await startChildServer(kind, kind === 'sim' ? { speedFactor: 0, maxRunningSequences: 4096 } : {})
try {
  for (const c of (process.env.C ?? '64').split(',').map(Number)) for (const workers of [1, 2]) {
    const m = await measureRun({ workers, recordRequests: process.env.REC === '1', target: { baseUrl: server.url }, workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 256 } }, load: { concurrency: c, requests: Math.max(c * 4, 400) }, warmup: { requests: Math.min(c, 64) } })
    const r = m.result
    console.log(c, 'w', workers, Math.round(m.eventsPerSec), m.cpuUsPerEvent.toFixed(2), 'counts', JSON.stringify(r.counts), 'ttft p50', r.metrics.ttftMs.p50.toFixed(2), 'itl n', r.metrics.itlMs.count, 'dur', r.durationMs.toFixed(0), 'tl', r.timeline?.requests.reduce((a, b) => a + b, 0), 'keptUp', r.client.keptUp, 'eld', JSON.stringify(r.client.eventLoopDelayMs), r.warnings.length, r.requests?.length, 'load', m.loadAverage)
  }
} finally { await server.close() }
