/**
 * A hung server, for real: runs perf/llama-stall/'s bench on llama-server through `vitest bench`,
 * stops the server with SIGSTOP once requests complete, and measures when the progress line names
 * the silence, when the run ends, what the JSON report kept, and whether any process is left.
 *
 *   npm exec -- node perf/llama-stall.ts [--stall-timeout-ms 15000] [--hogs 2]
 *
 * Needs the llama-server build (scripts/llama/build.ts). `--hogs N` runs N busy loops beside it.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { llamaBuild, llamaServerPids, spawnLlamaBench } from './lib/llama-bench-run.ts'

const { values } = parseArgs({
  options: {
    'stall-timeout-ms': { type: 'string', default: '15000' },
    hogs: { type: 'string', default: '0' },
    'stop-after-ms': { type: 'string', default: '6000' },
  },
})
const stallTimeoutMs = Number(values['stall-timeout-ms'])
const manifest = llamaBuild()
const report = path.join(mkdtempSync(path.join(os.tmpdir(), 'llama-stall-')), 'report.json')

const hogs = Array.from({ length: Number(values.hogs) }, () =>
  spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
)
const started = performance.now()
const at = () => (performance.now() - started) / 1000
const child = spawnLlamaBench(
  'perf/llama-stall/stall.bench-llama.ts',
  {
    LLAMA_STALL_SERVER: manifest.serverPath,
    LLAMA_STALL_MODEL: manifest.modelPath,
    LLAMA_STALL_TIMEOUT_MS: String(stallTimeoutMs),
  },
  report,
)
let stoppedAt: number | undefined
let noticedAt: number | undefined
let output = ''
const onData = (chunk: Buffer) => {
  const text = chunk.toString()
  output += text
    .split('\n')
    .map((line) => (line.trim() === '' ? line : `[${at().toFixed(1)} s] ${line}`))
    .join('\n')
  if (noticedAt === undefined && stoppedAt !== undefined && text.includes('no byte from the server')) noticedAt = at()
  // Stop the server a few seconds into the measurement (the first progress line means requests complete).
  if (stoppedAt === undefined && /\d+\/2000 requests/.test(text)) {
    setTimeout(() => {
      for (const pid of llamaServerPids(manifest.serverPath)) process.kill(pid, 'SIGSTOP')
      stoppedAt = at()
      console.log(`SIGSTOP at ${stoppedAt.toFixed(1)} s`)
    }, Number(values['stop-after-ms']))
  }
}
child.stdout.on('data', onData)
child.stderr.on('data', onData)
const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
const endedAt = at()
for (const hog of hogs) hog.kill('SIGKILL')
await new Promise((resolve) => setTimeout(resolve, 1000))
const left = llamaServerPids(manifest.serverPath)
for (const pid of left) process.kill(pid, 'SIGKILL')

const bench = (
  JSON.parse(readFileSync(report, 'utf8')) as {
    benches: Array<{
      state: string
      result: { counts: { completed: number; total: number }; stall?: { silentMs: number; inFlight: number } }
    }>
  }
).benches[0]
const lines = output
  .split('\n')
  .filter((line) =>
    /no byte from the server|stopped answering|✓|×|FAIL|Duration|SIGKILL|SIGTERM|stopped|killed/.test(line),
  )
console.log(lines.map((line) => `  | ${line.trim().slice(0, 240)}`).join('\n'))
console.log(
  [
    `exit ${code}`,
    `stallTimeoutMs ${stallTimeoutMs}`,
    `SIGSTOP at ${stoppedAt?.toFixed(1)} s`,
    `silence named ${noticedAt !== undefined && stoppedAt !== undefined ? `${(noticedAt - stoppedAt).toFixed(1)} s after` : 'never'}`,
    `exited ${stoppedAt !== undefined ? `${(endedAt - stoppedAt).toFixed(1)} s after the SIGSTOP` : ''}`,
    `report: ${bench?.state}, ${bench?.result.counts.completed} of ${bench?.result.counts.total} completed, stall ${JSON.stringify(bench?.result.stall)}`,
    `llama-server left: ${left.length}`,
  ].join(' | '),
)
