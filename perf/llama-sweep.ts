/**
 * A sweep over llama-server's -np (1, 2, 4, 8 slots) at 8 streams through `vitest bench`: a server per value.
 * Prints the curve and knee as the JSON report holds them, each point's -np and port, the wall time, and the
 * llama-server processes left afterwards (there must be none).
 *
 *   npm exec -- node perf/llama-sweep.ts [--hogs 2]
 *
 * Needs the llama-server build (scripts/llama/build.ts).
 */
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { llamaBuild, runLlamaBench } from './lib/llama-bench-run.ts'

const { values } = parseArgs({ options: { hogs: { type: 'string', default: '0' } } })
const build = llamaBuild()
const { code, report, seconds, steal } = runLlamaBench(
  'perf/llama-sweep/np.bench-llama.ts',
  { LLAMA_SWEEP_SERVER: build.serverPath, LLAMA_SWEEP_MODEL: build.modelPath },
  Number(values.hogs),
)
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
const parsed = report as { benches: Point[]; sweeps?: Sweep[] }
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
const left = spawnSync('pgrep', ['-f', build.serverPath], { encoding: 'utf8' }).stdout.trim()
console.log(`llama-server processes left: ${left === '' ? 'none' : left.split('\n').join(', ')}`)
console.log(
  `exit ${code} in ${seconds.toFixed(1)} s; steal ${steal === undefined ? 'unknown' : `${(steal * 100).toFixed(2)} %`} of the CPU over the run`,
)
