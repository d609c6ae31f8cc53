/**
 * Where llama-server's speed moves on this machine: between launches, or within one. Starts llama-server
 * (the build's tiny model, `-t 1 -np 1`) on CPU 1 alone and sends it one request at a time from CPU 0
 * (64 tokens out, `ignore_eos`, not streamed). Prints, for one launch kept up `--hold` seconds, the
 * median request time of every 2-second window, then the median of each of `--launches` short launches
 * (`--each` seconds apart), and beside each window the CPU calibration of the self-check measured on
 * the client's core (whether it sees the move). Last, two launches up at once on that core, loaded in turn
 * (`--each` seconds each, A B, B A, …): the spread of a pair that is two slices seconds apart, against
 * a pair that is two launches in a row.
 *
 *   npm exec -- node perf/llama-speed-phases.ts [--hold 90] [--launches 15] [--each 3]
 *
 * Needs the llama-server build (scripts/llama/build.ts) and `taskset`.
 */
import { spawn, spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { getFreePort } from '../src/core/server/index.ts'
import { waitForReady } from '../src/core/client/index.ts'
import { calibrateCpu } from '../src/core/telemetry/cpu-calibration.ts'
import { findLlamaArtifacts } from '../scripts/llama/llama-cache.ts'
import { spreadOf } from './lib/percentiles.ts'

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
const artifacts = findLlamaArtifacts()
if (!artifacts.found) throw new Error(artifacts.reason)
const { manifest } = artifacts
const WINDOW_MS = 2000
const median = (xs: number[]): number => spreadOf(xs).p50

/** llama-server on CPU 1 alone, ready; `stop` kills it. */
async function startLlama(): Promise<{ baseUrl: string; stop: () => void }> {
  const port = await getFreePort()
  const args = ['-m', manifest.modelPath, '-t', '1', '-np', '1', '-c', '2048', '--host', '127.0.0.1']
  const server = spawn('taskset', ['-c', '1', manifest.serverPath, ...args, '--port', String(port)], {
    stdio: 'ignore',
  })
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitForReady(baseUrl, { timeoutMs: 60_000, intervalMs: 100 })
  } catch (error) {
    server.kill('SIGKILL')
    throw error
  }
  return { baseUrl, stop: () => server.kill('SIGKILL') }
}

/** Requests one at a time for `ms`: their median time (ms). */
async function medianRequestMs(baseUrl: string, ms: number): Promise<number> {
  const times: number[] = []
  const started = performance.now()
  while (performance.now() - started < ms) {
    const sent = performance.now()
    const response = await fetch(`${baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'the quick brown fox', max_tokens: 64, ignore_eos: true, temperature: 0 }),
    })
    await response.json()
    times.push(performance.now() - sent)
  }
  return median(times)
}

/** One launch kept up `seconds`: the median request time (ms) and the client core's CPU calibration (ms) per window. */
async function launch(seconds: number): Promise<Array<{ requestMs: number; calibrationMs: number }>> {
  const server = await startLlama()
  try {
    const windows: Array<{ requestMs: number; calibrationMs: number }> = []
    const started = performance.now()
    while (performance.now() - started < seconds * 1000)
      windows.push({ requestMs: await medianRequestMs(server.baseUrl, WINDOW_MS), calibrationMs: calibrateCpu() })
    return windows
  } finally {
    server.stop()
  }
}

const spread = (xs: number[]): string =>
  `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)} ms (${(Math.max(...xs) / Math.min(...xs)).toFixed(2)}x)`
/** The sd of the log-ratios of pairs (second / first), in %. */
const pairSd = (pairs: Array<[number, number]>): string => {
  if (pairs.length < 2) return `not computed on ${pairs.length} pair${pairs.length === 1 ? '' : 's'}`
  const logs = pairs.map(([a, b]) => Math.log(b / a))
  const mean = logs.reduce((sum, x) => sum + x, 0) / logs.length
  const sd = Math.sqrt(logs.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (logs.length - 1))
  return `${(sd * 100).toFixed(1)} % over ${pairs.length} pairs`
}

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
const launchPairs = launches.flatMap((ms, i): Array<[number, number]> => {
  const next = launches[i + 1]
  return i % 2 === 0 && next !== undefined ? [[ms, next]] : []
})
console.log(`  launches: ${spread(launches)}; two launches in a row as a pair: sd of log-ratio ${pairSd(launchPairs)}`)

// Two launches up at once, on the same core, loaded in turn for `--each` seconds (A B B A …): a pair
// is two slices a few seconds apart, whatever the launches.
const [a, b] = [await startLlama(), await startLlama()]
try {
  const slices: Array<[number, number]> = []
  for (let i = 0; i < Number(values.launches); i++) {
    const first = i % 2 === 0 ? a : b
    const second = i % 2 === 0 ? b : a
    const x = await medianRequestMs(first.baseUrl, Number(values.each) * 1000)
    const y = await medianRequestMs(second.baseUrl, Number(values.each) * 1000)
    slices.push(i % 2 === 0 ? [x, y] : [y, x])
  }
  console.log(`two launches up at once, ${values.launches} pairs of ${values.each} s slices (A B, B A, …), B / A:`)
  console.log(`  ${slices.map(([x, y]) => (y / x).toFixed(3)).join(' ')}`)
  console.log(`  slices: ${spread(slices.flat())}; sd of log-ratio ${pairSd(slices)}`)
} finally {
  a.stop()
  b.stop()
}
