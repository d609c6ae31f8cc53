import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { beforeAll, afterAll, describe, expect, test } from 'vitest'
import { historiesOfBaselines } from '../../src/core/history/bench-histories.ts'
import { baselineFileHistory } from '../../src/core/history/git-baselines.ts'
import { analyseHistory } from '../../src/core/history/history-analysis.ts'
import { toJsonReport } from '../../reporters/json-report.ts'
import type { ReportEntry } from '../../reporters/report-entry.ts'
import { environment, lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'
import {
  commitBaselineHistory,
  HISTORY_BASELINE_PATH,
  HISTORY_BENCH_NAME,
  type ScriptedBaseline,
} from '../helpers/history-repository.ts'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
// The command line from the sources (bin/ would run a dist/ that may be older than them).
const CLI =
  `import { runCli } from ${JSON.stringify(join(repoRoot, 'src', 'cli.ts'))}; ` +
  'process.exitCode = await runCli(process.argv.slice(1))'
const cli = (cwd: string, args: readonly string[]) =>
  execa(process.execPath, ['--input-type=module', '-e', CLI, '--', 'history', ...args], {
    cwd,
    reject: false,
    all: true,
  })

// Two per cent of scripted noise; TTFT +20 % from commit 7; vLLM 0.11.0 from commit 10, 15 % faster.
const NOISE = [1, 1.015, 0.99, 1.02, 0.985, 1.005, 1.01, 0.99, 1.015, 1, 1.01, 0.99]
const COMMITS: ScriptedBaseline[] = NOISE.map((noise, i) => {
  const n = i + 1
  const level = n < 7 ? 1 : n < 10 ? 1.2 : 1.2 * 0.85
  return {
    ttftScale: level * noise,
    ...(n >= 10 ? { serverVersion: '0.11.0' } : {}),
    subject: n === 7 ? 'Scheduler: prefill chunk 512 -> 2048' : n === 10 ? 'Upgrade vLLM to 0.11.0' : `Change ${n}`,
  }
})

let dir: string
let repo: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-bench-history-'))
  repo = join(dir, 'repo')
  await mkdir(repo)
  await commitBaselineHistory(repo, COMMITS)
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('history of a scratch repository: a step at commit 7, vLLM upgraded at commit 10', () => {
  test('the step is a change point at commit 7, p <= 0.001; the upgrade is a boundary, no change point', async () => {
    const file = await baselineFileHistory(repo, HISTORY_BASELINE_PATH)
    expect(file.versions).toHaveLength(12)
    const [history] = historiesOfBaselines([file])
    expect(history?.name).toBe(HISTORY_BENCH_NAME)
    expect(history?.benchFile).toBe('benches/chat.bench.ts')
    expect(history?.points.map((point) => point.subject)).toEqual(COMMITS.map((commit) => commit.subject))
    const analysis = analyseHistory(history!)
    const ttft = analysis.changePoints.filter((cp) => cp.figure === 'ttftP50')
    expect(ttft).toHaveLength(1)
    expect(ttft[0]?.index).toBe(6)
    expect(ttft[0]?.pValue).toBeLessThanOrEqual(0.001)
    expect(ttft[0]?.relativeChange).toBeGreaterThan(0.15)
    expect(analysis.boundaries).toEqual([{ index: 9, machine: [], software: ['vllm 0.10.1 -> 0.11.0'], config: [] }])
    // The -15 % across the upgrade is never a change point, in any figure.
    expect(analysis.changePoints.filter((cp) => cp.index === 9)).toEqual([])
  })

  test('the command prints the step with its p-value and the upgrade as not judged, and writes the page', async () => {
    const run = await cli(repo, ['--out', join(dir, 'report')])
    const output = String(run.all)
    expect(run.exitCode, output).toBe(0)
    const lines = output.split('\n')
    expect(lines.every((line) => line.length <= 120)).toBe(true)
    // A row and the notes under it, up to the next row.
    const block = (n: number) => {
      const start = lines.findIndex((line) =>
        new RegExp(`^\\s+${n}\\s+2026-11-${String(n).padStart(2, '0')}`).test(line),
      )
      const end = lines.findIndex((line, i) => i > start && /^\s+\d+\s+2026-/.test(line))
      return lines.slice(start, end).join('\n')
    }
    const row7 = block(7)
    expect(row7).toMatch(/123\.2 ▲/)
    expect(row7).toMatch(/▲ change point: TTFT p50 \+2\d\.\d% \(p = \d\.\de-\d+\)/)
    const p = Number(/TTFT p50 [^(]*\(p = ([^)]+)\)/.exec(row7)?.[1])
    expect(p).toBeLessThanOrEqual(0.001)
    const row10 = block(10)
    expect(row10).toContain('⚑ software: vllm 0.10.1 -> 0.11.0 (a fingerprint change: not judged)')
    expect(row10).not.toContain('change point')
    const page = await readFile(join(dir, 'report', 'history.html'), 'utf8')
    expect(page).toContain('data-chart="history-1-ttftP50"')
    expect(page).toMatch(/change point<\/span> at point 7 \([0-9a-f]+\): TTFT p50 \+2\d\.\d% \(p = /)
    expect(page).toContain('fingerprint change</span> before point 10')
    expect(page).toContain('vllm 0.10.1 -&gt; 0.11.0')
    // In the TTFT p50 chart: a red line at the step, a dashed one at the upgrade, one line per fingerprint.
    const chart = /data-chart="history-1-ttftP50".*?<\/figure>/s.exec(page)?.[0] ?? ''
    expect(chart).toMatch(/<line class="mark" x1="[\d.]+"[^>]*stroke="#cf222e">/)
    expect(chart).toMatch(/<line class="mark" x1="[\d.]+"[^>]*stroke="#8250df" stroke-dasharray/)
    expect(chart.match(/<path class="series"/g)).toHaveLength(2)
  })

  test('--results: kept CI runs join the bench as points in time order, after the commits', async () => {
    const results = join(dir, 'kept-results')
    const ttft = lognormalSamples(seededRandom(9), 200, 100, 0.25)
    for (const [day, scale] of [
      ['14', 1.3],
      ['13', 1.03],
    ] as const) {
      const result = {
        ...makeResult({ ttftMs: ttft.map((v) => v * scale), environment: environment({ serverVersion: '0.11.0' }) }),
        startedAt: `2026-11-${day}T08:00:00.000Z`,
      }
      const entry: ReportEntry = { name: HISTORY_BENCH_NAME, file: 'benches/chat.bench.ts', state: 'passed', result }
      await mkdir(join(results, `run-${day}`), { recursive: true })
      await writeFile(join(results, `run-${day}`, 'results.json'), JSON.stringify(toJsonReport([entry])))
    }
    await writeFile(join(results, 'notes.json'), '{"unrelated": true}')
    const run = await cli(repo, ['--results', results, '--out', join(dir, 'with-results')])
    const output = String(run.all)
    expect(run.exitCode, output).toBe(0)
    expect(output).toContain(': 14 points (12 commits, 2 kept runs)')
    expect(output).toMatch(/^\s+13\s+2026-11-13\s+run\s+/m)
    expect(output).toMatch(/^\s+14\s+2026-11-14\s+run\s+/m)
    expect(output).toMatch(/skipped \S*kept-results\/notes.json: not a vitest-llm-bench JSON report/)
  })

  test('-t and file operands filter; a name no bench has is a one-line error', async () => {
    const none = await cli(repo, ['-t', 'embeddings', '--out', join(dir, 'none')])
    expect(none.exitCode).toBe(1)
    expect(String(none.all).trim().split('\n')).toHaveLength(1)
    expect(String(none.all)).toContain('No bench history matches -t embeddings')
    const kept = await cli(repo, ['benches/chat.bench.ts', '-t', 'chat', '--out', join(dir, 'kept')])
    expect(kept.exitCode).toBe(0)
    expect(String(kept.all)).toContain(`benches/chat.bench.ts > ${HISTORY_BENCH_NAME}: 12 points (12 commits)`)
  })
})

describe('history where it cannot run', () => {
  test('outside a git repository: one line that says where to run it', async () => {
    const run = await cli(dir, [])
    expect(run.exitCode).toBe(1)
    expect(String(run.all).trim().split('\n')).toHaveLength(1)
    expect(String(run.all)).toMatch(/is not inside a git repository: run history from the checkout/)
  })

  test('a repository without baseline files: one line that says to record and commit them', async () => {
    const empty = join(dir, 'empty')
    await execa('git', ['init', '-q', empty])
    const run = await cli(empty, [])
    expect(run.exitCode).toBe(1)
    expect(String(run.all).trim().split('\n')).toHaveLength(1)
    expect(String(run.all)).toContain('No committed baseline file (__llm_baselines__/*.json)')
  })

  test('an unknown flag is a usage error that lists the valid flags', async () => {
    const run = await cli(dir, ['--since', '2026-01-01'])
    expect(run.exitCode).toBe(2)
    expect(String(run.all)).toContain("Unknown flag --since for 'history'")
    for (const flag of ['--name', '--results', '--out', '--max-p', '--window']) expect(String(run.all)).toContain(flag)
  })
})
