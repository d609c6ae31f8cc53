/**
 * `vitest-llm-bench bisect` on the real llama-server, as a user would run it: a scratch git project of
 * `--commits` commits (default 16) whose bench launches llama-server `-t 2 -np 4 -c 4096`; commit `--culprit`
 * (default 11) adds `--change` to its arguments (default `-ub 1`), the others change an unrelated file. Each run
 * is one `bisect --good <commit 1> --bad HEAD`; this prints its exit, the commit it named, its steps, pairs and time.
 *
 *   npm exec -- node perf/llama-bisect.ts [--runs 1] [--commits 16] [--culprit 11] [--change="-ub 1"] [--hogs 2]
 *
 * Needs the llama-server build (scripts/llama/build.ts). `--hogs N` runs N busy loops beside the runs.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { findLlamaArtifacts } from '../scripts/llama/llama-cache.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    commits: { type: 'string', default: '16' },
    culprit: { type: 'string', default: '11' },
    change: { type: 'string', default: '-ub 1' },
    hogs: { type: 'string', default: '0' },
    requests: { type: 'string', default: '100' },
  },
})
const artifacts = findLlamaArtifacts()
if (!artifacts.found) throw new Error(artifacts.reason)
const { manifest } = artifacts
const root = path.resolve(import.meta.dirname, '..')
const project = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-llama-bisect-'))
const benchFile = (extra: string[]): string => `import { bench, llamaCpp } from 'vitest-llm-bench'

bench.llm('llama.cpp chat', {
  server: llamaCpp({ bin: ${JSON.stringify(manifest.serverPath)}, modelPath: ${JSON.stringify(manifest.modelPath)}, args: ${JSON.stringify(['-t', '2', '-np', '4', '-c', '4096', ...extra])} }),
  workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 32 }, ignoreEos: true },
  load: { concurrency: 4, requests: ${Number(values.requests)} },
  warmup: { requests: 8 },
  seed: 1,
})
`
const git = (...args: string[]) =>
  spawnSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=b', ...args], { cwd: project, encoding: 'utf8' })
mkdirSync(path.join(project, 'node_modules'))
for (const name of readdirSync(path.join(root, 'node_modules')))
  symlinkSync(path.join(root, 'node_modules', name), path.join(project, 'node_modules', name))
const entry = path.join(root, 'src', 'index.ts')
writeFileSync(
  path.join(project, 'package.json'),
  JSON.stringify({ name: 'llama-bisect', private: true, type: 'module' }),
)
writeFileSync(
  path.join(project, 'vitest.config.ts'),
  `import { defineConfig } from 'vitest/config'\nimport { llmBench } from '${entry}'\nexport default defineConfig({ plugins: [llmBench()], resolve: { alias: { 'vitest-llm-bench': '${entry}' } } })\n`,
)
writeFileSync(path.join(project, '.gitignore'), 'node_modules\nllm-bench-bisect\nllm-bench-report\n')
git('init', '-q')
const culprit = Number(values.culprit)
const change = values.change.split(' ').filter(Boolean)
for (let n = 1; n <= Number(values.commits); n++) {
  if (n === 1 || n === culprit)
    writeFileSync(path.join(project, 'llama.bench.ts'), benchFile(n >= culprit ? change : []))
  writeFileSync(path.join(project, 'notes.txt'), `unrelated change ${n}\n`)
  git('add', '-A')
  git('commit', '-qm', n === culprit ? `c${n} adds ${values.change}` : `c${n} notes`)
}
const first = git('rev-list', '--max-parents=0', 'HEAD').stdout.trim()
const hogs = Array.from({ length: Number(values.hogs) }, () =>
  spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
)
const cli = `import { runCli } from ${JSON.stringify(path.join(root, 'src', 'cli.ts'))}; process.exitCode = await runCli(process.argv.slice(1))`
let named = 0
try {
  for (let run = 1; run <= Number(values.runs); run++) {
    const started = performance.now()
    const out = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', cli, '--', 'bisect', '--good', first, '--bad', 'HEAD'],
      { cwd: project, encoding: 'utf8', env: { ...process.env, CI: 'true' } },
    )
    const minutes = (performance.now() - started) / 60_000
    const report = JSON.parse(readFileSync(path.join(project, 'llm-bench-bisect', 'bisect.json'), 'utf8')) as {
      exit: number
      culprit?: { subject: string; gates: string[] }
      steps: Array<{ head: { subject: string }; outcome: string; pairs: number; seconds: number }>
      skipped: unknown[]
    }
    const right = report.culprit?.subject.startsWith(`c${culprit} `) === true
    if (right) named++
    const pairs = report.steps.reduce((sum, step) => sum + step.pairs, 0)
    // Named the culprit (exit 0), a wrong commit (exit 0, another), no regression confirmed (exit 1), or a range (2).
    const said =
      report.culprit !== undefined
        ? `named ${report.culprit.subject} (${right ? 'right' : 'WRONG'})`
        : out.status === 1
          ? 'not confirmed'
          : 'no single commit (a range)'
    console.log(
      `run ${run}: exit ${out.status}, ${said}, ` +
        `${report.steps.length} steps, ${pairs} pairs, ${minutes.toFixed(1)} min`,
    )
    for (const step of report.steps)
      console.log(`  ${step.head.subject}: ${step.outcome}, ${step.pairs} pairs, ${step.seconds.toFixed(0)} s`)
    if (report.culprit) console.log(`  ${report.culprit.gates.join('; ')}`)
  }
} finally {
  for (const hog of hogs) hog.kill('SIGKILL')
  rmSync(project, { recursive: true, force: true })
}
console.log(
  `commit ${culprit} of ${values.commits} (${values.change}), hogs ${values.hogs}: named ${named} of ${values.runs}`,
)
