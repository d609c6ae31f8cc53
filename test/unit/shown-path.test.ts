import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { shownPath } from '../../src/core/platform/shown-path.ts'
import { BaselineMissingError } from '../../src/core/contract/errors.ts'

describe('shownPath', () => {
  test('inside the working directory: relative, with forward slashes (what `git add` takes)', () => {
    expect(shownPath('/repo/benches/__llm_baselines__/chat.bench.ts.json', '/repo')).toBe(
      'benches/__llm_baselines__/chat.bench.ts.json',
    )
  })

  test('outside it, or the directory itself: as given', () => {
    expect(shownPath('/elsewhere/chat.bench.ts.json', '/repo')).toBe('/elsewhere/chat.bench.ts.json')
    expect(shownPath('/repo', '/repo')).toBe('/repo')
  })

  test('a missing-baseline error names the file to commit as `git add` takes it', () => {
    const path = join(process.cwd(), 'benches', '__llm_baselines__', 'chat.bench.ts.json')
    expect(new BaselineMissingError('chat', path).message).toContain(
      'and commit benches/__llm_baselines__/chat.bench.ts.json.',
    )
  })
})
