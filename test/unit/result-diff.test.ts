import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { runCli } from '../../src/cli.ts'
import { diffRuns, policyOfVerdict, type SavedBench } from '../../src/bench/result-diff.ts'
import { baselineEntryFrom } from '../../src/core/baseline/index.ts'
import { compare } from '../helpers/compare-given.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import {
  DEFAULT_CONFIG,
  environment,
  lognormalSamples,
  makeResult,
  seededRandom,
} from '../helpers/baseline-fixtures.ts'
import { memoryIo } from '../helpers/memory-io.ts'

function run(seed: number, scale = 1, overrides: Parameters<typeof makeResult>[0] = {}): BenchmarkResult {
  const random = seededRandom(seed)
  return makeResult({
    ttftMs: lognormalSamples(random, 400, 80, 0.2).map((v) => v * scale),
    tpotMs: lognormalSamples(random, 400, 12, 0.1).map((v) => v * scale),
    ...overrides,
  })
}

describe('diffRuns', () => {
  test('the second run judged against the first as a later session: unchanged does not fail, 2.3x slower fails naming the server change', () => {
    const before: SavedBench[] = [
      { name: 'same', result: run(1) },
      { name: 'slower', result: run(3) },
      { name: 'gone', result: run(5) },
    ]
    const upgraded = { ...run(4, 2.3), environment: environment({ serverVersion: '0.11.0' }) }
    // Judged on its own gates (a TTFT p50), as its run was: the default's throughput gate has no series here to decide on.
    const own = compare(baselineEntryFrom(run(1)), run(2), { ttftMs: { p50: '+10%' } })
    const after: SavedBench[] = [
      { name: 'same', result: run(2), verdict: own },
      { name: 'slower', result: upgraded },
      { name: 'new', result: run(6) },
    ]
    const diffs = diffRuns(before, after)
    // Two runs are two sessions: one apart, nothing under about 1.4x can fail or pass a +10 % gate (the assumed 12.7 %).
    expect(diffs.map((d) => [d.name, d.state === 'compared' ? d.verdict.status : d.state])).toEqual([
      ['same', 'inconclusive'],
      ['slower', 'fail'],
      ['new', 'new'],
      ['gone', 'gone'],
    ])
    const slower = diffs[1]
    expect(slower?.state === 'compared' && slower.verdict.changed).toEqual(['vllm 0.10.1 -> 0.11.0'])
    expect(slower?.state === 'compared' && slower.gates).toBe('default')
    const same = diffs[0]
    expect(same?.state === 'compared' && same.verdict.checks[0]?.reason).toContain(
      'between-session spread not known yet (1 session stored): assumed 12.7%, an allowance that spans the limit by itself: more samples cannot narrow it; measure both side by side instead',
    )
    // 1.5x slower is within what one session apart allows: not failed, and not passed.
    const [moderate] = diffRuns([{ name: 'm', result: run(3) }], [{ name: 'm', result: run(4, 1.5) }])
    expect(moderate?.state === 'compared' && moderate.verdict.status).toBe('inconclusive')
  })

  test("the spread between sessions the second run's verdict knew is the one allowed for", () => {
    // The run was judged against a stored baseline with a measured spread of 2 %: a 1.3x slower diff fails on it.
    const policy = { ttftMs: { p50: '+10%' }, assumedSessionSpread: 0.02 } as const
    const verdict = compare(baselineEntryFrom(run(1)), run(2), policy, { stored: true })
    expect(policyOfVerdict(verdict)).toEqual({
      confidence: 0.95,
      ttftMs: { p50: 0.1 },
      assumedSessionSpread: expect.closeTo(0.02, 6),
    })
    const [known] = diffRuns([{ name: 'b', result: run(1) }], [{ name: 'b', result: run(8, 1.3), verdict }])
    expect(known?.state === 'compared' && known.verdict.status).toBe('fail')
    const [unknown] = diffRuns([{ name: 'b', result: run(1) }], [{ name: 'b', result: run(8, 1.3) }])
    expect(unknown?.state === 'compared' && unknown.verdict.status).toBe('inconclusive')
  })

  test('another GPU, or another load, is not compared, and says why', () => {
    const before: SavedBench[] = [
      { name: 'gpu', result: run(1) },
      { name: 'load', result: run(1) },
    ]
    const after: SavedBench[] = [
      { name: 'gpu', result: { ...run(2), environment: environment({ gpu: 'NVIDIA H200' }) } },
      { name: 'load', result: run(2, 1, { config: { ...DEFAULT_CONFIG, load: { concurrency: 32, requests: 500 } } }) },
    ]
    const [gpu, load] = diffRuns(before, after)
    expect(gpu?.state === 'not comparable' && gpu.reasons.join('\n')).toContain(
      'environment changed: GPU NVIDIA A100-SXM4-80GB -> NVIDIA H200',
    )
    expect(load?.state === 'not comparable' && load.reasons.join('\n')).toContain(
      'workload or load changed: load.concurrency 16 -> 32',
    )
  })

  test("the bench's own gates, read back from the verdict its run gave, decide", () => {
    // A 1.08x slower TTFT: within the default +10 %, beyond the bench's own +2 %.
    const baseline = run(1)
    const verdict = compare(baselineEntryFrom(baseline), run(2), { ttftMs: { p50: '+2%' }, confidence: 0.9 })
    expect(policyOfVerdict(verdict)).toEqual({ confidence: 0.9, ttftMs: { p50: 0.02 } })
    const [own] = diffRuns([{ name: 'b', result: baseline }], [{ name: 'b', result: run(7, 1.08), verdict }])
    expect(
      own?.state === 'compared' && [
        own.gates,
        own.verdict.status,
        own.verdict.checks.map((c) => `${c.metric} ${c.statistic}`),
      ],
    ).toEqual(['own', 'inconclusive', ['ttftMs p50']])
    const [defaults] = diffRuns([{ name: 'b', result: baseline }], [{ name: 'b', result: run(7, 1.08) }])
    expect(defaults?.state === 'compared' && defaults.verdict.checks.map((c) => c.metric)).toContain('tpotMs')
  })
})

describe('vitest-llm-bench diff', () => {
  async function reports(before: SavedBench[], after: SavedBench[]): Promise<[string, string]> {
    const dir = await mkdtemp(join(tmpdir(), 'llm-diff-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const write = async (name: string, benches: SavedBench[]) => {
      const path = join(dir, name)
      await writeFile(
        path,
        JSON.stringify({ reportVersion: 1, tool: 'vitest-llm-bench', generatedAt: '2026-12-04T00:00:00Z', benches }),
      )
      return path
    }
    return [await write('a.json', before), await write('b.json', after)]
  }

  test('exit 1 with the failing bench named and the table; -t keeps only matching benches', async () => {
    const gates = compare(baselineEntryFrom(run(1)), run(2), { ttftMs: { p50: '+10%' }, tpotMs: { p50: '+10%' } })
    const [a, b] = await reports(
      [
        { name: 'chat > same', result: run(1) },
        { name: 'chat > slower', result: run(3) },
      ],
      [
        { name: 'chat > same', result: run(2), verdict: gates },
        { name: 'chat > slower', result: run(4, 2.3), verdict: gates },
      ],
    )
    const io = memoryIo()
    expect(await runCli(['diff', a, b], io)).toBe(1)
    const text = io.output.join('\n')
    expect(text).toContain("? chat > same: INCONCLUSIVE (the bench's own gates)")
    expect(text).toContain("✗ chat > slower: FAIL (the bench's own gates)")
    expect(text).toMatch(/first run -> second run: FAIL/)
    expect(text).toMatch(/ttftMs p50\s+\d+(\.\d+)? ms\s+\d+(\.\d+)? ms\s+1\.\d{3}/)
    expect(io.output.at(-1)).toBe('2 benches: 1 inconclusive, 1 fail: FAILED')
    const only = memoryIo()
    expect(await runCli(['diff', a, b, '-t', 'same$'], only)).toBe(0)
    expect(only.output.at(-1)).toBe('1 bench: 1 inconclusive')
  })

  test('a disturbed machine is said once per bench with its process ids, the legend once per diff', async () => {
    const busy = (result: BenchmarkResult, pid: number): BenchmarkResult => ({
      ...result,
      client: {
        ...result.client,
        selfCheck: {
          cores: 2,
          loadAverage1m: 2,
          otherCores: 1.5,
          disturbed: [`trial 3: other processes used 1.5 of 2 cores (busiest: node pid ${pid} 1.31)`],
        },
      },
    })
    const [a, b] = await reports(
      [
        { name: 'chat > open', result: busy(run(1), 13368) },
        { name: 'chat > closed', result: busy(run(3), 13815) },
      ],
      [
        { name: 'chat > open', result: busy(run(2), 14502) },
        { name: 'chat > closed', result: busy(run(4), 14854) },
      ],
    )
    const io = memoryIo()
    expect(await runCli(['diff', a, b], io)).toBe(0)
    const text = io.output.join('\n')
    for (const pid of [13368, 13815, 14502, 14854]) expect(text.split(`pid ${pid} `)).toHaveLength(2)
    expect(text.match(/ratio = current \/ baseline/g)).toHaveLength(1)
    // Checks undecided for one reason are listed together: one line, not one per check.
    expect(text).toMatch(/ttftMs p50, tpotMs p50(, outputTokensPerSec)? inconclusive: /)
  })

  test('a second run that lost 5 % of its requests to the server fails, exit 1; a first run that did is no baseline', async () => {
    const lossy = (result: BenchmarkResult): BenchmarkResult => ({
      ...result,
      counts: { total: 420, completed: 400, failed: 20 },
      errors: [{ kind: 'http', message: 'HTTP 500: internal error', count: 20 }],
    })
    const [a, b] = await reports(
      [
        { name: 'chat > second lost', result: run(1) },
        { name: 'chat > first lost', result: lossy(run(3)) },
      ],
      [
        { name: 'chat > second lost', result: lossy(run(2)) },
        { name: 'chat > first lost', result: run(4) },
      ],
    )
    const io = memoryIo()
    expect(await runCli(['diff', a, b], io)).toBe(1)
    const text = io.output.join('\n')
    expect(text).toContain(
      '✗ chat > second lost: FAIL\n  the second run: 20 of 420 requests failed (4.8 %), above the 1 % a run may lose and still be judged; most often 20 x http: HTTP 500: internal error',
    )
    expect(text).toContain(
      '≠ chat > first lost: NOT COMPARABLE\n  the first run: 20 of 420 requests failed (4.8 %), above the 1 % a baseline may lose',
    )
    expect(io.output.at(-1)).toBe('2 benches: 1 fail, 1 not comparable: FAILED')
  })

  test('bad input: a clear line and exit 1 or 2', async () => {
    const [a] = await reports([], [])
    const io = memoryIo()
    expect(await runCli(['diff', a], io)).toBe(2)
    expect(io.errors.join('\n')).toContain('diff takes two saved runs, got 1')
    const missing = memoryIo()
    expect(await runCli(['diff', a, '/nonexistent/results.json'], missing)).toBe(1)
    expect(missing.errors.join('\n')).toContain('Cannot read /nonexistent/results.json: ENOENT')
    const notReport = join(a, '..', 'other.json')
    await writeFile(notReport, '{"benches": []}')
    const wrong = memoryIo()
    expect(await runCli(['diff', a, notReport], wrong)).toBe(1)
    expect(wrong.errors.join('\n')).toContain('is not a vitest-llm-bench JSON report')
  })
})
