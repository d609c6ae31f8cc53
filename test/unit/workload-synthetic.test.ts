import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { OptionsError, WorkloadError } from '../../src/core/contract/errors.ts'
import type { SyntheticWorkload } from '../../src/core/contract/workload-options.ts'
import { createWorkload, estimateTokens, loadTokenizerCounter } from '../../src/core/workload/index.ts'

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/datasets/${name}`, import.meta.url))
const textOf = (request: { prompt?: string; messages?: Array<{ content: string }> }): string =>
  request.prompt ?? request.messages?.[0]?.content ?? ''
const meanSd = (xs: number[]): { mean: number; sd: number } => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length
  return { mean, sd: Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) }
}
const synthetic = (overrides: Partial<SyntheticWorkload> = {}): SyntheticWorkload => ({
  kind: 'synthetic',
  inputTokens: { mean: 200, stddev: 30 },
  outputTokens: { mean: 100, stddev: 20 },
  ...overrides,
})

describe('synthetic workload', () => {
  it('honours the mean and stddev of input and output lengths, and the prompt has that many tokens', async () => {
    const workload = await createWorkload(synthetic(), { seed: 1, api: 'completions', salt: 'salt' })
    const requests = Array.from({ length: 2000 }, (_, i) => workload.next(i))
    const input = meanSd(requests.map((r) => r.expectedInputTokens as number))
    const output = meanSd(requests.map((r) => r.maxTokens as number))
    expect(Math.abs(input.mean / 200 - 1)).toBeLessThan(0.02)
    expect(Math.abs(input.sd / 30 - 1)).toBeLessThan(0.1)
    expect(Math.abs(output.mean / 100 - 1)).toBeLessThan(0.02)
    expect(Math.abs(output.sd / 20 - 1)).toBeLessThan(0.1)
    for (const request of requests.slice(0, 50)) {
      expect(estimateTokens(textOf(request))).toBe(request.expectedInputTokens)
      expect(request.ignoreEos).toBe(true)
    }
    expect(workload.size).toBeUndefined()
    expect(workload.describe()).toMatchObject({
      kind: 'synthetic',
      seed: 1,
      salt: 'salt',
      requestedInputTokensMean: 200,
      requestedOutputTokensMean: 100,
    })
  })

  it('gives fixed lengths for stddev 0 and clips to [min, max]', async () => {
    const fixed = await createWorkload(synthetic({ inputTokens: { mean: 64 }, outputTokens: { mean: 16 } }), {
      seed: 1,
      api: 'chat',
      salt: '',
    })
    for (let i = 0; i < 20; i++) {
      const request = fixed.next(i)
      expect(request.expectedInputTokens).toBe(64)
      expect(estimateTokens(textOf(request))).toBe(64)
      expect(request.maxTokens).toBe(16)
    }
    const clipped = await createWorkload(
      synthetic({ inputTokens: { mean: 12, stddev: 50, min: 5, max: 20 }, outputTokens: { mean: 3, stddev: 10 } }),
      { seed: 2, api: 'chat', salt: '' },
    )
    const inputs = Array.from({ length: 500 }, (_, i) => clipped.next(i).expectedInputTokens as number)
    const outputs = Array.from({ length: 500 }, (_, i) => clipped.next(i).maxTokens as number)
    expect(Math.min(...inputs)).toBe(5)
    expect(Math.max(...inputs)).toBe(20)
    // A wide normal piles up at both bounds.
    expect(inputs.filter((n) => n === 5).length).toBeGreaterThan(100)
    expect(inputs.filter((n) => n === 20).length).toBeGreaterThan(100)
    expect(Math.min(...outputs)).toBe(1)
  })

  it('uses a fresh salt per workload by default, and the given one when asked', async () => {
    const a = await createWorkload(synthetic(), { seed: 3, api: 'completions' })
    const b = await createWorkload(synthetic(), { seed: 3, api: 'completions' })
    const saltA = a.describe().salt as string
    const saltB = b.describe().salt as string
    expect(saltA).toMatch(/^[0-9a-f]{8}$/)
    expect(saltA).not.toBe(saltB)
    expect(a.next(0).prompt?.startsWith(`${saltA} `)).toBe(true)
    expect(a.next(0).prompt).not.toBe(b.next(0).prompt)
    // Same seed and salt: the same requests, whatever the call order.
    const c = await createWorkload(synthetic(), { seed: 3, api: 'completions', salt: saltA })
    const late = c.next(7)
    expect(c.next(0)).toEqual(a.next(0))
    expect(a.next(7)).toEqual(late)
    expect(c.describe().salt).toBe(saltA)
    // Another seed: other words and lengths.
    const d = await createWorkload(synthetic(), { seed: 4, api: 'completions', salt: saltA })
    expect(d.next(0).prompt).not.toBe(a.next(0).prompt)
  })

  it('opens every prompt with the salt and then the same shared prefix', async () => {
    const workload = await createWorkload(synthetic({ sharedPrefixTokens: 50 }), {
      seed: 5,
      api: 'chat',
      salt: 'cafe1234',
    })
    const words = Array.from({ length: 10 }, (_, i) => textOf(workload.next(i)).split(' '))
    const saltTokens = estimateTokens('cafe1234')
    for (const w of words) {
      expect(w[0]).toBe('cafe1234')
      expect(w.slice(1, 51)).toEqual(words[0]?.slice(1, 51))
    }
    // The part after the prefix differs between requests.
    expect(new Set(words.map((w) => w.slice(51, 61).join(' '))).size).toBe(10)
    // Input length = shared prefix + sampled length; the salt comes out of the sampled part.
    const request = workload.next(3)
    expect(estimateTokens(textOf(request))).toBe(request.expectedInputTokens)
    expect(words[3]?.length).toBe(1 + 50 + ((request.expectedInputTokens as number) - 50 - saltTokens))
    // Another run (other salt): same prefix words, but its first token differs, so no cache hit.
    const rerun = await createWorkload(synthetic({ sharedPrefixTokens: 50 }), { seed: 5, api: 'chat' })
    const rerunWords = textOf(rerun.next(0)).split(' ')
    expect(rerunWords[0]).not.toBe('cafe1234')
    expect(rerunWords.slice(1, 51)).toEqual(words[0]?.slice(1, 51))
  })

  it('builds chat messages or completion prompts, with ignore_eos as asked', async () => {
    const chat = (await createWorkload(synthetic(), { seed: 1, api: 'chat', salt: 's' })).next(0)
    expect(chat.prompt).toBeUndefined()
    expect(chat.messages).toHaveLength(1)
    expect(chat.messages?.[0]?.role).toBe('user')
    const completion = (
      await createWorkload(synthetic({ ignoreEos: false }), { seed: 1, api: 'completions', salt: 's' })
    ).next(0)
    expect(completion.messages).toBeUndefined()
    expect(completion.prompt).toBe(chat.messages?.[0]?.content)
    expect(completion.ignoreEos).toBe(false)
    expect(completion.maxTokens).toBe(chat.maxTokens)
  })

  it('sizes prompts with an injected token counter', async () => {
    // A counter where words longer than four letters cost two tokens.
    const countTokens = (text: string): number =>
      text
        .split(/\s+/)
        .filter(Boolean)
        .reduce((sum, w) => sum + (w.length > 4 ? 2 : 1), 0)
    const workload = await createWorkload(synthetic({ inputTokens: { mean: 300, stddev: 40 } }), {
      seed: 9,
      api: 'completions',
      salt: 'x',
      countTokens,
    })
    for (let i = 0; i < 30; i++) {
      const request = workload.next(i)
      expect(countTokens(request.prompt as string)).toBe(request.expectedInputTokens)
    }
    expect((workload.describe().vocabularyWords as number) > 32).toBe(true)
    expect(workload.describe().tokenCounter).toBe('given by the caller')
  })

  it('counts with a local tokenizer.json', async () => {
    const count = await loadTokenizerCounter(fixture('tiny-tokenizer.json'))
    // the | c a t | and | the | d o g: 9 tokens under the fixture's few merges.
    expect(count('The cat and the dog')).toBe(9)
    const workload = await createWorkload(synthetic({ tokenizer: fixture('tiny-tokenizer.json') }), {
      seed: 1,
      api: 'chat',
      salt: 's',
    })
    expect(workload.describe().tokenCounter).toMatch(/tiny-tokenizer\.json/)
    expect(textOf(workload.next(0)).length).toBeGreaterThan(0)
  })

  it('fails on a missing or broken tokenizer file with the path and what to do', async () => {
    await expect(loadTokenizerCounter(fixture('nope/tokenizer.json'))).rejects.toThrow(
      /nope\/tokenizer\.json: tokenizer file not found\. Point `workload\.tokenizer`/,
    )
    await expect(loadTokenizerCounter(fixture('jsonl-bad-json.jsonl'))).rejects.toBeInstanceOf(WorkloadError)
    await expect(loadTokenizerCounter(fixture('prompts.jsonl'))).rejects.toThrow(/not valid JSON/)
    await expect(loadTokenizerCounter(fixture('sharegpt-not-array.json'))).rejects.toThrow(/not a tokenizer\.json/)
  })

  it('rejects an unknown API kind', async () => {
    const error = await createWorkload(synthetic(), { seed: 0, api: 'images' as 'chat' }).catch((e: unknown) => e)
    expect((error as OptionsError).option).toBe('target.api')
  })

  it.each([
    [{ inputTokens: { mean: 0 } }, 'workload.inputTokens.mean'],
    [{ inputTokens: { mean: 10, stddev: -1 } }, 'workload.inputTokens.stddev'],
    [{ outputTokens: { mean: 10, min: 0 } }, 'workload.outputTokens.min'],
    [{ outputTokens: { mean: 10, min: 5, max: 4 } }, 'workload.outputTokens.max'],
    [{ outputTokens: { mean: 50, max: 20 } }, 'workload.outputTokens.mean'],
    [{ inputTokens: undefined }, 'workload.inputTokens'],
    [{ sharedPrefixTokens: -5 }, 'workload.sharedPrefixTokens'],
    [{ kind: 'random' }, 'workload.kind'],
  ])('rejects %j naming %s', async (overrides, option) => {
    const error = await createWorkload(synthetic(overrides as Partial<SyntheticWorkload>), {
      seed: 0,
      api: 'chat',
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OptionsError)
    expect((error as OptionsError).option).toBe(option)
  })
})
