import { startChildServer } from './lib/child-server.ts'
import { measureRun } from './lib/measure-run.ts'
const server = await startChildServer('scripted', { mode: 'instant' })
try {
  const c = Number(process.env.C ?? 64)
  const m = await measureRun({ target: { baseUrl: server.url }, workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 256 } }, load: { concurrency: c, requests: Number(process.env.N ?? 2000) }, warmup: { requests: Math.min(c, 64) } })
  console.log(c, Math.round(m.eventsPerSec), m.cpuUsPerEvent.toFixed(2), 'elu', m.eventLoopUtilization.toFixed(2), 'sys', m.systemCpuShare.toFixed(2), 'load', m.loadAverage)
} finally { await server.close() }
