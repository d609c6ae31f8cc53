import { describe, expect, test } from 'vitest'
import {
  asParsedPolicy,
  DEFAULT_PARSED_POLICY,
  DEFAULT_REGRESSION_POLICY,
  isParsedPolicy,
  parseRegressionPolicy,
  restoreParsedPolicy,
} from '../../src/core/baseline/index.ts'

describe('a parsed policy is branded', () => {
  test('parsing brands it; a parsed policy is handed on as it is, never parsed again', () => {
    const parsed = parseRegressionPolicy({ ttftMs: { p50: '+10%' } })
    expect(isParsedPolicy(parsed)).toBe(true)
    expect(asParsedPolicy(parsed)).toBe(parsed)
    expect(isParsedPolicy({ ttftMs: { p50: '+10%' } })).toBe(false)
    expect(isParsedPolicy(DEFAULT_PARSED_POLICY)).toBe(true)
    expect(DEFAULT_PARSED_POLICY).toEqual(parseRegressionPolicy(DEFAULT_REGRESSION_POLICY))
  })

  test('the brand is not data: JSON leaves it out, and only restoreParsedPolicy gives it back', () => {
    const parsed = parseRegressionPolicy({ ttftMs: { p50: '+10%' }, outputTokensPerSec: '-5%' })
    const json = JSON.stringify(parsed)
    expect(json).not.toContain('parsed-regression-policy')
    const read: unknown = JSON.parse(json)
    expect(isParsedPolicy(read)).toBe(false)
    const restored = restoreParsedPolicy(read, 'arm.json')
    expect(isParsedPolicy(restored)).toBe(true)
    expect(restored).toEqual(parsed)
    expect(() => restoreParsedPolicy({ ttftMs: { p50: '+10%' } }, 'arm.json')).toThrow(
      /in arm\.json is not a regression policy written by vitest-llm-bench/,
    )
  })
})
