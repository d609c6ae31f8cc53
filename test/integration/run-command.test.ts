import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { runCli } from '../../src/cli.ts'
import { RUN_BENCH_NAME } from '../../src/cli/run-command.ts'
import type { JsonReport } from '../../reporters/json-report.ts'
import { runBenchmark } from '../../src/core/run.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'
import { expectNoProcessesWith, killProcessesWith } from '../helpers/processes.ts'
import { memoryIo } from '../helpers/memory-io.ts'

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url))
const FAKE_LLAMA = fileURLToPath(new URL('../fixtures/bin/llama-server', import.meta.url))
const total = (summary: { mean: number; count: number }) => Math.round(summary.mean * summary.count)

let work: string
let sim: RunningSimulator
// The key comes from OPENAI_API_KEY, as runBenchmark's: no line and no file may hold it.
const SIM_KEY = 'sk-run-test-5e7a91'
const givenKey = process.env.OPENAI_API_KEY
beforeAll(async () => {
  process.env.OPENAI_API_KEY = SIM_KEY
  work = await mkdtemp(join(tmpdir(), 'llm-run-'))
  sim = await startSimulator({ port: 0, seed: 3, speedFactor: 0.2, apiKey: SIM_KEY })
})
afterAll(async () => {
  if (givenKey === undefined) delete process.env.OPENAI_API_KEY
  else process.env.OPENAI_API_KEY = givenKey
  await sim.close()
  await rm(work, { recursive: true, force: true })
})

async function runAt(out: string, extra: string[] = []): Promise<{ code: number; io: ReturnType<typeof memoryIo> }> {
  const io = memoryIo()
  const args = ['--num-prompts', '24', '--max-concurrency', '4', '--random-input-len', '48']
  const code = await runCli(
    ['run', '--base-url', sim.url, ...args, '--random-output-len', '12', ...extra, '--out', out],
    io,
  )
  return { code, io }
}

const reportAt = async (dir: string) => JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as JsonReport

describe('vitest-llm-bench run --base-url against the simulator', () => {
  test('prints the bench table, writes results.json, and measures what runBenchmark measures', async () => {
    const out = join(work, 'first')
    const { code, io } = await runAt(out, ['--seed', '5'])
    expect(code, io.errors.join('\n')).toBe(0)
    const printed = io.output.join('\n')
    expect(printed).toContain(`✓ ${RUN_BENCH_NAME} (${sim.url})`)
    expect(printed).toMatch(/24\/24 requests completed in/)
    expect(printed).toMatch(/TTFT\s+[\d.]+ ms\s+[\d.]+ ms/)
    const config = 'chat · synthetic in 48 / out 12 tokens · concurrency 4 · 24 requests · seed 5'
    expect(printed).toMatch(new RegExp(`config\\s+${config}$`, 'm'))
    expect(printed).toContain(`Results written to ${join(out, 'results.json')}`)

    const report = await reportAt(out)
    expect(report.tool).toBe('vitest-llm-bench')
    expect(report.benches).toHaveLength(1)
    const [bench] = report.benches
    expect(bench).toMatchObject({ name: RUN_BENCH_NAME, file: sim.url, status: 'pass', state: 'passed' })
    const result = bench!.result
    expect(result.counts).toEqual({ total: 24, completed: 24, failed: 0 })
    for (const metric of ['ttftMs', 'tpotMs', 'itlMs', 'e2eMs'] as const) {
      expect(result.metrics[metric].count).toBeGreaterThan(0)
      expect(result.metrics[metric].p50).toBeGreaterThan(0)
    }
    expect(result.throughput.outputTokensPerSec).toBeGreaterThan(0)
    const all = [printed, io.errors.join('\n'), await readFile(join(out, 'results.json'), 'utf8')].join('\n')
    expect(all).not.toContain(SIM_KEY)

    // The same options through the library: the same requests, lengths and tokens, exactly.
    const direct = await runBenchmark({
      target: { baseUrl: sim.url },
      workload: { kind: 'synthetic', inputTokens: { mean: 48 }, outputTokens: { mean: 12 } },
      load: { concurrency: 4, requests: 24 },
      seed: 5,
    })
    expect(result.counts).toEqual(direct.counts)
    expect(result.config).toEqual(direct.config)
    const output = result.metrics.outputTokens
    expect(output.count).toBe(direct.metrics.outputTokens.count)
    expect(total(output)).toBe(total(direct.metrics.outputTokens))
    expect([output.min, output.max]).toEqual([direct.metrics.outputTokens.min, direct.metrics.outputTokens.max])
    // The seeded prompts ask for the same lengths; each run opens them with its own random salt
    // (no prefix-cache hit from an earlier run) of 8 hex digits, a few tokens more or less.
    const { salt: _salt, saltTokens: _tokens, actualInputTokensMean: input, ...asked } = result.workload
    const { salt: _other, saltTokens: _its, actualInputTokensMean: directInput, ...directAsked } = direct.workload
    expect(asked).toEqual(directAsked)
    expect(result.metrics.inputTokens.count).toBe(direct.metrics.inputTokens.count)
    expect(Math.abs(input - directInput)).toBeLessThan(8)
    // Timings within the simulator's spread on a shared machine: the same modeled steps, measured twice.
    const ratio = result.metrics.tpotMs.p50 / direct.metrics.tpotMs.p50
    expect(ratio).toBeGreaterThan(0.5)
    expect(ratio).toBeLessThan(2)
  })

  test('diff reads two run outputs: the same load is compared, another workload is not comparable', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((name) => join(work, name)) as [string, string, string]
    for (const [dir, extra] of [
      [a, []],
      [b, []],
      [c, ['--random-input-len', '96']],
    ] as const)
      expect((await runAt(dir, [...extra])).code).toBe(0)

    const same = memoryIo()
    const code = await runCli(['diff', join(a, 'results.json'), join(b, 'results.json')], same)
    const text = same.output.join('\n')
    // Pass, or inconclusive on a busy machine (a fail would exit 1): compared either way, on the default gates.
    expect(text).toMatch(new RegExp(`[✓?✗] ${RUN_BENCH_NAME}: (PASS|INCONCLUSIVE|FAIL) \\(the default gates\\)`))
    expect(text).toMatch(/first run -> second run: /)
    expect(text).toMatch(/ttftMs p50/)
    expect(same.output.at(-1)).toMatch(/^1 bench: 1 (pass|inconclusive|fail)/)
    expect(code).toBe(/1 fail/.test(same.output.at(-1) ?? '') ? 1 : 0)

    const other = memoryIo()
    expect(await runCli(['diff', join(a, 'results.json'), join(c, 'results.json')], other)).toBe(0)
    expect(other.output.join('\n')).toContain(`≠ ${RUN_BENCH_NAME}: NOT COMPARABLE`)
    expect(other.output.join('\n')).toMatch(/workload or load changed: .*inputTokens/)
  })

  test('a server that does not answer: exit 1 with the reason, nothing written', async () => {
    const io = memoryIo()
    const out = join(work, 'refused')
    // Port 9 (discard) is closed on the loopback of a test machine.
    const code = await runCli(['run', '--base-url', 'http://127.0.0.1:9', '--num-prompts', '2', '--out', out], io)
    expect(code).toBe(1)
    expect(io.errors.join('\n')).toMatch(/vitest-llm-bench run: .*127\.0\.0\.1:9/)
    await expect(readFile(join(out, 'results.json'), 'utf8')).rejects.toThrow(/ENOENT/)
  })
})

describe('vitest-llm-bench run --llama-cpp', () => {
  // The GGUF path is the marker: on the command line of the fake llama-server, of nothing else once the CLI ends.
  let marker: string
  let gguf: string
  beforeAll(async () => {
    marker = `run-marker-${process.pid}-${Date.now()}`
    gguf = join(work, `${marker}.gguf`)
    await writeFile(gguf, '')
  })
  afterAll(() => {
    killProcessesWith(marker)
  })

  test('launches llama-server through the preset, measures it, stops it; its API key is never printed', async () => {
    const io = memoryIo()
    const out = join(work, 'llama')
    const env = process.env.FAKE_NODE
    process.env.FAKE_NODE = process.execPath
    onTestFinished(() => {
      if (env === undefined) delete process.env.FAKE_NODE
      else process.env.FAKE_NODE = env
    })
    const code = await runCli(
      [
        'run',
        '--llama-cpp',
        gguf,
        '--server-bin',
        FAKE_LLAMA,
        // With `=`: a value that starts with `--` is not taken for the next flag.
        '--server-args=--api-key sk-llama-secret-77c1 -np 2',
        '--num-prompts',
        '6',
        '--max-concurrency',
        '2',
        '--out',
        out,
      ],
      io,
    )
    expect(code, io.errors.join('\n')).toBe(0)
    await expectNoProcessesWith(marker)
    const report = await reportAt(out)
    const result = report.benches[0]!.result
    expect(result.counts).toEqual({ total: 6, completed: 6, failed: 0 })
    expect(result.environment.server).toMatchObject({ startedAs: 'llama.cpp', model: gguf })
    expect(result.environment.server.launch?.args).toEqual(
      expect.arrayContaining(['-m', gguf, '--metrics', '--api-key', '***', '-np', '2']),
    )
    expect(report.benches[0]!.file).toBe(`llama-server ${gguf}`)
    const all = [...io.output, ...io.errors, await readFile(join(out, 'results.json'), 'utf8')].join('\n')
    expect(all).not.toContain('sk-llama-secret-77c1')
  })

  test('SIGINT stops the run and the server: exit 130, what was measured written, no process left', async () => {
    const out = join(work, 'interrupted')
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { runCli } from ${JSON.stringify(CLI)}; process.exitCode = await runCli(process.argv.slice(1))`,
        'run',
        '--llama-cpp',
        gguf,
        '--server-bin',
        FAKE_LLAMA,
        '--num-prompts',
        '1000000',
        '--max-concurrency',
        '1',
        '--out',
        out,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FAKE_NODE: process.execPath } },
    )
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL')
    })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.stdout.resume()
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    for (let i = 0; i < 600 && !/requests to http:\/\/127\.0\.0\.1:\d+/.test(stderr); i++)
      await new Promise((r) => setTimeout(r, 50))
    expect(stderr).toMatch(/requests to http:\/\/127\.0\.0\.1:\d+/)
    await new Promise((r) => setTimeout(r, 1500))
    child.kill('SIGINT')
    expect(await exited, stderr).toBe(130)
    expect(stderr).toContain('vitest-llm-bench run: stopped (SIGINT)')
    await expectNoProcessesWith(marker)
    const report = await reportAt(out)
    expect(report.interrupted).toBe('SIGINT')
    expect(report.benches[0]!.result.counts.completed).toBeGreaterThan(0)
  })
})
