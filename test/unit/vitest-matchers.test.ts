import { describe, expect, test } from 'vitest'
import { baselineEntryFrom } from '../../src/core/baseline/index.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import { installMatchers, llmBenchMatchers } from '../../src/vitest/matchers.ts'
import { lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'

installMatchers()

function resultWith(seed: number, scale: number, n = 400): BenchmarkResult {
  return makeResult({ ttftMs: lognormalSamples(seededRandom(seed), n, 100, 0.2).map((v) => v * scale) })
}

const baseline = resultWith(1, 1)
const same = resultWith(2, 1)
const slower = resultWith(3, 1.3)

describe('toNotRegress', () => {
  test('passes against an equal run, given a BenchmarkResult or a BaselineEntry', () => {
    expect(same).toNotRegress(baseline, { ttftMs: { p50: '+10%' } })
    expect(same).toNotRegress(baselineEntryFrom(baseline), { ttftMs: { p50: '+10%' } })
  })

  test('fails a 30% slower run with a message naming metric, values, ratio, limit and n', () => {
    let message = ''
    try {
      expect(slower).toNotRegress(baseline, { ttftMs: { p50: '+10%' } })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/^expected no regression against the baseline recorded /)
    expect(message).toMatch(
      /ttftMs p50 is 1\d\d(?:\.\d+)? ms, baseline \d+(?:\.\d+)? ms: ratio 1\.\d{3} \(95% CI \[1\.\d{3}, 1\.\d{3}\]\) is beyond the limit 1\.100 \(\+10%, at most \d+(?:\.\d+)? ms\); n = 400 baseline \/ 400 current requests\./,
    )
    expect(message).toContain('Baseline comparison: FAIL')
  })

  test('.not passes only on a regression', () => {
    expect(slower).not.toNotRegress(baseline, { ttftMs: { p50: '+10%' } })
    expect(() => expect(same).not.toNotRegress(baseline, { ttftMs: { p50: '+10%' } })).toThrow(
      /expected a regression against the baseline, but the verdict is pass/,
    )
  })

  test('an inconclusive verdict (too few samples for p99) does not fail', () => {
    expect(resultWith(4, 1.3, 20)).toNotRegress(resultWith(5, 1, 20), { ttftMs: { p99: '+10%' } })
  })

  test('uses the default policy when none is given', () => {
    expect(() => expect(slower).toNotRegress(baseline)).toThrow(/ttftMs p50/)
  })

  test('rejects what is not a result or a baseline, and a bad policy', () => {
    expect(() => expect({ ttft: 1 }).toNotRegress(baseline)).toThrow(TypeError)
    expect(() => expect(same).toNotRegress({} as never)).toThrow(/BaselineEntry/)
    expect(() => expect(same).toNotRegress(baseline, { ttftMs: { p98: '+10%' } } as never)).toThrow(OptionsError)
  })
})

describe('toMeetSlo', () => {
  test('passes when every limit holds and fails naming the limit, measured value and n', () => {
    expect(same).toMeetSlo({ ttftMs: { p50: 500 }, errors: { maxRate: 0 } })
    expect(() => expect(same).toMeetSlo({ ttftMs: { p50: 50 } })).toThrow(
      /1 of 1 limits failed[\s\S]*ttftMs p50\s+\d+(\.\d+)? ms\s+<= 50 ms\s+400\s+FAIL/,
    )
  })

  test('.not passes only when a limit fails', () => {
    expect(same).not.toMeetSlo({ ttftMs: { p50: 50 } })
    expect(() => expect(same).not.toMeetSlo({ ttftMs: { p50: 500 } })).toThrow(/every limit holds/)
  })

  test('validates the SLO options', () => {
    expect(() => expect(same).toMeetSlo({ ttftMs: { p98: 5 } } as never)).toThrow(OptionsError)
  })

  test('the matcher object can be passed to expect.extend directly', () => {
    expect(Object.keys(llmBenchMatchers).sort()).toEqual(['toMeetSlo', 'toNotRegress'])
  })
})
