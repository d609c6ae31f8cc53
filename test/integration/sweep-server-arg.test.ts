import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runSweepBenchmark } from '../../src/bench/sweep-bench.ts'
import { validateBenchSweepOptions } from '../../src/bench/sweep-bench-options.ts'
import { baselinePathFor } from '../../src/core/baseline/index.ts'
import { command, connect } from '../../src/core/server/index.ts'
import { simulator } from '../../src/vitest/index.ts'
import { expectNoProcessesWith } from '../helpers/processes.ts'

const cli = fileURLToPath(new URL('../../bin/vitest-llm-bench.js', import.meta.url))
// The model id marks this file's simulator processes in the process table.
const marker = `sweep-arg-${process.pid}`

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-sweep-arg-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The simulator as a launched command: 10 ms per decode step whatever the batch, so throughput follows --max-seqs. */
const server = command(
  [
    process.execPath,
    cli,
    'sim',
    '--port',
    '{port}',
    '--model',
    marker,
    '--max-seqs',
    '1',
    '--prefill-ms',
    '1',
    '--prefill-ms-per-token',
    '0',
    '--decode-ms',
    '10',
    '--decode-ms-per-seq',
    '0',
  ],
  { stopGraceMs: 2_000 },
)

const options = {
  server,
  workload: { kind: 'synthetic' as const, inputTokens: { mean: 16 }, outputTokens: { mean: 8 }, ignoreEos: true },
  over: { serverArg: { '--max-seqs': [16, 1, 2, 4, 8] } },
  load: { concurrency: 8, requests: 32 },
  seed: 3,
  serverMetrics: false as const,
  expect: { knee: { notEarlierThanBaseline: true }, throughput: [{ at: 8, minVsBaseline: 0.5 }] },
}

describe('a sweep over a server launch argument', () => {
  test('starts a server per value, draws the curve and finds the knee, records the curve, leaves no process', async () => {
    const file = join(dir, 'args.bench.ts')
    const stages = new Set<string>()
    const run = (update: 'new' | 'none') =>
      runSweepBenchmark({
        name: 'max-seqs',
        file,
        options,
        provided: { update, ci: update === 'none' },
        onProgress: (_progress, stage) => stages.add(stage),
      })

    const recorded = await run('new')
    // Progress names each point as it runs.
    expect([...stages]).toEqual([1, 2, 4, 8, 16].map((value, i) => `--max-seqs ${value}, point ${i + 1} of 5`))
    expect(recorded.failure).toBeUndefined()
    const { result } = recorded.meta
    expect(result.axis).toBe('serverArg')
    expect(result.serverArg).toBe('--max-seqs')
    expect(result.curve.map((point) => point.value)).toEqual([1, 2, 4, 8, 16])
    // Each point on its own server, started with that point's value (the first value replaced in place).
    const ports = result.points.map(
      (point) => new URL(String((point.result.config.target as { baseUrl: string }).baseUrl)).port,
    )
    expect(new Set(ports).size).toBe(5)
    for (const point of result.points) {
      const args = point.result.environment.server.launch?.args ?? []
      expect(args.filter((arg) => arg === '--max-seqs')).toHaveLength(1)
      expect(args[args.indexOf('--max-seqs') + 1]).toBe(String(point.value))
    }
    // 8 streams: each doubling of --max-seqs up to 8 nearly doubles throughput, 16 buys nothing.
    const tokPerSec = result.curve.map((point) => point.outputTokensPerSec)
    expect(tokPerSec[3]! / tokPerSec[0]!).toBeGreaterThan(4)
    expect(result.knee).toMatchObject({ value: 8, saturated: true })
    await expectNoProcessesWith(marker)

    const stored = JSON.parse(await readFile(baselinePathFor(file), 'utf8')) as {
      entries: Record<string, { launch?: { args: string[] }; sweep?: { serverArg?: string } }>
    }
    const entry = stored.entries['max-seqs']
    expect(entry?.sweep?.serverArg).toBe('--max-seqs')
    // The stored launch is the curve's, not one point's: the swept value is written {swept}.
    expect(entry?.launch?.args.join(' ')).toContain('--max-seqs {swept}')

    const compared = await run('none')
    expect(compared.meta.baselineState).toBe('compare')
    // Recorded while the machine was disturbed (a busy CI host), the curve is provisional and nothing passes against
    // it: inconclusive, as against a bench's provisional entry.
    const provisional = recorded.meta.checks.some((check) => check.name === 'baseline' && check.status === 'skip')
    const vsBaseline = provisional ? 'inconclusive' : 'pass'
    expect(compared.meta.checks.map((check) => [check.name, check.status])).toEqual([
      ['output tokens/s at --max-seqs 8 vs baseline', vsBaseline],
      ['knee vs baseline', vsBaseline],
    ])
    expect(compared.failure).toBeUndefined()
    await expectNoProcessesWith(marker)
  }, 180_000)

  test('needs a server the bench launches, and one argument with numeric values', () => {
    const sweep = (extra: Record<string, unknown>) => () =>
      validateBenchSweepOptions('np', {
        workload: options.workload,
        load: { concurrency: 4, requests: 8 },
        over: { serverArg: { '-np': [1, 2] } },
        ...extra,
      })
    expect(sweep({ server: simulator() })).toThrow(
      /over\.serverArg\.-np.*needs a server the bench launches.*the built-in simulator takes options/s,
    )
    expect(sweep({ server: connect('http://127.0.0.1:8000') })).toThrow(/only connects to a server/)
    expect(sweep({})).toThrow(/has no server of its own.*llamaCpp/s)
    expect(sweep({ server, over: { serverArg: { '-np': [1, 'x'] } } })).toThrow(
      /over\.serverArg\.-np\[1\].*a finite number/,
    )
    expect(sweep({ server, over: { serverArg: { '-np': [1], '-ub': [2] } } })).toThrow(/exactly one argument/)
    expect(sweep({ server, over: { serverArg: { '--port': [1] } } })).toThrow(/chosen by the bench/)
    expect(sweep({ server, over: { serverArg: { np: [1] } } })).toThrow(/as written on the command line/)
    expect(sweep({ server, load: { rampUp: { durationMs: 10 }, requests: 8 } })).toThrow(/load\.rampUp/)
    // A fixed open-loop rate is a load a server-argument sweep may run at every point.
    expect(sweep({ server, load: { rate: 4, requests: 8 } })).not.toThrow()
  })
})

describe('a sweep whose server fails requests', () => {
  test('fails naming the point and the errors, on any machine, and writes no baseline', async () => {
    const file = join(dir, 'errors.bench.ts')
    const outcome = await runSweepBenchmark({
      name: 'failing curve',
      file,
      options: {
        server: simulator({ seed: 5, faults: { httpErrorRate: 0.1, httpErrorStatus: 500 } }),
        workload: { kind: 'synthetic', inputTokens: { mean: 16 }, outputTokens: { mean: 4 } },
        over: { concurrency: [1, 2] },
        load: { requests: 60 },
        serverMetrics: false,
      },
      provided: { update: 'new', ci: false },
    })
    const failedChecks = outcome.meta.checks.filter((check) => check.status === 'fail')
    expect(failedChecks.map((check) => check.name)).toEqual([
      'failed requests at concurrency 1',
      'failed requests at concurrency 2',
    ])
    expect(failedChecks[0]?.message).toMatch(
      /^\d+ of 60 requests failed \([\d.]+ %\), above the 1 % a point may lose; most often \d+ x http: .*500/,
    )
    expect(outcome.failure).toContain('failed requests at concurrency 1:')
    expect(outcome.meta.checks).toContainEqual({
      name: 'baseline',
      status: 'skip',
      message: 'not compared or written: points lost requests',
    })
    expect(existsSync(baselinePathFor(file))).toBe(false)
  }, 60_000)
})
