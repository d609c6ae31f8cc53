/**
 * The fault matrix of issue 29, rerunnable: 38 faults and bad inputs against the PACKED package (`npm pack`, then
 * a scratch project in /tmp with Vitest 5 and Node 24), each row checking exit codes, the console's key sentence,
 * processes left (/proc), baseline bytes (sha256) and reports. The real llama-server (scripts/llama/build.ts) serves
 * the rows that need a real server; the simulator with its fault injection serves the others.
 *
 *   npm exec -- node scripts/fault-matrix/run.ts [--hogs 2] [--only <row-id,...>] [--keep] [--parallel 2]
 *                                                [--scratch <kept folder>]
 *
 * `--hogs N` runs N CPU-bound processes beside the whole matrix; `--keep` keeps the scratch folder (each row's
 * folder holds its commands' output in logs/); `--scratch` reuses a kept one (no pack, no install); `--parallel`
 * is how many rows that measure no time run at once. Prints one line per row as it ends, the table in row order,
 * the hypervisor steal over the run, and last `N of 38 held`; exits 1 when a row FAILED.
 *
 * The rows, by family (* = failed in issue 29 and fixed since; + = being implemented while this script was written,
 * so it may fail until that lands):
 *
 *   server errors    errors-http-429*, errors-http-500*, errors-dropped-streams*, errors-error-events*,
 *                    errors-update-writes-nothing*
 *   real server      server-killed, server-stalled*, bench-timeout*, server-context-400*, connect-refused+
 *   signals          ctrl-c-group, sigterm-npx*, sigterm-group, ctrl-c-during-baseline-write, ctrl-c-keeps-reports+
 *   baseline files   baseline-broken-json, baseline-wrong-shape, baseline-newer-schema, baseline-other-gpu*
 *   baseline writes  disk-full, baseline-folder-read-only, compare-keeps-4-space-file*, compare-read-only-checkout*,
 *                    concurrent-updates*, obsolete-ten-and-more*, stale-tmp-removed*
 *   options          load-bad-values, workload-unknown-kind, dataset-malformed-line, dataset-binary,
 *                    tokenizer-missing, typo-target-warmup*, typo-workload*, typo-simulator*, typo-llama-cpp*
 *   secrets          secrets-redacted
 *   resources        memory-20k-requests
 *   reports          reports-unwritable*, concurrent-runs-reports+
 *
 * Real llama-server rows: server-killed, server-stalled, server-context-400, ctrl-c-group, sigterm-npx, sigterm-group,
 * secrets-redacted. Mounts (a 256 KB tmpfs, read-only bind mounts) need root: disk-full, baseline-folder-read-only,
 * compare-read-only-checkout, reports-unwritable.
 */
import { readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { findLlamaArtifacts } from '../llama/llama-cache.ts'
import { cpuTimes, Hogs, stealBetween } from './cpu-load.ts'
import { runRows } from './matrix-runner.ts'
import { unmountUnder } from './mounts.ts'
import { killRowProcesses } from './processes.ts'
import { ROWS } from './rows/index.ts'
import type { MatrixContext } from './rows/row.ts'
import { buildScratch, reuseScratch } from './scratch-project.ts'
import { rowLine, summaryLine } from './table.ts'

const repo = resolve(import.meta.dirname, '../..')
const { values } = parseArgs({
  options: {
    hogs: { type: 'string', default: '0' },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
    parallel: { type: 'string', default: '2' },
    scratch: { type: 'string' },
  },
})
const only = values.only?.split(',').map((id) => id.trim())
const unknown = only?.filter((id) => !ROWS.some((row) => row.id === id)) ?? []
if (unknown.length > 0) {
  console.error(`unknown row(s): ${unknown.join(', ')}; the rows are: ${ROWS.map((row) => row.id).join(', ')}`)
  process.exit(2)
}
const rows = only ? ROWS.filter((row) => only.includes(row.id)) : ROWS

const started = performance.now()
if (!values.scratch) console.log('packing the repository and installing the tarball in a scratch project ...')
const scratch = values.scratch ? reuseScratch(resolve(values.scratch)) : buildScratch()
console.log(
  `scratch project ${scratch.root}: ${scratch.tarball.split('/').pop()}, vitest ${scratch.vitestVersion}, ` +
    `node ${scratch.nodeVersion} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
)
const artifacts = findLlamaArtifacts()
if (!artifacts.found) console.log(`no llama-server: ${artifacts.reason} (the real-server rows will fail)`)
const hogs = new Hogs(Number(values.hogs))
const ctx: MatrixContext = {
  scratch,
  llama: artifacts.found ? artifacts.manifest : undefined,
  hogs: hogs.pids,
  fakeNvidiaSmi: join(repo, 'test/fixtures/bin/nvidia-smi'),
}

/** Stops the hogs and every process of this matrix, removes its mounts and (without --keep) its folder. */
function cleanUp(): void {
  hogs.stop()
  killRowProcesses('FAULT_MATRIX_ROW=', join(scratch.root, 'rows'), hogs.pids)
  unmountUnder(scratch.root)
  if (!values.keep && !values.scratch) rmSync(scratch.root, { recursive: true, force: true })
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.log(`\n${signal}: stopping the hogs and the rows' processes`)
    cleanUp()
    process.exit(130)
  })

const percent = (share: number): string => `${(share * 100).toFixed(1)} %`
const cpuBefore = cpuTimes()
let exitCode = 1
try {
  console.log(`${rows.length} rows, ${values.hogs} hog(s) beside them\n`)
  const results = await runRows(ctx, rows, Number(values.parallel), (result) => console.log(rowLine(result)))
  const steal = stealBetween(cpuBefore, cpuTimes())
  console.log(`\n=== fault matrix (${scratch.tarball.split('/').pop()}, vitest ${scratch.vitestVersion}) ===`)
  results.forEach((result, index) => console.log(rowLine(result, index)))
  console.log(
    `\nhogs ${values.hogs}; hypervisor steal over the run ${steal === undefined ? 'unknown' : percent(steal)}; ` +
      `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ` +
      `${((performance.now() - started) / 1000).toFixed(0)} s in all${values.keep ? `; kept ${scratch.root}` : ''}`,
  )
  console.log(summaryLine(results))
  exitCode = results.every((result) => result.outcome.held) ? 0 : 1
} finally {
  cleanUp()
}
process.exit(exitCode)
