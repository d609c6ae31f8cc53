/**
 * A soak on a real llama-server through `vitest bench`: per window the figures, the trends with their
 * intervals and the verdict; with `--hogs N --hogs-at-ms T`, N busy loops start T ms into the run
 * (two CPU-bound processes half-way: the trend check must say the machine changed, not blame the server).
 *
 *   npm exec -- node perf/llama-soak.ts [--duration-ms 600000] [--window-ms 30000] [--limit +100%/h]
 *                                       [--hogs 2 --hogs-at-ms 300000] [--server-args="--cache-ram 0"]
 *
 * Needs the llama-server build (scripts/llama/build.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { BenchmarkResult } from '../src/core/contract/types.ts'
import { formatSoak } from '../src/core/soak/index.ts'
import { llamaBuild, llamaServerPids, spawnLlamaBench } from './lib/llama-bench-run.ts'
import { renderHtml, type ReportEntry } from '../reporters/index.ts'
import { writeFileSync } from 'node:fs'

const { values } = parseArgs({
  options: {
    'duration-ms': { type: 'string', default: '600000' },
    'window-ms': { type: 'string', default: '30000' },
    limit: { type: 'string', default: '+100%/h' },
    hogs: { type: 'string', default: '0' },
    'hogs-at-ms': { type: 'string', default: '0' },
    'server-args': { type: 'string', default: '' },
  },
})
const manifest = llamaBuild()
const report = path.join(mkdtempSync(path.join(os.tmpdir(), 'llama-soak-')), 'report.json')

const started = performance.now()
const at = () => (performance.now() - started) / 1000
const hogs: ChildProcess[] = []
const child = spawnLlamaBench(
  'perf/llama-soak/soak.bench-llama.ts',
  {
    LLAMA_SOAK_SERVER: manifest.serverPath,
    LLAMA_SOAK_MODEL: manifest.modelPath,
    LLAMA_SOAK_DURATION_MS: values['duration-ms'],
    LLAMA_SOAK_WINDOW_MS: values['window-ms'],
    LLAMA_SOAK_LIMIT: values.limit,
    LLAMA_SOAK_ARGS: values['server-args'],
  },
  report,
)
let hogsAt: number | undefined
const onData = (chunk: Buffer) => {
  const text = chunk.toString()
  for (const line of text.split('\n'))
    if (/soak window|Soak:|FAIL|ok {2}|\?\? {2}|note:|trends/.test(line))
      console.log(`[${at().toFixed(0)} s] ${line.trim()}`)
  // The hogs start relative to the first window line's run, i.e. to the load's start (first window line minus one window).
  if (hogsAt === undefined && Number(values.hogs) > 0 && /soak window 1\//.test(text)) {
    hogsAt = Math.max(0, Number(values['hogs-at-ms']) - Number(values['window-ms']))
    setTimeout(() => {
      for (let i = 0; i < Number(values.hogs); i++)
        hogs.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }))
      console.log(`[${at().toFixed(0)} s] started ${values.hogs} CPU hogs`)
    }, hogsAt)
  }
}
child.stdout.on('data', onData)
child.stderr.on('data', onData)
const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
for (const hog of hogs) hog.kill('SIGKILL')
await new Promise((resolve) => setTimeout(resolve, 1000))
const left = llamaServerPids(manifest.serverPath)
for (const pid of left) process.kill(pid, 'SIGKILL')

const benches = (
  JSON.parse(readFileSync(report, 'utf8')) as { benches: Array<ReportEntry & { result: BenchmarkResult }> }
).benches
const bench = benches[0]
const html = report.replace(/\.json$/, '.html')
writeFileSync(html, renderHtml(benches))
const soak = bench?.result.soak
console.log('')
if (soak) {
  console.log('window  completed  TTFT p50  TTFT p99  E2E p50  tok/s  other cores  steal')
  for (const [i, w] of soak.windows.entries()) {
    console.log(
      [
        String(i + 1).padStart(6),
        String(w.completed).padStart(10),
        (w.ttftMs?.p50.toFixed(1) ?? '-').padStart(9),
        (w.ttftMs?.p99.toFixed(1) ?? '-').padStart(9),
        (w.e2eMs?.p50.toFixed(1) ?? '-').padStart(8),
        w.outputTokensPerSec.toFixed(1).padStart(6),
        (w.otherCores?.toFixed(2) ?? '-').padStart(12),
        `${((w.stealShare ?? 0) * 100).toFixed(2)} %`.padStart(6),
      ].join(' '),
    )
  }
  console.log(formatSoak(soak))
}
console.log(
  `exit ${code} | ${bench?.result.counts.completed} of ${bench?.result.counts.total} completed | ` +
    `${at().toFixed(0)} s | llama-server left: ${left.length} | ${html}`,
)
