/**
 * bench.llm.compare on the real llama-server, through `vitest bench` as users run it: each run
 * measures `default` against a variant (LLAMA_COMPARE_VARIANT_ARGS, e.g. `-ub 1`; none: the same
 * server twice) in counterbalanced pairs, and this prints each run's exit, pairs, time and rows.
 *
 *   npm exec -- node perf/llama-compare.ts --runs 6 [--variant="-ub 1"] [--hogs 2] [--requests 150]
 *   npm exec -- node perf/llama-compare.ts --variant=",-ub 1"   # three variants: default, default again, -ub 1
 *   npm exec -- node perf/llama-compare.ts --arms apart          # one arm at a time (default: together)
 *   npm exec -- node perf/llama-compare.ts --max-pairs 10 --slices 8
 *
 * Needs the llama-server build (scripts/llama/build.ts). `--hogs N` runs N busy loops beside the
 * runs (killed by their PIDs afterwards).
 */
import { spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import { parseArgs, stripVTControlCharacters } from 'node:util'
import { findLlamaArtifacts } from '../scripts/llama/llama-cache.ts'
import { cpuTimes, stealSince } from './lib/llama-bench-run.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    variant: { type: 'string', default: '' },
    hogs: { type: 'string', default: '0' },
    requests: { type: 'string', default: '150' },
    arms: { type: 'string', default: 'auto' },
    slices: { type: 'string', default: '4' },
    'max-pairs': { type: 'string', default: '' },
  },
})
const artifacts = findLlamaArtifacts()
if (!artifacts.found) throw new Error(artifacts.reason)
const { manifest } = artifacts
const root = path.resolve(import.meta.dirname, '..')
const hogs = Array.from({ length: Number(values.hogs) }, () =>
  spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const hog of hogs) hog.kill('SIGKILL')
    process.exit(130)
  })
}
const tally = { fail: 0, pass: 0, inconclusive: 0, pairs: 0, seconds: 0 }
try {
  for (let run = 1; run <= Number(values.runs); run++) {
    const started = performance.now()
    const before = cpuTimes()
    const out = spawnSync(
      process.execPath,
      [
        path.join(root, 'node_modules/vitest/vitest.mjs'),
        'bench',
        '--run',
        '--config',
        'perf/llama-compare/vitest.config.ts',
      ],
      {
        cwd: root,
        encoding: 'utf8',
        env: {
          ...process.env,
          CI: 'true',
          LLAMA_COMPARE_SERVER: manifest.serverPath,
          LLAMA_COMPARE_MODEL: manifest.modelPath,
          LLAMA_COMPARE_VARIANT_ARGS: values.variant,
          LLAMA_COMPARE_REQUESTS: values.requests,
          LLAMA_COMPARE_ARMS: values.arms,
          LLAMA_COMPARE_SLICES: values.slices,
          LLAMA_COMPARE_MAX_PAIRS: values['max-pairs'],
        },
      },
    )
    const seconds = (performance.now() - started) / 1000
    const steal = stealSince(before)
    const text = stripVTControlCharacters(`${out.stdout}\n${out.stderr}`)
    const head = /side by side: (\d+) pairs in ([\d.]+) s \(([^)]*)\)/.exec(text)
    const rows = text
      .split('\n')
      .filter((line) => /^\s*(\S.*?)\s{2,}(ttftMs|tpotMs|outputTokensPerSec|e2eMs)/.test(line))
    const statuses = rows.map((row) => row.trim().split(/\s+/).at(-1) ?? '?')
    const status =
      out.status === 1
        ? 'fail'
        : statuses.includes('inconclusive')
          ? 'inconclusive'
          : statuses.length > 0
            ? 'pass'
            : 'error'
    if (status !== 'error') tally[status]++
    tally.pairs += Number(head?.[1] ?? 0)
    tally.seconds += seconds
    console.log(
      `run ${run}: exit ${out.status}, ${status}, ${head?.[1] ?? '?'} pairs (${head?.[3] ?? 'no table'}), ${seconds.toFixed(0)} s, steal ${steal === undefined ? '?' : `${(steal * 100).toFixed(2)} %`}`,
    )
    const arms = /^arms (together|apart) .*$/m.exec(text)
    if (arms) console.log(`  ${arms[0]}`)
    for (const row of rows) console.log(`  ${row.trim()}`)
    if (status === 'error') console.log(text.split('\n').slice(-40).join('\n'))
  }
} finally {
  for (const hog of hogs) hog.kill('SIGKILL')
}
const runs = Number(values.runs)
console.log(
  `arms ${values.arms}, variant "${values.variant || 'none (A/A)'}", hogs ${values.hogs}: ${tally.fail} fail, ${tally.pass} pass, ${tally.inconclusive} inconclusive of ${runs}; mean ${(tally.pairs / runs).toFixed(1)} pairs, ${(tally.seconds / runs).toFixed(0)} s per run`,
)
