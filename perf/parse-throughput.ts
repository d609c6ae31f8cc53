// How many streamed events per second one client process parses, against the simulator at
// speed factor 0 (no modeled delay) running in a separate process, so the figure is the
// client's alone. Prints one line per concurrency. Run: npm run perf:parse
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { runBenchmark } from '../src/core/run.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const outputTokens = Number(process.env.PERF_OUTPUT_TOKENS ?? 512)
const requests = Number(process.env.PERF_REQUESTS ?? 400)
const concurrencies = (process.env.PERF_CONCURRENCY ?? '1,16,64').split(',').map(Number)

const sim = spawn(process.execPath, ['bin/vitest-llm-bench.js', 'sim', '--port', '0', '--speed', '0', '--max-seqs', '4096'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
const url = await new Promise<string>((resolve, reject) => {
  let seen = ''
  // Keep reading after the URL: a closed pipe would kill the simulator on its next line.
  sim.stdout.on('data', (chunk: Buffer) => {
    seen += String(chunk)
    const match = /http:\/\/127\.0\.0\.1:\d+/.exec(seen)
    if (match) resolve(match[0])
  })
  sim.once('exit', (code) => reject(new Error(`the simulator exited (${code}) before printing its URL`)))
})
if (!url) throw new Error('the simulator did not print its URL')

try {
  console.log(`client: ${process.release.name} ${process.version}; ${requests} requests x ${outputTokens} output tokens per concurrency`)
  for (const concurrency of concurrencies) {
    const cpuBefore = process.cpuUsage()
    const result = await runBenchmark(
      {
        target: { baseUrl: url },
        workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: outputTokens } },
        load: { concurrency, requests },
        warmup: { requests: Math.min(concurrency, 16) },
      },
      { skipGpu: true },
    )
    const cpu = process.cpuUsage(cpuBefore)
    // Content-bearing events: one per output token here (the simulator sends one token per chunk).
    const events = result.metrics.outputTokens.mean * result.counts.completed
    const seconds = result.durationMs / 1000
    const cpuUs = cpu.user + cpu.system
    console.log(
      `concurrency ${String(concurrency).padStart(4)}: ${Math.round(events / seconds).toLocaleString('en-US').padStart(9)} events/s, ` +
        `${(cpuUs / events).toFixed(2)} client CPU us/event, ${result.counts.failed} failed, ${seconds.toFixed(2)} s`,
    )
  }
} finally {
  sim.kill('SIGTERM')
  await once(sim, 'exit')
}
