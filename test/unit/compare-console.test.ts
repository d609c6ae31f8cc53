// A `bench.llm.compare` on the console: its table printed by the reporter (not only inside a failure), its
// progress as plain lines (not Vitest's three-line wrapping of console.log), its order readable with spaced
// labels, and counted in the closing tally.
import type { TestCase } from 'vitest/node'
import { describe, expect, test } from 'vitest'
import { LlmConsoleReporter } from '../../reporters/console-reporter.ts'
import { formatCompareTable } from '../../src/bench/compare-table.ts'
import type { CompareResult, CompareVariantVerdict } from '../../src/bench/compare-bench.ts'
import { STEP_ARTIFACT_TYPE } from '../../reporters/progress-artifact.ts'

const check = (
  metric: string,
  statistic: string,
  status: 'pass' | 'fail' | 'inconclusive',
  ratio: number,
): CompareVariantVerdict['checks'][number] => ({
  metric,
  statistic,
  unit: metric === 'outputTokensPerSec' ? 'tok/s' : 'ms',
  tolerance: metric === 'outputTokensPerSec' ? -0.05 : 0.1,
  status,
  ratio,
  ciLow: ratio * 0.9,
  ciHigh: ratio * 1.1,
  pairs: 8,
  width: 'between pairs',
  control: 57.3,
  variant: 57.3 * ratio,
  ...(status === 'inconclusive' ? { reason: 'the interval straddles the limit 1.100', pairsToDecide: 13 } : {}),
})

const result: CompareResult = {
  control: 'plain sim',
  order: [
    ['plain sim', 'same sim again', 'slower sim x1.3'],
    ['slower sim x1.3', 'same sim again', 'plain sim'],
    ['plain sim', 'same sim again', 'slower sim x1.3'],
  ],
  trials: [],
  variants: [
    {
      label: 'same sim again',
      status: 'inconclusive',
      checks: [check('ttftMs', 'p50', 'inconclusive', 0.994), check('tpotMs', 'p50', 'pass', 1.001)],
      voided: [
        'pair 2 left out: only same sim again was measured on a disturbed machine (trial 1: other processes used 0.5 of 2 cores (busiest: node pid 11096 0.39))',
      ],
      bothDisturbed: 0,
      changed: [],
    },
    {
      label: 'slower sim x1.3',
      status: 'fail',
      checks: [check('ttftMs', 'p50', 'fail', 1.293), check('tpotMs', 'p50', 'fail', 1.301)],
      voided: [
        'pair 1 left out: only slower sim x1.3 was measured on a disturbed machine (trial 3: other processes used 1.0 of 2 cores)',
        'pair 3 left out: only plain sim was measured on a disturbed machine (trial 3: other processes used 0.5 of 2 cores)',
      ],
      bothDisturbed: 0,
      changed: [],
    },
  ],
  stopped: '1 gate undecided after the most pairs allowed (3)',
  confidence: 0.95,
  lastLookConfidence: 0.9811,
  durationMs: 41_000,
  arms: { mode: 'together', why: 'the simulators run in this process', slices: 4 },
}

function compareCase(state: 'passed' | 'failed', id = 'compare-1'): TestCase {
  return {
    id,
    fullName: 'scratch > three servers',
    module: { moduleId: '/repo/compare.bench.ts', relativeModuleId: 'compare.bench.ts' },
    meta: () => ({ llmBenchStarted: true, llmBenchCompare: result }),
    result: () => ({ state, errors: state === 'failed' ? [{ message: 'slower sim x1.3 vs plain sim: …' }] : [] }),
  } as unknown as TestCase
}

describe('a compare on the console', () => {
  test('the order names each arm by a letter, said once, so spaced labels stay readable', () => {
    const head = formatCompareTable(result).split('\n')[0] ?? ''
    expect(head).toContain('order ABC CBA ABC (A plain sim, B same sim again, C slower sim x1.3)')
    expect(head).not.toContain('plain sim same sim again')
  })

  test('the reporter prints the table, the pairs left out in one line per variant, and what would decide', () => {
    const lines: string[] = []
    const reporter = new LlmConsoleReporter({ write: (text) => lines.push(text), color: false, progress: false })
    reporter.onTestCaseResult(compareCase('failed'))
    const text = lines.join('\n')
    expect(text).toContain('✗ scratch > three servers (compare.bench.ts)')
    expect(text).toMatch(/\n {2}variant +gate +plain sim +variant +ratio +interval +pairs +verdict\n/)
    expect(text).toContain('  left out: same sim again: pair 2 (only same sim again disturbed)')
    expect(text).toContain(
      '  left out: slower sim x1.3: pair 1 (only slower sim x1.3 disturbed), 3 (only plain sim disturbed)',
    )
    expect(text).toContain(
      '  inconclusive: same sim again ttftMs p50: the interval straddles the limit 1.100; about 13 pairs would decide',
    )
    // The machine's process ids are in the result (ab.json, meta), not on the console.
    expect(text).not.toContain('pid')
  })

  test('its steps print as single lines, the first at once, then at most one per interval', () => {
    const step = (line: string) => ({ type: STEP_ARTIFACT_TYPE, line }) as never
    const steps = ['pair 1, starting plain sim', 'pair 1, starting same sim again', 'pair 2, starting slower sim x1.3']
    const print = (progressIntervalMs: number): string[] => {
      const lines: string[] = []
      const reporter = new LlmConsoleReporter({ write: (text) => lines.push(text), color: false, progressIntervalMs })
      const testCase = compareCase('passed')
      for (const line of steps) reporter.onTestCaseArtifactRecord(testCase, step(`scratch > three servers: ${line}`))
      return lines
    }
    expect(print(60_000)).toEqual(['  … scratch > three servers: pair 1, starting plain sim'])
    expect(print(0)).toEqual(steps.map((line) => `  … scratch > three servers: ${line}`))
  })

  test('the tally counts a compare as measured, not as failed without a result', () => {
    const lines: string[] = []
    const reporter = new LlmConsoleReporter({ write: (text) => lines.push(text), color: false, progress: false })
    const module = {
      children: {
        *allTests() {
          yield compareCase('failed')
        },
      },
    }
    reporter.onTestRunEnd([module as never])
    expect(lines).toEqual(['\nLLM benches: compares: 1 fail'])
  })
})
