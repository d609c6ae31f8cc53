// Entry of a server child process for the perf suite: `node perf/lib/server-process.ts <kind> [options JSON]`
// with kind `scripted` (perf/lib/scripted-server.ts) or `sim` (the built-in simulator from the
// sources). Prints `listening <url>` once it accepts connections and runs until killed.
import { startSimulator } from '../../src/sim/index.ts'
import type { SimulatorOptions } from '../../src/sim/index.ts'
import { startScriptedServer } from './scripted-server.ts'
import type { ScriptedServerConfig } from './scripted-server.ts'

const kind = process.argv[2]
const options = JSON.parse(process.argv[3] ?? '{}') as Record<string, unknown>
let url: string
if (kind === 'scripted') {
  // `port` and `reusePort` are where to listen, not part of the script (see startChildServer's processes).
  const { port, reusePort, ...config } = options
  url = (
    await startScriptedServer(
      config as Partial<ScriptedServerConfig>,
      typeof port === 'number' ? port : 0,
      reusePort === true,
    )
  ).url
} else if (kind === 'sim') url = (await startSimulator({ port: 0, ...(options as SimulatorOptions) })).url
else throw new Error(`unknown server kind ${String(kind)}: use scripted or sim`)
console.log(`listening ${url}`)
// A clean exit on SIGTERM, so `--cpu-prof` (e.g. via NODE_OPTIONS) writes its profile.
process.on('SIGTERM', () => process.exit(0))
