/**
 * What makes the client late when the bench launches llama-server: the same closed-loop load
 * (4 streams, 300 requests, 64 in / 32 out) against llama-server started four ways, printing the
 * client's lateness (share of requests above 5 ms, p99) and event-loop delay p99 for each.
 *
 *   npm exec -- node perf/launch-lateness.ts [rounds]
 */
import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { runBenchmark } from '../src/core/run.ts'
import { getFreePort, llamaCpp, startServer } from '../src/core/server/index.ts'
import { waitForReady } from '../src/core/client/index.ts'
import type { BenchmarkResult } from '../src/core/contract/types.ts'
import { findLlamaArtifacts } from '../scripts/llama/llama-cache.ts'

const artifacts = findLlamaArtifacts()
if (!artifacts.found) throw new Error(artifacts.reason)
const { manifest } = artifacts
const args = ['-t', '2', '-np', '4', '-c', '4096']
const rounds = Number(process.argv[2] ?? 1)

async function measure(baseUrl: string): Promise<BenchmarkResult> {
  return runBenchmark(
    {
      target: { baseUrl },
      workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 }, ignoreEos: true },
      load: { concurrency: 4, requests: 300 },
      warmup: { requests: 8 },
      seed: 1,
    },
    { skipGpu: true },
  )
}

async function viaSpawn(detached: boolean, ownGroup: boolean): Promise<BenchmarkResult> {
  const port = await getFreePort('127.0.0.1')
  // Own process group in the same session: perl's setpgrp, then exec (same pid).
  const command = ownGroup ? 'perl' : manifest.serverPath
  const argv = [
    ...(ownGroup ? ['-e', 'setpgrp(0, 0); exec { $ARGV[0] } @ARGV or die $!', manifest.serverPath] : []),
    '-m',
    manifest.modelPath,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    ...args,
  ]
  const child = spawn(command, argv, { detached, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout.resume()
  child.stderr.resume()
  try {
    await waitForReady(`http://127.0.0.1:${port}`, { timeoutMs: 30_000 })
    return await measure(`http://127.0.0.1:${port}`)
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}

async function viaStartServer(): Promise<BenchmarkResult> {
  const server = await startServer(
    llamaCpp({
      bin: manifest.serverPath,
      modelPath: manifest.modelPath,
      args,
      logDir: path.join(os.tmpdir(), 'launch-lateness-logs'),
    }),
    { print: () => {} },
  )
  try {
    return await measure(server.baseUrl)
  } finally {
    await server.stop()
  }
}

const ways: Array<[string, () => Promise<BenchmarkResult>]> = [
  ['spawn, same session', () => viaSpawn(false, false)],
  ['spawn, same session, own process group', () => viaSpawn(false, true)],
  ['spawn, detached (setsid)', () => viaSpawn(true, false)],
  ['startServer (execa, own group via perl setpgrp)', viaStartServer],
]
console.log('way | late requests (>5 ms) | lateness p99 ms | event-loop delay p99 ms | read in one burst | TTFT p50 ms')
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of ways) {
    const r = await run()
    const late = r.client.lateness
    console.log(
      `${name} | ${late?.lateRequests}/${late?.watchedRequests} | ${late?.p99Ms.toFixed(1)} | ${r.client.eventLoopDelayMs?.p99.toFixed(1)} | ${r.streaming.burstRequests} | ${r.metrics.ttftMs.p50.toFixed(2)}`,
    )
  }
}
