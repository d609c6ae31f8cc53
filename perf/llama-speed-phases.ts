/**
 * Where llama-server's speed moves on this machine: between launches, or within one. Starts llama-server
 * (the build's tiny model, `-t 1 -np 1`) on CPU 1 alone and sends it one request at a time from CPU 0
 * (64 tokens out, `ignore_eos`, not streamed). Prints, for one launch kept up `--hold` seconds, the
 * median request time of every 2-second window, then the median of each of `--launches` short launches
 * (`--each` seconds apart), and beside each window the CPU calibration of the self-check measured on
 * the client's core (whether it sees the move).
 *
 *   npm exec -- node perf/llama-speed-phases.ts [--hold 90] [--launches 15] [--each 3]
 *
 * Needs the llama-server build (scripts/llama/build.ts) and `taskset`.
 */
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { getFreePort } from '../src/core/server/index.ts'
import { waitForReady } from '../src/core/client/index.ts'
import { calibrateCpu } from '../src/core/telemetry/cpu-calibration.ts'

const { values } = parseArgs({
  options: {
    hold: { type: 'string', default: '90' },
    launches: { type: 'string', default: '15' },
    each: { type: 'string', default: '3' },
  },
})
// The client on CPU 0: re-run this script there once.
if (process.env.LLAMA_SPEED_PHASES_PINNED === undefined) {
  const self = spawnSync('taskset', ['-c', '0', process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, LLAMA_SPEED_PHASES_PINNED: '1' },
  })
  process.exit(self.status ?? 1)
}
const cache =
  process.env.VITEST_LLM_BENCH_CACHE_DIR ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'vitest-llm-bench')
const manifest = JSON.parse(readFileSync(path.join(cache, 'llama-v0.4.0', 'manifest.json'), 'utf8')) as {
  serverPath: string
  modelPath: string
}
const WINDOW_MS = 2000
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

/** One launch kept up `seconds`: the median request time (ms) and the client core's CPU calibration (ms) per window. */
async function launch(seconds: number): Promise<Array<{ requestMs: number; calibrationMs: number }>> {
  const port = await getFreePort()
  const server = spawn(
    'taskset',
    ['-c', '1', manifest.serverPath, '-m', manifest.modelPath, '-t', '1', '-np', '1', '-c', '2048'].concat([
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
    ]),
    { stdio: 'ignore' },
  )
  try {
    const baseUrl = `http://127.0.0.1:${port}`
    await waitForReady(baseUrl, { timeoutMs: 60_000, intervalMs: 100 })
    const windows: Array<{ requestMs: number; calibrationMs: number }> = []
    const started = performance.now()
    while (performance.now() - started < seconds * 1000) {
      const times: number[] = []
      const windowStarted = performance.now()
      while (performance.now() - windowStarted < WINDOW_MS) {
        const sent = performance.now()
        const response = await fetch(`${baseUrl}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'the quick brown fox', max_tokens: 64, ignore_eos: true, temperature: 0 }),
        })
        await response.json()
        times.push(performance.now() - sent)
      }
      windows.push({ requestMs: median(times), calibrationMs: calibrateCpu() })
    }
    return windows
  } finally {
    server.kill('SIGKILL')
  }
}

const spread = (xs: number[]): string =>
  `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)} ms (${(Math.max(...xs) / Math.min(...xs)).toFixed(2)}x)`
const held = await launch(Number(values.hold))
console.log(`one launch, ${values.hold} s, median request time per 2 s window (ms) / CPU calibration (ms):`)
console.log(`  ${held.map((w) => `${w.requestMs.toFixed(1)}/${w.calibrationMs.toFixed(0)}`).join(' ')}`)
console.log(
  `  windows: ${spread(held.map((w) => w.requestMs))}; calibration: ${spread(held.map((w) => w.calibrationMs))}`,
)
const launches: number[] = []
for (let i = 0; i < Number(values.launches); i++) {
  const windows = await launch(Number(values.each))
  launches.push(median(windows.map((w) => w.requestMs)))
}
console.log(`${values.launches} launches of ${values.each} s, median request time of each (ms):`)
console.log(`  ${launches.map((ms) => ms.toFixed(1)).join(' ')}`)
console.log(`  launches: ${spread(launches)}`)
