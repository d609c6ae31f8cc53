import { comparePeer, findPython, formatPeerRows } from './peer-aiohttp.ts'
import { startChildServer } from './lib/child-server.ts'
const server = await startChildServer('scripted', { mode: 'timed', ttftMs: 20, itlMs: Number(process.env.ITL ?? 10) })
const rows = []
for (const s of (process.env.C ?? '256').split(',').map(Number)) rows.push(await comparePeer(findPython()!, server, 'paced', s, s * 4, 64))
console.log(formatPeerRows(rows))
await server.close()
