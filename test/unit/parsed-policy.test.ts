import { describe, expect, test } from 'vitest'
import {
  asParsedPolicy,
  DEFAULT_PARSED_POLICY,
  DEFAULT_REGRESSION_POLICY,
  isParsedPolicy,
  parseRegressionPolicy,
  restoreParsedPolicy,
} from '../../src/core/verdict/index.ts'

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

describe("an ab arm file's policy", () => {
  test('comes back branded: ab judges it as the parsed policy it was written from', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { readArmFiles, writeArmFile } = await import('../../src/bench/arm-file.ts')
    const { makeResult } = await import('../helpers/baseline-fixtures.ts')
    const dir = await mkdtemp(join(tmpdir(), 'arm-policy-'))
    try {
      const policy = parseRegressionPolicy({ ttftMs: { p50: '+10%' } })
      const arm = { label: 'head', pair: 1, dir }
      await writeArmFile(arm, join(process.cwd(), 'chat.bench.ts'), 'chat', policy, undefined, makeResult({}))
      await writeArmFile(
        { ...arm, pair: 2 },
        join(process.cwd(), 'chat.bench.ts'),
        'chat',
        false,
        undefined,
        makeResult({}),
      )
      const [first, second] = await readArmFiles(dir)
      expect(isParsedPolicy(first?.policy)).toBe(true)
      expect(first?.policy).toEqual(policy)
      expect(second?.policy).toBe(false)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
