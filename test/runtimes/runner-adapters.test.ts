/**
 * `vitest-llm-bench/bun` under `bun test` and `vitest-llm-bench/deno` under `deno test`: a bench file
 * records its baseline, passes against it, fails the run when the simulator is slowed, and
 * `LLM_BENCH_UPDATE=1` accepts the new figures. Started from Node; a runtime whose binary is not
 * installed (devDependencies `bun`, `deno`) is skipped.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, onTestFinished, test } from 'vitest'
import { detectRuntime } from '../../src/core/platform/runtime.ts'
import { isCI } from '../../src/bench/ci.ts'

const root = fileURLToPath(new URL('../../', import.meta.url))
const bin = (name: string): string => join(root, 'node_modules', '.bin', name)

const RUNNERS = [
  {
    name: 'bun',
    entry: 'src/bun/index.ts',
    command: bin('bun'),
    args: (file: string) => ['test', file],
    update: 'LLM_BENCH_UPDATE=1 bun test',
  },
  // --no-check: the adapter's behaviour is under test here; CI type-checks it with `deno check` separately.
  {
    name: 'deno',
    entry: 'src/deno/index.ts',
    command: bin('deno'),
    args: (file: string) => ['test', '-A', '--no-check', file],
    update: 'LLM_BENCH_UPDATE=1 deno test -A',
  },
] as const

function benchSource(entry: string): string {
  return [
    `import { bench, simulator } from ${JSON.stringify(join(root, entry))}`,
    `const speedFactor = Number(process.env.SIM_SPEED ?? '1')`,
    `bench.llm('chat steady', {`,
    `  server: simulator({ speedFactor, seed: 3, prefillBaseMs: 6, decodeBaseMs: 3 }),`,
    `  workload: { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 12 } },`,
    `  load: { concurrency: 2, requests: 40 },`,
    `  seed: 1,`,
    // E2E, not TPOT: in a closed loop of 2 streams, TTFT and TPOT depend on how the streams phase
    // against the batches, and an unchanged rerun may settle differently (docs/verdicts.md).
    `  baseline: { e2eMs: { p50: '+20%' } },`,
    `})`,
    '',
  ].join('\n')
}

interface Outcome {
  code: number
  output: string
}

function run(command: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    // Run from the repository root so Deno finds package.json and node_modules for the npm imports.
    const childEnv: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...env }
    for (const key of ['CI', 'LLM_BENCH_UPDATE', 'SIM_SPEED']) if (!(key in env)) delete childEnv[key]
    execFile(command, args, { cwd: root, timeout: 180_000, env: childEnv }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
      resolve({ code, output: `${stdout}\n${stderr}` })
    })
  })
}

describe.runIf(detectRuntime().name === 'node')('runner adapters', () => {
  test.for([...RUNNERS])(
    '$name: missing baseline fails under CI, record, pass, fail on a regression, accept with LLM_BENCH_UPDATE=1',
    { timeout: 400_000 },
    async (runner, { skip }) => {
      // Locally a runner that is not installed is skipped; CI installs both, so there it fails.
      if (!existsSync(runner.command)) {
        if (isCI())
          throw new Error(
            `${runner.name} is not installed under node_modules/.bin: run npm install (devDependency ${runner.name})`,
          )
        skip(`${runner.name} not installed`)
      }
      const dir = await mkdtemp(join(tmpdir(), `llm-${runner.name}-adapter-`))
      onTestFinished(() => rm(dir, { recursive: true, force: true }))
      const file = join(dir, 'chat.bench.ts')
      await writeFile(file, benchSource(runner.entry))
      const baseline = join(dir, '__llm_baselines__', 'chat.bench.ts.json')

      // Under CI a bench without a baseline fails the run, and says how to record one.
      const missing = await run(runner.command, runner.args(file), { CI: 'true' })
      expect(missing.code, missing.output).not.toBe(0)
      expect(missing.output).toContain("No baseline for 'chat steady'")
      expect(missing.output).toContain(`\`${runner.update}\``)

      const recorded = await run(runner.command, runner.args(file), {})
      expect(recorded.code, recorded.output).toBe(0)
      expect(recorded.output).toContain(`baseline written: ${baseline} [chat steady]`)
      const stored = JSON.parse(await readFile(baseline, 'utf8')) as {
        entries: Record<string, { fingerprint: { runtimeName: string } }>
      }
      expect(stored.entries['chat steady']?.fingerprint.runtimeName).toBe(runner.name)

      const same = await run(runner.command, runner.args(file), { CI: 'true' })
      expect(same.code, same.output).toBe(0)
      expect(same.output).toMatch(/chat steady: 40\/40 completed, .*baseline: (pass|inconclusive)/)

      const slower = await run(runner.command, runner.args(file), { CI: 'true', SIM_SPEED: '3' })
      // A client starved of CPU turns failures into "inconclusive" (the verdict's rule, not the adapter's).
      if (!/baseline: inconclusive/.test(slower.output)) {
        expect(slower.code, slower.output).not.toBe(0)
        expect(slower.output).toContain('Regressed against the baseline')
        expect(slower.output).toContain(`\`${runner.update}\``)
      }

      const accepted = await run(runner.command, runner.args(file), {
        CI: 'true',
        SIM_SPEED: '3',
        LLM_BENCH_UPDATE: '1',
      })
      expect(accepted.code, accepted.output).toBe(0)
      expect(accepted.output).toContain(`baseline updated: ${baseline} [chat steady]`)
    },
  )

  test.for([...RUNNERS])(
    '$name: bench.llm.sweep records its curve, passes against it, and fails a broken expectation',
    { timeout: 300_000 },
    async (runner, { skip }) => {
      if (!existsSync(runner.command)) {
        if (isCI())
          throw new Error(
            `${runner.name} is not installed under node_modules/.bin: run npm install (devDependency ${runner.name})`,
          )
        skip(`${runner.name} not installed`)
      }
      const dir = await mkdtemp(join(tmpdir(), `llm-${runner.name}-sweep-`))
      onTestFinished(() => rm(dir, { recursive: true, force: true }))
      const file = join(dir, 'curve.bench.ts')
      await writeFile(
        file,
        [
          `import { bench, simulator } from ${JSON.stringify(join(root, runner.entry))}`,
          `const floor = Number(process.env.FLOOR ?? '0.001')`,
          `bench.llm.sweep('curve', {`,
          `  server: simulator({ seed: 3, prefillBaseMs: 4, decodeBaseMs: 2 }),`,
          `  workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 8 } },`,
          `  over: { concurrency: [1, 2] },`,
          `  load: { requests: 8 },`,
          `  expect: { throughput: [{ at: 2, min: floor }] },`,
          `})`,
          '',
        ].join('\n'),
      )
      const recorded = await run(runner.command, runner.args(file), {})
      expect(recorded.code, recorded.output).toBe(0)
      expect(recorded.output).toMatch(/curve: 2 points in [\d.]+ s · baseline (written|provisional)/)
      const stored = JSON.parse(await readFile(join(dir, '__llm_baselines__', 'curve.bench.ts.json'), 'utf8')) as {
        entries: Record<string, { sweep?: { points?: unknown[] } }>
      }
      expect(stored.entries.curve?.sweep?.points).toHaveLength(2)

      const same = await run(runner.command, runner.args(file), { CI: 'true' })
      expect(same.code, same.output).toBe(0)
      expect(same.output).toMatch(/curve: 2 points in [\d.]+ s · baseline compare/)

      const broken = await run(runner.command, runner.args(file), { CI: 'true', FLOOR: '1000000000' })
      expect(broken.code, broken.output).not.toBe(0)
      expect(broken.output).toMatch(/output tokens\/s at concurrency 2: [\d.]+ >= 1000000000/)
    },
  )
})
