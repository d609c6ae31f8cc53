import { runBenchmark } from '../../src/core/run.ts'
import { startSimulator } from '../../src/sim/index.ts'
import type { RequestRecord } from '../../src/core/types.ts'
const sim = await startSimulator({ recordSchedule: true, seed: 7, prefillBaseMs: 15, decodeBaseMs: 4, decodeMsPerSequence: 0.5 })
const result = await runBenchmark({ target: { baseUrl: sim.url }, workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 24 } }, load: { concurrency: 1, requests: 30 }, recordRequests: true, seed: 1 }, { skipGpu: true })
const recs = result.requests as RequestRecord[]
const send: number[] = [], first: number[] = [], chunk: number[] = []
recs.forEach((r, i) => { const e = sim.schedule[i]!; send.push(e.arrivedAt - r.sentAt); first.push(r.firstTokenAt! - e.firstTokenAt!); r.chunkTimes.forEach((t, k) => chunk.push(t - e.chunkTimes[k]!)) })
const q = (a: number[]) => { const s = [...a].sort((x, y) => x - y); return [s[0], s[Math.floor(s.length / 2)], s[Math.floor(s.length * 0.9)], s.at(-1)].map((v) => v!.toFixed(2)).join(' ') }
console.log('send->arrive', q(send)); console.log('write->seen first', q(first)); console.log('write->seen all', q(chunk))
await sim.close()
