/**
 * A sweep over llama-server's -np (1, 2, 4, 8 slots) at 8 streams through `vitest bench`: a server per value.
 * Prints the curve and knee as the JSON report holds them, each point's -np and port, the wall time, and the
 * llama-server processes left afterwards (there must be none).
 *
 *   npm exec -- node perf/llama-sweep.ts [--hogs 2]
 *
 * Needs the llama-server build (scripts/llama/build.ts).
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { hogs: { type: 'string', default: '0' } } })
const cache =
  process.env.VITEST_LLM_BENCH_CACHE_DIR ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'vitest-llm-bench')
const manifest = JSON.parse(readFileSync(path.join(cache, 'llama-v0.4.0', 'manifest.json'), 'utf8')) as {
  serverPath: string
  modelPath: string
}
const root = path.resolve(import.meta.dirname, '..')
const report = path.join(mkdtempSync(path.join(os.tmpdir(), 'llama-sweep-')), 'report.json')
const hogs = Array.from({ length: Number(values.hogs) }, () =>
  spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
)
const started = performance.now()
let code: number | null
try {
  code = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/vitest/vitest.mjs'), 'bench', '--run', '--config', 'perf/llama-bench.config.ts'],
    {
      cwd: root,
      stdio: 'ignore',
      env: {
        ...process.env,
        CI: '',
        LLAMA_SWEEP_SERVER: manifest.serverPath,
        LLAMA_SWEEP_MODEL: manifest.modelPath,
        LLAMA_BENCH_FILE: 'perf/llama-sweep/np.bench-llama.ts',
        LLAMA_BENCH_REPORT: report,
      },
    },
  ).status
} finally {
  for (const hog of hogs) hog.kill('SIGKILL')
}
const seconds = (performance.now() - started) / 1000
interface Point {
  name: string
  result: {
    config: { target?: { baseUrl?: string } }
    environment: { server: { launch?: { args: string[] } } }
    client: { selfCheck?: { disturbed: string[] } }
    throughput: { outputTokensPerSec: number }
    metrics: Record<'ttftMs' | 'tpotMs' | 'e2eMs', { p50: number; p99: number }>
  }
}
interface Sweep {
  name: string
  status: string
  headlines: string[]
}
const parsed = JSON.parse(readFileSync(report, 'utf8')) as { benches: Point[]; sweeps?: Sweep[] }
for (const sweep of parsed.sweeps ?? []) {
  console.log(`${sweep.name}: ${sweep.status}`)
  for (const line of sweep.headlines) console.log(line)
}
const ms = (value: number) => value.toFixed(1).padStart(7)
for (const point of parsed.benches) {
  const args = point.result.environment.server.launch?.args ?? []
  const disturbed = point.result.client.selfCheck?.disturbed.join('; ')
  const { ttftMs, tpotMs, e2eMs } = point.result.metrics
  console.log(
    `-np ${args[args.indexOf('-np') + 1]}: ${point.result.throughput.outputTokensPerSec.toFixed(0).padStart(5)} out tok/s, ` +
      `TTFT p50/p99 ${ms(ttftMs.p50)} ${ms(ttftMs.p99)} ms, TPOT p50 ${ms(tpotMs.p50)} ms, E2E p50 ${ms(e2eMs.p50)} ms, ` +
      `${point.result.config.target?.baseUrl}${disturbed ? ` [disturbed: ${disturbed}]` : ''}`,
  )
}
const left = spawnSync('pgrep', ['-f', manifest.serverPath], { encoding: 'utf8' }).stdout.trim()
console.log(`llama-server processes left: ${left === '' ? 'none' : left.split('\n').join(', ')}`)
console.log(`exit ${code} in ${seconds.toFixed(1)} s`)
