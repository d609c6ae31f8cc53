import { startChildServer } from './lib/child-server.ts'
import { measureRun } from './lib/measure-run.ts'
const server = await startChildServer('scripted', { mode: 'timed', ttftMs: 20, itlMs: 10 })
const c = Number(process.env.C ?? 64)
const m = await measureRun({ target: { baseUrl: server.url }, workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 64 } }, load: { concurrency: c, requests: c * Number(process.env.R ?? 6) }, warmup: { requests: c } })
console.log(c, Math.round(m.eventsPerSec), m.cpuUsPerEvent.toFixed(2), 'elu', m.eventLoopUtilization.toFixed(2), 'sys', m.systemCpuShare.toFixed(2), 'load', m.loadAverage)
await server.close()
