/**
 * A p99 SLO judged on its 95 % distribution-free bounds, on llama-server through `vitest bench`:
 * 100 requests (too few for any upper bound), 400 far below the limit, 400 far above it. Prints each
 * bench's SLO check as the JSON report holds it.
 *
 *   npm exec -- node perf/llama-slo.ts [--hogs 2]
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
const report = path.join(mkdtempSync(path.join(os.tmpdir(), 'llama-slo-')), 'report.json')
const hogs = Array.from({ length: Number(values.hogs) }, () =>
  spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
)
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
        LLAMA_SLO_SERVER: manifest.serverPath,
        LLAMA_SLO_MODEL: manifest.modelPath,
        LLAMA_BENCH_FILE: 'perf/llama-slo/slo.bench-llama.ts',
        LLAMA_BENCH_REPORT: report,
      },
    },
  ).status
} finally {
  for (const hog of hogs) hog.kill('SIGKILL')
}
interface Bench {
  name: string
  status: string
  sloChecks?: Array<{ status: string; message: string }>
  result: { client: { selfCheck?: { disturbed: string[] } } }
}
const benches = (JSON.parse(readFileSync(report, 'utf8')) as { benches: Bench[] }).benches
for (const bench of benches) {
  const disturbed = bench.result.client.selfCheck?.disturbed.join('; ')
  console.log(
    `${bench.name}: ${bench.sloChecks?.map((check) => `${check.status.toUpperCase()}: ${check.message}`).join(' | ')}${disturbed ? ` [disturbed: ${disturbed}]` : ''}`,
  )
}
console.log(`exit ${code}`)
