// One `vitest bench` run of a perf bench file on the project's llama-server build (perf/llama-bench.config.ts),
// optionally beside CPU-bound processes: what perf/llama-slo.ts and perf/llama-sweep.ts share.
import { execFileSync, spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process'
import type { Readable } from 'node:stream'
import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { findLlamaArtifacts } from '../../scripts/llama/llama-cache.ts'

/** The llama-server build and its model; exits with what to run when there is none. */
export function llamaBuild(): { serverPath: string; modelPath: string } {
  const artifacts = findLlamaArtifacts()
  if (!artifacts.found) {
    console.error(artifacts.reason)
    process.exit(2)
  }
  return artifacts.manifest
}

/** What {@link runLlamaBench} measured: the exit code, the JSON report, the wall time and the hypervisor's steal. */
export interface LlamaBenchRun {
  code: number | null
  report: unknown
  seconds: number
  /** Share of all CPU time the hypervisor took (steal) over the run, from /proc/stat; undefined off Linux. */
  steal: number | undefined
}

/** The `cpu` line of /proc/stat: total jiffies and steal jiffies; undefined where there is none. */
export function cpuTimes(): { total: number; steal: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? []
    return { total: fields.slice(0, 8).reduce((sum, value) => sum + value, 0), steal: fields[7] ?? 0 }
  } catch {
    return undefined
  }
}

/** Share of all CPU time the hypervisor took (steal) since `before` ({@link cpuTimes}); undefined off Linux. */
export function stealSince(before: ReturnType<typeof cpuTimes>): number | undefined {
  const after = cpuTimes()
  return before && after && after.total > before.total
    ? (after.steal - before.steal) / (after.total - before.total)
    : undefined
}

/**
 * Runs `vitest bench` on `file` (not under CI), with `env` on top of this process's, and `hogs` busy loops beside
 * it (killed by their PIDs afterwards); returns the JSON report.
 */
export function runLlamaBench(file: string, env: Record<string, string>, hogs: number): LlamaBenchRun {
  const root = path.resolve(import.meta.dirname, '../..')
  const report = path.join(mkdtempSync(path.join(os.tmpdir(), 'llama-bench-')), 'report.json')
  const busy = Array.from({ length: hogs }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }))
  const started = performance.now()
  const before = cpuTimes()
  try {
    const vitest = path.join(root, 'node_modules/vitest/vitest.mjs')
    const { status } = spawnSync(
      process.execPath,
      [vitest, 'bench', '--run', '--config', 'perf/llama-bench.config.ts'],
      {
        cwd: root,
        stdio: 'ignore',
        env: { ...process.env, CI: '', ...env, LLAMA_BENCH_FILE: file, LLAMA_BENCH_REPORT: report },
      },
    )
    const seconds = (performance.now() - started) / 1000
    const steal = stealSince(before)
    return { code: status, report: JSON.parse(readFileSync(report, 'utf8')) as unknown, seconds, steal }
  } finally {
    for (const hog of busy) hog.kill('SIGKILL')
  }
}

/** PIDs of the processes running `serverPath` (llama-servers of this build), from pgrep; none when it finds none. */
export function llamaServerPids(serverPath: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', serverPath], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number)
  } catch {
    return []
  }
}

/**
 * Starts `vitest bench` on `file` (not under CI) with `env` on top of this process's and its output
 * piped, for scripts that act while it runs (stop the server, start hogs); the JSON report goes to `report`.
 */
export function spawnLlamaBench(
  file: string,
  env: Record<string, string>,
  report: string,
): ChildProcessByStdio<null, Readable, Readable> {
  const root = path.resolve(import.meta.dirname, '../..')
  return spawn(
    process.execPath,
    [path.join(root, 'node_modules/vitest/vitest.mjs'), 'bench', '--run', '--config', 'perf/llama-bench.config.ts'],
    {
      cwd: root,
      env: { ...process.env, CI: '', ...env, LLAMA_BENCH_FILE: file, LLAMA_BENCH_REPORT: report },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
}
