/**
 * Verdicts on the real llama-server, through `vitest bench` as users run it: records a baseline
 * (`-u`), then runs the benches of perf/llama-verdicts/ again and again (each run launches, and so
 * restarts, llama-server), and prints each run's verdicts and a summary.
 *
 *   npm exec -- node perf/llama-verdicts.ts --dir /tmp/lv --record
 *   npm exec -- node perf/llama-verdicts.ts --dir /tmp/lv --runs 10 [--extra="-ub 1"] [--hogs 2] [--label quiet]
 *     [--add-session] [--every <s>]
 *
 * Needs the llama-server build (scripts/llama/build.ts). `--hogs N` runs N busy loops beside the
 * runs (killed by their PIDs afterwards). `--add-session` counts each judged run as one more session of the stored
 * baselines (LLM_BENCH_ADD_SESSION=1); `--every <s>` starts a run every that many seconds (a schedule over time).
 * Each judged check is printed twice: as judged (with the between-session spread) and as the same check judged
 * on one recording's trials alone (`before`: the verdict before stored baselines knew sessions), from the same data.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, readFileSync, appendFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { findLlamaArtifacts } from '../scripts/llama/llama-cache.ts'
import { type BaselineEntry } from '../src/core/baseline/index.ts'
import { compare, parseRegressionPolicy, type RegressionPolicy } from '../src/core/verdict/index.ts'
import type { BenchmarkResult } from '../src/core/contract/result.ts'

/** Each bench's gates, as perf/llama-verdicts/verdict.bench-llama.ts sets them (for the verdict before sessions). */
const POLICIES: Record<string, RegressionPolicy> = {
  'closed loop, 4 streams': { e2eMs: { p50: '+10%' }, outputTokensPerSec: '-5%' },
  'open loop, 8 req/s': { ttftMs: { p50: '+10%', p99: '+10%' }, tpotMs: { p50: '+10%' } },
  'sessions, 4 users': { e2eMs: { p50: '+10%' }, outputTokensPerSec: '-5%' },
}

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: path.join(os.tmpdir(), 'llama-verdicts') },
    runs: { type: 'string', default: '1' },
    extra: { type: 'string', default: '' },
    hogs: { type: 'string', default: '0' },
    record: { type: 'boolean', default: false },
    label: { type: 'string', default: '' },
    'add-session': { type: 'boolean', default: false },
    every: { type: 'string', default: '0' },
    requests: { type: 'string', default: '300' },
  },
})
const dir = path.resolve(values.dir)
mkdirSync(dir, { recursive: true })
const artifacts = findLlamaArtifacts()
if (!artifacts.found) throw new Error(artifacts.reason)
const { manifest } = artifacts
const root = path.resolve(import.meta.dirname, '..')
const label = values.label || (values.record ? 'record' : values.extra ? `extra ${values.extra}` : 'unchanged')

interface Check {
  metric: string
  statistic: string
  status: string
  ratio: number | null
  ciLow: number | null
  ciHigh: number | null
  reason?: string
  trials?: { baseline: number; current: number }
}
interface Entry {
  name: string
  state: string
  verdict?: { status: string; checks: Check[] }
  baselineState?: string
  result: {
    trials?: unknown[]
    counts: { completed: number; total: number }
    client: { selfCheck?: { disturbed: string[]; otherCores?: number } }
    streaming: { burstRequests: number; evidence: string }
    metrics: { ttftMs: { count: number } }
  }
}

const hogs = Array.from({ length: Number(values.hogs) }, () =>
  spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
)
// Stopped early (Ctrl-C, kill): the hogs must not outlive the script.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const hog of hogs) hog.kill('SIGKILL')
    process.exit(130)
  })
}
const totals = new Map<string, number>()
const bump = (key: string) => totals.set(key, (totals.get(key) ?? 0) + 1)
try {
  for (let run = 1; run <= Number(values.runs); run++) {
    const report = path.join(dir, `report-${label.replace(/\W+/g, '_')}-${run}.json`)
    const started = performance.now()
    let exitCode = 0
    try {
      execFileSync(
        process.execPath,
        [
          path.join(root, 'node_modules/vitest/vitest.mjs'),
          'bench',
          '--run',
          '--config',
          'perf/llama-verdicts/vitest.config.ts',
          ...(values.record ? ['-u'] : []),
        ],
        {
          cwd: root,
          stdio: ['ignore', 'ignore', 'ignore'],
          env: {
            ...process.env,
            CI: '',
            LLAMA_VERDICT_SERVER: manifest.serverPath,
            LLAMA_VERDICT_MODEL: manifest.modelPath,
            LLAMA_VERDICT_EXTRA_ARGS: values.extra,
            LLAMA_VERDICT_REQUESTS: values.requests,
            LLAMA_VERDICT_BASELINE_DIR: path.join(dir, 'baselines'),
            LLAMA_VERDICT_REPORT: report,
            LLAMA_VERDICT_LOG_DIR: path.join(dir, 'logs'),
            LLM_BENCH_ADD_SESSION: values['add-session'] ? '1' : '',
          },
        },
      )
    } catch (error) {
      exitCode = (error as { status?: number }).status ?? 1
    }
    const seconds = (performance.now() - started) / 1000
    const entries = (JSON.parse(readFileSync(report, 'utf8')) as { benches: Entry[] }).benches
    const stored = (
      JSON.parse(readFileSync(path.join(dir, 'baselines', 'verdict.bench-llama.ts.json'), 'utf8')) as {
        entries: Record<string, BaselineEntry>
      }
    ).entries
    const parts = entries.map((entry) => {
      const checks = entry.verdict?.checks ?? []
      for (const check of checks) bump(`${entry.name} | ${check.metric} ${check.statistic} | ${check.status}`)
      bump(`${entry.name} | verdict | ${entry.verdict?.status ?? entry.baselineState ?? entry.state}`)
      const trials = entry.result.trials?.length ?? 1
      const r = entry.result
      const checkText = checks
        .map(
          (c) =>
            `${c.metric}.${c.statistic} ${c.status} ${c.ratio?.toFixed(3)} [${c.ciLow?.toFixed(3)}, ${c.ciHigh?.toFixed(3)}]`,
        )
        .join('; ')
      const disturbed = r.client.selfCheck?.disturbed.join('; ') ?? ''
      // The same run judged on the recording's trials alone, as before sessions.
      const policy = POLICIES[entry.name.replace(/^llama\.cpp > /, '')]
      const was = stored[entry.name]
      if (entry.verdict !== undefined && policy !== undefined && was !== undefined) {
        const before = compare(was, entry.result as unknown as BenchmarkResult, parseRegressionPolicy(policy))
        for (const c of before.checks) bump(`${entry.name} | ${c.metric} ${c.statistic} | before: ${c.status}`)
        bump(`${entry.name} | verdict | before: ${before.status}`)
      }
      for (const c of checks) {
        const sessions = (c as { sessions?: { count: number; spread: number; assumed: boolean } }).sessions
        if (sessions)
          bump(
            `${entry.name} | sessions ${sessions.count}${sessions.assumed ? ' (assumed)' : ` spread ${(sessions.spread * 100).toFixed(1)} %`}`,
          )
      }
      return `${entry.name}: ${entry.verdict?.status ?? entry.baselineState ?? entry.state} (${trials} trials, TTFT n ${r.metrics.ttftMs.count}/${r.counts.completed}, bursts ${r.streaming.burstRequests}, other cores ${r.client.selfCheck?.otherCores?.toFixed(2)}) ${checkText}${disturbed ? ` | disturbed: ${disturbed}` : ''}`
    })
    const line = `[${label}] run ${run}: exit ${exitCode}, ${seconds.toFixed(0)} s | ${parts.join(' || ')}`
    console.log(line)
    appendFileSync(path.join(dir, 'runs.log'), `${line}\n`)
    const wait = Number(values.every) * 1000 - (performance.now() - started)
    if (run < Number(values.runs) && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  }
} finally {
  for (const hog of hogs) hog.kill('SIGKILL')
}
console.log(`\nsummary [${label}]:`)
for (const [key, n] of [...totals].sort()) console.log(`  ${key}: ${n}`)
