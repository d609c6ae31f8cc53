// Issue 29 (9): a Ctrl-C wrote no reports, so the benches already measured were lost; two runs in
// one project overwrote each other's reports. Here, child `vitest bench` processes of
// test/fixtures/interrupt: run A measures a bench, then a long one; run B, started meanwhile in the
// same project, measures the first bench only; then A's process group gets SIGINT, as from a terminal.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, test } from 'vitest'
import { REPORT_CLAIM_FILE } from '../../reporters/report-claim.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'llm-bench-interrupt-'))
const reports = join(work, 'reports')
const marker = join(work, 'marker')
const children: ChildProcess[] = []

interface Child {
  child: ChildProcess
  output: () => string
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** `vitest bench <args>` with the interrupt config, in its own process group (as a terminal starts it). */
function vitestBench(args: string[]): Child {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !key.startsWith('VITEST') && key !== 'TEST' && key !== 'NODE_OPTIONS') env[key] = value
  Object.assign(env, {
    INTERRUPT_REPORT_DIR: reports,
    INTERRUPT_MARKER: marker,
    LLM_BENCH_BASELINE_DIR: join(work, 'baselines'),
    CI: '',
    NO_COLOR: '1',
  })
  const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs')
  const config = 'test/fixtures/interrupt/interrupt.vitest.config.ts'
  const child = spawn(process.execPath, [vitest, 'bench', '--run', ...args, '--config', config], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let output = ''
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  )
  return { child, output: () => output, exit }
}

async function until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

interface Report {
  interrupted?: string
  benches: Array<{ name: string; result: { counts: { completed: number } } }>
}

const readReport = (path: string): Report => JSON.parse(readFileSync(path, 'utf8')) as Report

afterAll(() => {
  for (const { pid, exitCode, signalCode } of children)
    if (pid !== undefined && exitCode === null && signalCode === null) {
      try {
        process.kill(-pid, 'SIGKILL')
      } catch {
        // Gone already.
      }
    }
  rmSync(work, { recursive: true, force: true })
})

test('a second run keeps apart; a Ctrl-C writes the benches measured before it, marked interrupted', async () => {
  const first = vitestBench([])
  await until('the first bench of run A', () => existsSync(marker), 90_000)
  expect(existsSync(join(reports, REPORT_CLAIM_FILE))).toBe(true)

  // Run B while A measures its long bench: A holds the report folder, so B writes in its own.
  const second = vitestBench(['-t', 'finished'])
  await second.exit
  const own = join(reports, `run-${second.child.pid}`)
  expect(second.output()).toContain(`another run (pid ${first.child.pid} on`)
  expect(second.output()).toContain(`this run's go to ${own}`)
  expect(readReport(join(own, 'results.json')).benches.map((bench) => bench.name)).toEqual(['finished'])
  expect(existsSync(join(reports, 'results.json'))).toBe(false)

  // Ctrl-C in A's terminal: the whole process group gets SIGINT.
  const interruptedAt = Date.now()
  process.kill(-first.child.pid!, 'SIGINT')
  const exit = await first.exit
  expect(Date.now() - interruptedAt).toBeLessThan(15_000)
  expect(exit.code === 130 || exit.signal === 'SIGINT').toBe(true)
  const report = readReport(join(reports, 'results.json'))
  expect(report.interrupted).toBe('SIGINT')
  expect(report.benches.map((bench) => bench.name)).toEqual(['finished'])
  // 20 requests a trial; the first run records its baseline from several trials.
  expect(report.benches[0]?.result.counts.completed).toBeGreaterThanOrEqual(20)
  expect(readFileSync(join(reports, 'summary.md'), 'utf8')).toContain('Interrupted by SIGINT: the run was stopped')
  expect(first.output()).toMatch(/LLM bench JSON report \(interrupted by SIGINT\): .*results\.json/)
  // Each run gave its claim back.
  expect(existsSync(join(reports, REPORT_CLAIM_FILE))).toBe(false)
}, 180_000)
