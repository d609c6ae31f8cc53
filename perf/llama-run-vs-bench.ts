/**
 * `vitest-llm-bench run --base-url` against `bench.llm` with the same options, on one llama-server of the project's
 * build kept up for the whole script (issue 50: "the same figures as a bench with the same options, within the
 * run-to-run spread"), then `diff` of two `run` results. Interleaved run, bench, run, bench, … so both meet the same
 * phases of the host.
 *
 *   npm exec -- node perf/llama-run-vs-bench.ts [--rounds 4] [--requests 200] [--hogs 0] [--out /tmp/run-vs-bench]
 *
 * Prints each measurement's TTFT, TPOT and E2E p50 and output tokens/s, each kind's geometric mean and spread, the
 * ratio bench / run with the spread it should be judged against, and the `diff` command's exit code and lines.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { cpuTimes, llamaBuild, runLlamaBench, stealSince } from './lib/llama-bench-run.ts'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    requests: { type: 'string', default: '200' },
    hogs: { type: 'string', default: '0' },
    out: { type: 'string', default: '/tmp/run-vs-bench' },
    port: { type: 'string', default: '8931' },
  },
})
const rounds = Number(values.rounds)
const requests = Number(values.requests)
const hogs = Number(values.hogs)
const out = path.resolve(values.out)
const root = path.resolve(import.meta.dirname, '..')
mkdirSync(out, { recursive: true })
const { serverPath, modelPath } = llamaBuild()
const url = `http://127.0.0.1:${values.port}`

const server = spawn(
  serverPath,
  ['-m', modelPath, '-t', '2', '-np', '4', '-c', '4096', '--host', '127.0.0.1', '--port', values.port],
  {
    stdio: 'ignore',
  },
)
const stop = (): void => {
  server.kill('SIGTERM')
}
process.on('exit', stop)
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))

async function ready(): Promise<void> {
  const until = Date.now() + 60_000
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/health`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`llama-server did not answer ${url}/health within 60 s`)
}

interface Figures {
  ttft: number
  tpot: number
  e2e: number
  tokS: number
  seconds: number
  steal: number | undefined
}

type Report = {
  benches: {
    result: {
      metrics: Record<string, { p50: number }>
      throughput: { outputTokensPerSec: number }
      counts: { completed: number }
    }
  }[]
}

function figuresOf(report: Report, seconds: number, steal: number | undefined): Figures {
  const result = report.benches[0]?.result
  if (!result) throw new Error('the report has no bench')
  return {
    ttft: result.metrics.ttftMs?.p50 ?? Number.NaN,
    tpot: result.metrics.tpotMs?.p50 ?? Number.NaN,
    e2e: result.metrics.e2eMs?.p50 ?? Number.NaN,
    tokS: result.throughput.outputTokensPerSec,
    seconds,
    steal,
  }
}

const flags = [
  '--max-concurrency',
  '4',
  '--num-prompts',
  String(requests),
  '--random-input-len',
  '64',
  '--random-output-len',
  '32',
  '--num-warmups',
  '8',
  '--seed',
  '1',
]

function runOnce(round: number): Figures {
  const dir = path.join(out, `run-${round}`)
  const busy = Array.from({ length: hogs }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }))
  const before = cpuTimes()
  const started = performance.now()
  try {
    const done = spawnSync(
      process.execPath,
      [path.join(root, 'bin/vitest-llm-bench.js'), 'run', '--base-url', url, ...flags, '--out', dir],
      { cwd: root, encoding: 'utf8', env: { ...process.env, CI: '' } },
    )
    if (done.status !== 0) throw new Error(`run exited ${done.status}: ${done.stderr}`)
  } finally {
    for (const hog of busy) hog.kill('SIGKILL')
  }
  const seconds = (performance.now() - started) / 1000
  const report = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as Report
  return figuresOf(report, seconds, stealSince(before))
}

function benchOnce(): Figures {
  const measured = runLlamaBench(
    'perf/llama-run-vs-bench/same-options.bench-llama.ts',
    { LLAMA_RUN_URL: url, LLAMA_RUN_REQUESTS: String(requests) },
    hogs,
  )
  if (measured.code !== 0) throw new Error(`vitest bench exited ${measured.code}`)
  return figuresOf(measured.report as Report, measured.seconds, measured.steal)
}

const logMean = (values: readonly number[]): number => values.reduce((sum, v) => sum + Math.log(v), 0) / values.length
const logSd = (values: readonly number[]): number => {
  const mean = logMean(values)
  return Math.sqrt(values.reduce((sum, v) => sum + (Math.log(v) - mean) ** 2, 0) / (values.length - 1))
}
const line = (kind: string, round: number, f: Figures): string =>
  `${kind} ${round}: TTFT p50 ${f.ttft.toFixed(1)} ms, TPOT p50 ${f.tpot.toFixed(2)} ms, E2E p50 ${f.e2e.toFixed(1)} ms, ` +
  `${f.tokS.toFixed(0)} tok/s, ${f.seconds.toFixed(1)} s, steal ${((f.steal ?? 0) * 100).toFixed(2)} %`

await ready()
console.log(
  `llama-server ${url} (-t 2 -np 4 -c 4096), ${rounds} rounds of run and bench, ${requests} requests, hogs ${hogs}`,
)
const runs: Figures[] = []
const benches: Figures[] = []
for (let round = 1; round <= rounds; round++) {
  // Counterbalanced: run first in odd rounds, bench first in even ones.
  const order = round % 2 === 1 ? (['run', 'bench'] as const) : (['bench', 'run'] as const)
  for (const kind of order) {
    const figures = kind === 'run' ? runOnce(round) : benchOnce()
    ;(kind === 'run' ? runs : benches).push(figures)
    console.log(line(kind, round, figures))
  }
}
for (const key of ['ttft', 'tpot', 'e2e', 'tokS'] as const) {
  const r = runs.map((f) => f[key])
  const b = benches.map((f) => f[key])
  const ratio = Math.exp(logMean(b) - logMean(r))
  // The spread of one measurement, from both kinds pooled, and of the ratio of their means.
  const sd = Math.sqrt((logSd(r) ** 2 + logSd(b) ** 2) / 2)
  const ratioSd = sd * Math.sqrt(1 / r.length + 1 / b.length)
  console.log(
    `${key}: run ${Math.exp(logMean(r)).toFixed(2)} (sd ${(logSd(r) * 100).toFixed(1)} %), bench ` +
      `${Math.exp(logMean(b)).toFixed(2)} (sd ${(logSd(b) * 100).toFixed(1)} %), bench / run ${ratio.toFixed(3)} ` +
      `(±${(1.96 * ratioSd * 100).toFixed(1)} % at 2 sd of the ratio)`,
  )
}
const diff = spawnSync(
  process.execPath,
  [
    path.join(root, 'bin/vitest-llm-bench.js'),
    'diff',
    path.join(out, 'run-1', 'results.json'),
    path.join(out, 'run-2', 'results.json'),
  ],
  { cwd: root, encoding: 'utf8', env: { ...process.env, CI: '' } },
)
const diffText = `${diff.stdout}${diff.stderr}`.trimEnd()
console.log(`diff run-1 run-2: exit ${diff.status}, ${diffText.split('\n').length} lines`)
console.log(diffText)
stop()
process.exit(0)
