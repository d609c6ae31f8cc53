import { startChildServer } from './lib/child-server.ts'
import { measureRun } from './lib/measure-run.ts'
const kind = (process.argv[2] ?? 'scripted') as 'scripted' | 'sim'
const server = await startChildServer(kind, kind === 'sim' ? { speedFactor: 0, maxRunningSequences: 4096 } : { eventsPerWrite: Number(process.env.EPW ?? 1) })
try {
  for (const c of (process.env.C ?? '1,64,512').split(',').map(Number)) {
    const s0 = server.cpuUs()
    const m = await measureRun({ target: { baseUrl: server.url }, workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 256 } }, load: { concurrency: c, requests: Math.max(c * 4, 400) }, warmup: { requests: Math.min(c, 64) } })
    console.log(c, Math.round(m.eventsPerSec), m.cpuUsPerEvent.toFixed(2), 'elu', m.eventLoopUtilization.toFixed(2), 'failed', m.result.counts.failed, 'serverCpuMs', ((server.cpuUs() - s0) / 1000).toFixed(0), 'load', m.loadAverage)
  }
} finally { await server.close() }
