/**
 * `vitest-llm-bench ab` on the real llama-server, as a pull request would run it: a scratch git
 * project whose committed bench file launches llama-server with `--base-args` (default `-t 2 -np 4 -c 4096`),
 * and whose working tree adds `--head-args` to it (none: head = base). Each run is one `ab --base
 * HEAD`; this prints its exit, verdict, pairs, time, the steal its trials saw, and the gate rows.
 *
 *   npm exec -- node perf/llama-ab.ts --runs 3 [--base-args="-t 1 -np 4 -c 4096"] [--head-args="-ub 1"]
 *     [--arms auto|together|apart] [--max-pairs n] [--slices n] [--hogs 2] [--pin] [--requests 100] [--concurrency 4] [--input-tokens 64] [--output-tokens 32] [--model <gguf>] [--save <dir>] [--stored]
 *
 * Needs the llama-server build (scripts/llama/build.ts); `--model` serves another GGUF than its tiny model
 * (`node scripts/llama/small-model.ts` writes a larger one). `--hogs N` runs N busy loops beside the
 * runs (killed by their PIDs afterwards); `--pin` runs llama-server on CPU 1 alone and the ab process (its
 * client) on CPU 0 (with `taskset`; pair it with `--base-args="-t 1 …"`); `--save <dir>` keeps each run's ab.json there (run-N.ab.json).
 * `--stored` (the drift run): records a baseline on the quiet machine first (before any hog starts) and
 * commits it with the base; each run then judges the unchanged code against it with `vitest bench`
 * (`CI=true`) before `ab` measures both arms, and both verdicts are printed.
 */
import { spawn, spawnSync } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs, stripVTControlCharacters } from 'node:util'
import { findLlamaArtifacts } from '../scripts/llama/llama-cache.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    'base-args': { type: 'string', default: '-t 2 -np 4 -c 4096' },
    'head-args': { type: 'string', default: '' },
    hogs: { type: 'string', default: '0' },
    requests: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '4' },
    'input-tokens': { type: 'string', default: '64' },
    'output-tokens': { type: 'string', default: '32' },
    model: { type: 'string' },
    'max-pairs': { type: 'string' },
    slices: { type: 'string' },
    arms: { type: 'string', default: 'auto' },
    save: { type: 'string' },
    stored: { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
  },
})
const artifacts = findLlamaArtifacts()
if (!artifacts.found) throw new Error(artifacts.reason)
const { manifest } = artifacts
const root = path.resolve(import.meta.dirname, '..')

const project = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-llama-ab-'))
/** With `--pin`, llama-server runs on CPU 1 alone (through `taskset`), the ab process and its client on CPU 0. */
const serverBin = values.pin ? path.join(project, 'llama-server-on-cpu1') : manifest.serverPath
if (values.pin)
  writeFileSync(serverBin, `#!/bin/sh\nexec taskset -c 1 ${JSON.stringify(manifest.serverPath)} "$@"\n`, {
    mode: 0o755,
  })

const benchFile = (extra: string[]): string => `import { bench, llamaCpp } from 'vitest-llm-bench'

bench.llm('llama.cpp chat', {
  server: llamaCpp({ bin: ${JSON.stringify(serverBin)}, modelPath: ${JSON.stringify(values.model ?? manifest.modelPath)}, args: ${JSON.stringify([...values['base-args'].split(' ').filter(Boolean), ...extra])} }),
  workload: { kind: 'synthetic', inputTokens: { mean: ${Number(values['input-tokens'])} }, outputTokens: { mean: ${Number(values['output-tokens'])} }, ignoreEos: true },
  load: { concurrency: ${Number(values.concurrency)}, requests: ${Number(values.requests)} },
  warmup: { requests: 8 },
  seed: 1,
})
`

const git = (...args: string[]) =>
  spawnSync('git', ['-c', 'user.email=ab@example.com', '-c', 'user.name=ab', ...args], {
    cwd: project,
    encoding: 'utf8',
  })
mkdirSync(path.join(project, 'node_modules'))
for (const name of readdirSync(path.join(root, 'node_modules')))
  symlinkSync(path.join(root, 'node_modules', name), path.join(project, 'node_modules', name))
const entry = path.join(root, 'src', 'index.ts')
writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'llama-ab', private: true, type: 'module' }))
writeFileSync(
  path.join(project, 'vitest.config.ts'),
  `import { defineConfig } from 'vitest/config'\nimport { llmBench } from '${entry}'\nexport default defineConfig({ plugins: [llmBench()], resolve: { alias: { 'vitest-llm-bench': '${entry}' } } })\n`,
)
writeFileSync(
  path.join(project, '.gitignore'),
  'node_modules\nllm-bench-ab\nllm-bench-report\n.llm-bench\nllama-server-on-cpu1\n',
)
writeFileSync(path.join(project, 'llama.bench.ts'), benchFile([]))
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs')
/** The console's tally line and the lines of each relative check, of one `vitest bench` in the project. */
const benchLines = (text: string): string[] =>
  stripVTControlCharacters(text)
    .split('\n')
    .filter((line) => /LLM benches:|\d\.\d{3}x|moved since/.test(line))
    .map((line) => line.trim())
if (values.stored) {
  // The drift run: a baseline recorded now, on the quiet machine, committed with the base; each run then
  // judges the unchanged code against it (as a team without `ab` would) before `ab` measures both arms.
  const recorded = spawnSync(process.execPath, [vitest, 'bench', '--run', '-u'], { cwd: project, encoding: 'utf8' })
  console.log(`stored baseline recorded (exit ${recorded.status}): ${benchLines(recorded.stdout).join(' | ')}`)
}
git('init', '-q')
git('add', '-A')
git('commit', '-qm', 'base')
const headArgs = values['head-args'].split(' ').filter(Boolean)
writeFileSync(path.join(project, 'llama.bench.ts'), benchFile(headArgs))

const hogs = Array.from({ length: Number(values.hogs) }, () =>
  spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
)
const stop = () => {
  for (const hog of hogs) hog.kill('SIGKILL')
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stop()
    process.exit(130)
  })
}
const cli = `import { runCli } from ${JSON.stringify(path.join(root, 'src', 'cli.ts'))}; process.exitCode = await runCli(process.argv.slice(1))`
const tally = { fail: 0, pass: 0, inconclusive: 0, error: 0, pairs: 0, seconds: 0 }
/** Per gate (`ttftMs p50`), how often it passed, failed or stayed inconclusive over the runs. */
const gates = new Map<string, Record<string, number>>()
try {
  for (let run = 1; run <= Number(values.runs); run++) {
    if (values.stored) {
      const judgedAt = performance.now()
      const judged = spawnSync(process.execPath, [vitest, 'bench', '--run'], {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, CI: 'true' },
      })
      const seconds = ((performance.now() - judgedAt) / 1000).toFixed(0)
      console.log(`run ${run}, against the stored baseline: exit ${judged.status}, ${seconds} s`)
      for (const line of benchLines(`${judged.stdout}\n${judged.stderr}`)) console.log(`  ${line}`)
    }
    const started = performance.now()
    const abArgs = ['--input-type=module', '-e', cli, '--', 'ab', '--base', 'HEAD', '--arms', values.arms]
    if (values['max-pairs'] !== undefined) abArgs.push('--max-pairs', values['max-pairs'])
    if (values.slices !== undefined) abArgs.push('--slices', values.slices)
    const out = spawnSync(
      values.pin ? 'taskset' : process.execPath,
      values.pin ? ['-c', '0', process.execPath, ...abArgs] : abArgs,
      {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, CI: 'true' },
      },
    )
    const seconds = (performance.now() - started) / 1000
    const text = stripVTControlCharacters(`${out.stdout}\n${out.stderr}`)
    let status: keyof typeof tally = 'error'
    let steal = ''
    try {
      const report = JSON.parse(readFileSync(path.join(project, 'llm-bench-ab', 'ab.json'), 'utf8')) as {
        order: unknown[]
        placement?: string
        idleArmCpu?: number
        verdicts: Array<{
          status: string
          paired?: { checks: Array<{ metric: string; statistic: string; status: string }> }
        }>
        trials: Array<{ arm: string; result: { client: { selfCheck?: { stealShare?: number; disturbed: string[] } } } }>
      }
      const verdict = report.verdicts[0]?.status
      if (verdict === 'fail' || verdict === 'pass' || verdict === 'inconclusive') status = verdict
      tally.pairs += report.order.length
      for (const check of report.verdicts[0]?.paired?.checks ?? []) {
        const counts = gates.get(`${check.metric} ${check.statistic}`) ?? {}
        counts[check.status] = (counts[check.status] ?? 0) + 1
        gates.set(`${check.metric} ${check.statistic}`, counts)
      }
      const shares = report.trials.map((trial) => (trial.result.client.selfCheck?.stealShare ?? 0) * 100)
      const disturbed = report.trials.filter(
        (trial) => (trial.result.client.selfCheck?.disturbed.length ?? 0) > 0,
      ).length
      steal = `steal ${Math.min(...shares).toFixed(1)}-${Math.max(...shares).toFixed(1)} %, ${disturbed} of ${shares.length} trials disturbed`
      const idle =
        report.idleArmCpu === undefined ? '' : `, idle arm at most ${(report.idleArmCpu * 100).toFixed(1)} % of a core`
      steal += `; ${report.placement ?? ''}${idle}`
      if (values.save !== undefined) {
        mkdirSync(values.save, { recursive: true })
        renameSync(path.join(project, 'llm-bench-ab', 'ab.json'), path.join(values.save, `run-${run}.ab.json`))
      } else rmSync(path.join(project, 'llm-bench-ab', 'ab.json'))
    } catch {
      // No report: the run failed before judging; its output is printed below.
    }
    tally[status]++
    tally.seconds += seconds
    console.log(`run ${run}: exit ${out.status}, ${status}, ${seconds.toFixed(0)} s, ${steal}`)
    for (const line of text
      .split('\n')
      .filter((l) => /^\s+head\s{2,}/.test(l) || / pairs in [\d.]+ s \(/.test(l) || /moved since/.test(l)))
      console.log(`  ${line.trim()}`)
    if (status === 'error') console.log(text.split('\n').slice(-40).join('\n'))
  }
} finally {
  stop()
  rmSync(project, { recursive: true, force: true })
}
const runs = Number(values.runs)
for (const [gate, counts] of gates)
  console.log(
    `  ${gate}: ${Object.entries(counts)
      .map(([status, n]) => `${status} ${n}`)
      .join(', ')}`,
  )
console.log(
  `base args "${values['base-args']}", head args "${values['head-args'] || 'none (head = base)'}", hogs ${values.hogs}: ${tally.fail} fail, ${tally.pass} pass, ${tally.inconclusive} inconclusive, ${tally.error} error of ${runs}; mean ${(tally.pairs / runs).toFixed(1)} pairs, ${(tally.seconds / runs).toFixed(0)} s per run`,
)
