import { describe, expect, test } from 'vitest'
import type { TestCase } from 'vitest/node'
import { LlmConsoleReporter, renderMarkdown } from '../../reporters/index.ts'
import { renderHtml } from '../../reporters/html/html-report.ts'
import { formatProgressLine } from '../../reporters/progress-line.ts'
import { renderConsoleEntry, renderConsoleTable } from '../../reporters/console-table.ts'
import { PROGRESS_ARTIFACT_TYPE, type BenchProgressArtifact } from '../../reporters/progress-artifact.ts'
import { moduleOf, reportEntries, testCaseOf } from '../helpers/reporter-fixtures.ts'
import { entryStatus } from '../../reporters/report-entry.ts'

function progress(done: number, elapsedMs: number, ttftP50Ms?: number): BenchProgressArtifact {
  return {
    type: PROGRESS_ARTIFACT_TYPE,
    done,
    total: 500,
    elapsedMs,
    outputTokens: done * 128,
    ...(ttftP50Ms === undefined ? {} : { ttftP50Ms }),
  }
}

describe('renderConsoleTable', () => {
  test('plain table per bench matches the snapshot', () => {
    expect(renderConsoleTable(reportEntries())).toMatchSnapshot()
  })

  test('shows p50/p99 of each latency, throughputs, errors, GPU figures and the inventory', () => {
    const [steady, regressed] = reportEntries()
    const text = renderConsoleEntry(steady!)
    const ttftLine = text.split('\n').find((line) => line.trimStart().startsWith('TTFT'))
    expect(ttftLine).toContain(`${Number(steady!.result.metrics.ttftMs.p50.toPrecision(4))} ms`)
    expect(ttftLine).toContain(`${Number(steady!.result.metrics.ttftMs.p99.toPrecision(4))} ms`)
    expect(ttftLine).toContain('p50 +5.0% pass')
    expect(text).toMatch(/output tokens\/s\s+1062 tok\/s\s+-1\.3% pass/)
    expect(text).toMatch(/GPU peak memory\s+72098 MiB/)
    expect(text).toMatch(/energy\/token\s+1\.033 J/)
    expect(text).toContain('config  chat · synthetic in 512 / out 128 tokens · concurrency 16 · 500 requests')
    expect(text).toContain('2x NVIDIA H100 80GB HBM3 (driver 550.54.15) · vllm 0.10.1')
    const failing = renderConsoleEntry(regressed!)
    expect(failing.startsWith('✗ chat > poisson arrivals')).toBe(true)
    expect(failing).toMatch(/TTFT .* p99 \+73\.8% FAIL/)
    expect(failing).toMatch(/errors\s+3\/400\s+timeout x3/)
    // No GPU sampled: no GPU rows rather than empty ones.
    expect(failing).not.toContain('GPU peak memory')
  })

  test('every report names what changed in the server since the baseline, on a pass too', () => {
    const [steady] = reportEntries()
    const upgraded = { ...steady!, verdict: { ...steady!.verdict!, changed: ['llama.cpp b1-1a2b3c4 -> b1-80fb11a'] } }
    expect(renderConsoleEntry(upgraded)).toMatch(
      /baseline pass \(3 pass\) · changed: llama\.cpp b1-1a2b3c4 -> b1-80fb11a/,
    )
    expect(renderMarkdown([upgraded])).toContain('Changed since the baseline: llama.cpp b1-1a2b3c4 -> b1-80fb11a')
    expect(renderHtml([upgraded], { generatedAt: '2026-12-01T00:00:00.000Z' })).toContain(
      'Changed since the baseline: llama.cpp b1-1a2b3c4 -&gt; b1-80fb11a',
    )
    // Nothing changed: no such line.
    expect(renderConsoleEntry(steady!)).not.toContain('changed:')
  })

  test('a segment or an arm is judged later: measured, neither a pass nor "not judged (machine disturbed)"', () => {
    const [steady] = reportEntries()
    const note =
      "segment 2 of 4: judged after the merge (npx vitest-llm-bench merge --dir <the hosts' segment folders>)"
    const segment = { ...steady!, verdict: undefined, baselineState: 'deferred' as const, notes: [note] }
    expect(entryStatus(segment)).toBe('measured')
    const console = renderConsoleEntry(segment)
    expect(console).toContain('judged later, with the other segments or arms')
    expect(console).toContain(note)
    expect(console).not.toContain('not judged')
    expect(renderHtml([segment], { generatedAt: '2026-12-01T00:00:00.000Z' })).toContain(
      'A segment of a split load or an arm of a side-by-side pair: judged with the others',
    )
    // A segment whose test failed (its server errors, say) still fails.
    expect(entryStatus({ ...segment, state: 'failed' })).toBe('fail')
  })

  test('a baseline recorded provisionally on a disturbed machine is not shown as a pass', () => {
    const [steady] = reportEntries()
    const note = 'baseline recorded provisionally: the machine was disturbed while this run measured (steal 6 %).'
    const provisional = { ...steady!, verdict: undefined, baselineState: 'provisional' as const, notes: [note] }
    expect(entryStatus(provisional)).toBe('inconclusive')
    expect(renderConsoleEntry(provisional)).toContain('baseline recorded provisionally (machine disturbed: note below)')
    const html = renderHtml([provisional], { generatedAt: '2026-12-01T00:00:00.000Z' })
    expect(html).toContain('it was recorded as a provisional baseline. No verdict passes against it')
    expect(html).not.toContain('data-status="pass"')
  })

  test('colours deltas by verdict only when asked', () => {
    const [, regressed] = reportEntries()
    const plain = renderConsoleEntry(regressed!)
    expect(plain).not.toContain('\u001b[')
    const coloured = renderConsoleEntry(regressed!, { color: true })
    expect(coloured).toContain('\u001b[31mp99 +73.8% FAIL\u001b[39m')
    expect(coloured).toContain('\u001b[33mp50 +2.3% inconclusive\u001b[39m')
    expect(coloured).toContain('\u001b[32m-1.5% pass\u001b[39m')
  })
})

describe('formatProgressLine', () => {
  test('names the stage of a longer run: the trial, or the sweep point', () => {
    const progress = { done: 3, total: 10, elapsedMs: 2000, outputTokens: 300 }
    expect(formatProgressLine('sweep', { ...progress, stage: '-np 4, point 3 of 4' })).toMatch(
      /^sweep \[-np 4, point 3 of 4\]: 3\/10 requests · /,
    )
    expect(formatProgressLine('chat', progress)).toMatch(/^chat: 3\/10 requests · /)
  })

  test('shows done/total, elapsed, recent TTFT p50 and output tokens/s', () => {
    expect(formatProgressLine('chat > steady', progress(250, 12_500, 41.23))).toBe(
      'chat > steady: 250/500 requests · 12.5 s · TTFT p50 41.23 ms · 2560 output tok/s',
    )
    expect(formatProgressLine('b', { done: 3, elapsedMs: 0, outputTokens: 0 })).toBe(
      'b: 3 requests · 0.0 s · TTFT p50 - · 0 output tok/s',
    )
  })
})

describe('a disturbed machine in the console table', () => {
  test('what disturbed it, with process ids, is said once in the note, not again in each undecided check', () => {
    const [, regressed] = reportEntries()
    const detail = '(trial 3: other processes used 1.5 of 2 cores (busiest: node pid 14502 1.31, node pid 14393 0.11))'
    const verdict = regressed!.verdict!
    const entry = {
      ...regressed!,
      verdict: {
        ...verdict,
        notes: [`The machine was disturbed while this run measured ${detail}: failures are reported as inconclusive.`],
        checks: verdict.checks.map((check) => ({
          ...check,
          status: 'inconclusive' as const,
          reason: `the machine was disturbed while this run measured ${detail}; the interval contains the limit`,
        })),
      },
    }
    const text = renderConsoleEntry(entry)
    expect(text.split('pid 14502')).toHaveLength(2)
    expect(text).toContain('inconclusive: the machine was disturbed while this run measured; the interval contains')
  })
})

describe('LlmConsoleReporter', () => {
  test('prints the table of a bench when its test finishes, nothing for other tests', () => {
    const lines: string[] = []
    const reporter = new LlmConsoleReporter({ write: (text) => lines.push(text), color: false, progress: false })
    const [steady] = reportEntries()
    reporter.onTestCaseResult(testCaseOf(steady!))
    reporter.onTestCaseResult({ ...testCaseOf(steady!), meta: () => ({}) } as unknown as TestCase)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('✓ chat > steady closed loop, 16 streams (benches/chat.bench.ts)')
  })

  test('ends the run with one tally line (Vitest 4 prints an empty bench summary), none without benches', () => {
    const lines: string[] = []
    const reporter = new LlmConsoleReporter({ write: (text) => lines.push(text), color: false, progress: false })
    reporter.onTestRunEnd([moduleOf(reportEntries())])
    expect(lines).toEqual(['\nLLM benches: 1 fail, 2 pass'])
    reporter.onTestRunEnd([moduleOf([])])
    expect(lines).toHaveLength(1)
  })

  test('turns progress artifacts into throttled progress lines', () => {
    const lines: string[] = []
    const reporter = new LlmConsoleReporter({
      write: (text) => lines.push(text),
      color: false,
      progress: true,
      progressIntervalMs: 0,
    })
    const testCase = testCaseOf(reportEntries()[0]!)
    reporter.onTestCaseArtifactRecord(testCase, progress(10, 1000, 40))
    // The first artifact only starts the clock (short benches print no progress).
    expect(lines).toHaveLength(0)
    reporter.onTestCaseArtifactRecord(testCase, progress(100, 6000, 42))
    expect(lines).toEqual([
      '  … chat > steady closed loop, 16 streams: 100/500 requests · 6.0 s · TTFT p50 42 ms · 2133 output tok/s',
    ])
    reporter.onTestCaseArtifactRecord(testCase, { type: 'internal:annotation' } as never)
    expect(lines).toHaveLength(1)

    const slow = new LlmConsoleReporter({
      write: (text) => lines.push(text),
      progress: true,
      progressIntervalMs: 60_000,
    })
    slow.onTestCaseArtifactRecord(testCase, progress(10, 1000))
    slow.onTestCaseArtifactRecord(testCase, progress(20, 2000))
    expect(lines).toHaveLength(1)
  })

  test('a server falling silent is printed at once, even on the first artifact and inside the interval', () => {
    const lines: string[] = []
    const reporter = new LlmConsoleReporter({
      write: (text) => lines.push(text),
      color: false,
      progress: true,
      progressIntervalMs: 60_000,
    })
    const testCase = testCaseOf(reportEntries()[0]!)
    const silent = { ...progress(29, 12_000, 40), silentMs: 5_400, inFlight: 4 }
    reporter.onTestCaseArtifactRecord(testCase, silent)
    expect(lines).toEqual([
      '  … chat > steady closed loop, 16 streams: 29/500 requests · 12.0 s · TTFT p50 40 ms · 309.3 output tok/s · no byte from the server for 5 s with 4 requests in flight',
    ])
    // Still silent: back to the interval.
    reporter.onTestCaseArtifactRecord(testCase, { ...silent, silentMs: 6_000 })
    expect(lines).toHaveLength(1)
  })

  test('prints no progress when progress is off', () => {
    const lines: string[] = []
    const reporter = new LlmConsoleReporter({
      write: (text) => lines.push(text),
      progress: false,
      progressIntervalMs: 0,
    })
    const testCase = testCaseOf(reportEntries()[0]!)
    for (let i = 1; i <= 3; i++) reporter.onTestCaseArtifactRecord(testCase, progress(i, i * 1000))
    expect(lines).toEqual([])
  })

  test('is plain without a terminal or under CI by default (progress stays on, every 30 s)', () => {
    const previous = process.env.CI
    process.env.CI = 'true'
    try {
      const reporter = new LlmConsoleReporter()
      expect(reporter.color).toBe(false)
      expect(reporter.progress).toBe(true)
      expect(reporter.progressIntervalMs).toBe(30_000)
    } finally {
      if (previous === undefined) delete process.env.CI
      else process.env.CI = previous
    }
  })
})
