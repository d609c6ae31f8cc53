/**
 * A p99 SLO judged on its 95 % distribution-free bounds, on llama-server through `vitest bench`:
 * 100 requests (too few for any upper bound), 400 far below the limit, 400 far above it. Prints each
 * bench's SLO check as the JSON report holds it.
 *
 *   npm exec -- node perf/llama-slo.ts [--hogs 2]
 *
 * Needs the llama-server build (scripts/llama/build.ts).
 */
import { parseArgs } from 'node:util'
import { llamaBuild, runLlamaBench } from './lib/llama-bench-run.ts'

const { values } = parseArgs({ options: { hogs: { type: 'string', default: '0' } } })
const build = llamaBuild()
const { code, report } = runLlamaBench(
  'perf/llama-slo/slo.bench-llama.ts',
  { LLAMA_SLO_SERVER: build.serverPath, LLAMA_SLO_MODEL: build.modelPath },
  Number(values.hogs),
)
interface Bench {
  name: string
  status: string
  sloChecks?: Array<{ status: string; message: string }>
  result: { client: { selfCheck?: { disturbed: string[] } } }
}
const benches = (report as { benches: Bench[] }).benches
for (const bench of benches) {
  const disturbed = bench.result.client.selfCheck?.disturbed.join('; ')
  console.log(
    `${bench.name}: ${bench.sloChecks?.map((check) => `${check.status.toUpperCase()}: ${check.message}`).join(' | ')}${disturbed ? ` [disturbed: ${disturbed}]` : ''}`,
  )
}
console.log(`exit ${code}`)
