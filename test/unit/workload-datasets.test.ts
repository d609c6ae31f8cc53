import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { OptionsError, WorkloadError } from '../../src/core/contract/errors.ts'
import type { ApiKind } from '../../src/core/contract/api-kinds.ts'
import type { WorkloadOptions } from '../../src/core/contract/workload-options.ts'
import { createWorkload, estimateTokens, TRACE_BLOCK_TOKENS } from '../../src/core/workload/index.ts'
import { buildRequestBody } from '../../src/core/client/request-body.ts'

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/datasets/${name}`, import.meta.url))
const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex')
const textOf = (request: { prompt?: string; messages?: Array<{ content: string }> }): string =>
  request.prompt ?? request.messages?.[0]?.content ?? ''

/** The WorkloadError of building `options`; fails the test when it builds. */
async function workloadError(options: WorkloadOptions, api: ApiKind = 'chat'): Promise<WorkloadError> {
  const error = await createWorkload(options, { seed: 0, api }).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(WorkloadError)
  return error as WorkloadError
}

describe('sharegpt workload', () => {
  const path = fixture('sharegpt-small.json')
  const usable = [
    'What is the capital city of France and why is it famous?',
    'Explain what a hash table is in two sentences.',
    'List three prime numbers greater than ten, with a short note on each.',
    'Café naïve résumé: explain these accented words — and the "quotes" \\ backslash.',
  ]

  it('takes the first human turn and sizes max_tokens from the reply, filtering as vLLM', async () => {
    const workload = await createWorkload({ kind: 'sharegpt', path }, { seed: 1, api: 'chat' })
    expect(workload.size).toBe(4)
    const requests = Array.from({ length: 4 }, (_, i) => workload.next(i))
    expect(requests.map(textOf).sort()).toEqual([...usable].sort())
    const france = requests.find((r) => textOf(r).startsWith('What is the capital'))
    expect(france?.maxTokens).toBe(
      estimateTokens('Paris is the capital of France. It is famous for the Eiffel Tower, the Louvre and its cafes.'),
    )
    expect(france?.expectedInputTokens).toBe(estimateTokens(usable[0] as string))
    // The first gpt reply after the human turn, not a later one.
    const primes = requests.find((r) => textOf(r).startsWith('List three'))
    expect(primes?.maxTokens).toBe(
      estimateTokens('Eleven, thirteen and seventeen are all primes: none has a divisor other than one and itself.'),
    )
    expect(requests.every((r) => r.ignoreEos === undefined && r.messages?.[0]?.role === 'user')).toBe(true)
    // Requests cycle through the samples.
    expect(workload.next(4)).toEqual(workload.next(0))
    expect(workload.next(-1)).toEqual(workload.next(3))
    expect(workload.describe()).toMatchObject({
      kind: 'sharegpt',
      path,
      sha256: sha256(path),
      seed: 1,
      entries: 9,
      samples: 4,
      skipped: {
        'prompt too short': 1,
        'reply too short': 1,
        'no human turn followed by a reply': 1,
        'no conversations': 1,
        'prompt too long': 1,
      },
    })
  })

  it('shuffles with the seed', async () => {
    const order = async (seed: number): Promise<string[]> => {
      const workload = await createWorkload({ kind: 'sharegpt', path }, { seed, api: 'completions' })
      return Array.from({ length: 4 }, (_, i) => workload.next(i).prompt as string)
    }
    expect(await order(1)).toEqual(await order(1))
    const orders = new Set(await Promise.all([1, 2, 3, 4, 5].map(async (seed) => (await order(seed)).join('|'))))
    expect(orders.size).toBeGreaterThan(1)
  })

  it('uses outputTokens for every request, as --sharegpt-output-len, and then keeps short or missing replies', async () => {
    const workload = await createWorkload({ kind: 'sharegpt', path, outputTokens: 33 }, { seed: 1, api: 'completions' })
    expect(workload.size).toBe(6)
    for (let i = 0; i < 6; i++) expect(workload.next(i).maxTokens).toBe(33)
  })

  it('fails when no conversation is usable, saying why', async () => {
    const error = await workloadError({ kind: 'sharegpt', path: fixture('sharegpt-no-usable.json') })
    expect(error.path).toBe(fixture('sharegpt-no-usable.json'))
    expect(error.message).toMatch(
      /no usable conversation among 4 entries \(1 prompt too short, 2 no human turn followed by a reply, 1 no conversations\)/,
    )
    expect(error.message).toMatch(/"from": "human"/)
  })

  it('fails on broken JSON with the line', async () => {
    const syntax = await workloadError({ kind: 'sharegpt', path: fixture('sharegpt-bad-syntax.json') })
    expect(syntax.line).toBe(4)
    expect(syntax.message).toMatch(/sharegpt-bad-syntax\.json:4: entry 1 is not valid JSON/)
    const notArray = await workloadError({ kind: 'sharegpt', path: fixture('sharegpt-not-array.json') })
    expect(notArray.message).toMatch(/:1: is not a JSON array/)
    const truncated = await workloadError({ kind: 'sharegpt', path: fixture('sharegpt-truncated.json') })
    expect(truncated.message).toMatch(/ends before the closing `\]`.*Download the file again/)
  })

  it('fails on a missing file with the path and what to do', async () => {
    const error = await workloadError({ kind: 'sharegpt', path: fixture('missing.json') })
    expect(error.message).toBe(
      `${fixture('missing.json')}: file not found. Check the path (in a bench a relative path resolves from the bench file's folder; in runBenchmark from the working directory, unless RunContext.baseDir says otherwise) or download the dataset first.`,
    )
    const directory = await workloadError({ kind: 'jsonl', path: fixture('') })
    expect(directory.message).toMatch(/directory, not a file/)
  })
})

describe('jsonl workload', () => {
  const path = fixture('prompts.jsonl')

  it('reads prompt and messages lines in order, skipping blank lines', async () => {
    const workload = await createWorkload({ kind: 'jsonl', path }, { seed: 0, api: 'chat' })
    expect(workload.size).toBe(3)
    expect(workload.next(0)).toEqual({
      messages: [{ role: 'user', content: 'Summarize the plot of Hamlet in one paragraph.' }],
      maxTokens: 64,
      expectedInputTokens: 9,
    })
    expect(workload.next(1).messages).toEqual([
      { role: 'system', content: 'You are concise.' },
      { role: 'user', content: 'Name three uses of a paperclip.' },
    ])
    expect(workload.next(1).maxTokens).toBe(32)
    expect(workload.next(2).maxTokens).toBeUndefined()
    expect(workload.next(3)).toEqual(workload.next(0))
    // Requests are copies: changing one does not change the next.
    workload.next(0).messages?.push({ role: 'user', content: 'x' })
    expect(workload.next(0).messages).toHaveLength(1)
    expect(workload.describe()).toMatchObject({
      kind: 'jsonl',
      path,
      sha256: sha256(path),
      requests: 3,
      requestedOutputTokensMean: 48,
      linesWithoutMaxTokens: 1,
    })
  })

  it('sends prompts as `prompt` to the completions API, and refuses messages there', async () => {
    const error = await workloadError({ kind: 'jsonl', path }, 'completions')
    expect(error.line).toBe(3)
    expect(error.message).toMatch(/prompts\.jsonl:3: has "messages", but the target uses the completions API/)
  })

  it.each([
    ['jsonl-bad-json.jsonl', 4, /invalid JSON/],
    ['jsonl-missing-prompt.jsonl', 2, /has neither "prompt" nor "messages"/],
    ['jsonl-bad-max-tokens.jsonl', 2, /"max_tokens" must be a whole number >= 1, got -3/],
    ['jsonl-bad-messages.jsonl', 2, /"messages"\[0\] must be \{"role"/],
  ])('fails on %s at line %i, saying what is wrong and the format', async (name, line, problem) => {
    const error = await workloadError({ kind: 'jsonl', path: fixture(name) })
    expect(error.path).toBe(fixture(name))
    expect(error.line).toBe(line)
    expect(error.message.startsWith(`${fixture(name)}:${line}: `)).toBe(true)
    expect(error.message).toMatch(problem)
    expect(error.message).toMatch(/Each line must be a JSON object like \{"prompt": "..."\}/)
  })
})

describe('prompts workload', () => {
  it('sends the prompts round-robin with max_tokens', async () => {
    const workload = await createWorkload(
      { kind: 'prompts', prompts: ['one two', 'three'], maxTokens: 7 },
      { seed: 0, api: 'completions' },
    )
    expect([0, 1, 2, 3].map((i) => workload.next(i).prompt)).toEqual(['one two', 'three', 'one two', 'three'])
    expect(workload.next(0)).toEqual({ prompt: 'one two', maxTokens: 7, expectedInputTokens: 2 })
    const chat = await createWorkload({ kind: 'prompts', prompts: ['hi'] }, { seed: 0, api: 'chat' })
    expect(chat.next(5)).toEqual({
      messages: [{ role: 'user', content: 'hi' }],
      maxTokens: 128,
      expectedInputTokens: 1,
    })
  })

  it('rejects an empty list or an empty prompt before sending', async () => {
    await expect(createWorkload({ kind: 'prompts', prompts: [] }, { seed: 0, api: 'chat' })).rejects.toThrow(
      OptionsError,
    )
    await expect(createWorkload({ kind: 'prompts', prompts: [] }, { seed: 0, api: 'chat' })).rejects.toThrow(
      /`workload.prompts`: is empty\. Give at least one prompt/,
    )
    await expect(createWorkload({ kind: 'prompts', prompts: ['ok', ''] }, { seed: 0, api: 'chat' })).rejects.toThrow(
      /workload\.prompts\[1\]/,
    )
    await expect(
      createWorkload({ kind: 'prompts', prompts: ['ok'], maxTokens: 0 }, { seed: 0, api: 'chat' }),
    ).rejects.toThrow(/workload\.maxTokens/)
  })
})

describe('ignoreEos: one option on every workload', () => {
  const target = { baseUrl: 'http://127.0.0.1:1', api: 'chat' as const, model: 'm', timeoutMs: 1000 }
  const files: WorkloadOptions[] = [
    { kind: 'prompts', prompts: ['hi'], maxTokens: 9 },
    { kind: 'jsonl', path: fixture('prompts.jsonl') },
    { kind: 'sharegpt', path: fixture('sharegpt-small.json') },
  ]

  it('datasets and given prompts let the model stop by default (as vLLM without --ignore-eos), and pin the length with ignoreEos: true', async () => {
    for (const options of files) {
      const free = await createWorkload(options, { seed: 0, api: 'chat' })
      expect(free.next(0).ignoreEos, options.kind).toBeUndefined()
      expect(buildRequestBody(target as never, free.next(0))).not.toHaveProperty('ignore_eos')
      expect(free.describe().ignoreEos).toBe(false)
      const pinned = await createWorkload({ ...options, ignoreEos: true }, { seed: 0, api: 'chat' })
      const body = buildRequestBody(target as never, pinned.next(0))
      expect(body, options.kind).toMatchObject({ ignore_eos: true, min_tokens: body.max_tokens })
      expect(pinned.describe().ignoreEos).toBe(true)
    }
    await expect(
      createWorkload({ kind: 'prompts', prompts: ['hi'], ignoreEos: 'yes' as never }, { seed: 0, api: 'chat' }),
    ).rejects.toThrow(/`workload.ignoreEos`: must be true or false, got "yes"\. Leave it out/)
  })
})

describe('trace workload (mooncake)', () => {
  const path = fixture('trace-mooncake.jsonl')

  it('replays timestamps and lengths, sharing a prefix where hash ids are shared', async () => {
    const workload = await createWorkload({ kind: 'trace', path }, { seed: 0, api: 'completions', salt: 'feed' })
    expect(workload.size).toBe(4)
    expect(workload.timestampsMs).toEqual([0, 50, 50, 300])
    const requests = [0, 1, 2, 3].map((i) => workload.next(i))
    expect(requests.map((r) => r.expectedInputTokens)).toEqual([1100, 700, 300, 1030])
    expect(requests.map((r) => estimateTokens(r.prompt as string))).toEqual([1100, 700, 300, 1030])
    expect(requests.map((r) => r.maxTokens)).toEqual([20, 10, 5, 8])
    expect(requests.map((r) => r.timestampMs)).toEqual([0, 50, 50, 300])
    expect(requests.every((r) => r.ignoreEos === true && r.prompt?.startsWith('feed '))).toBe(true)
    const words = requests.map((r) => (r.prompt as string).split(' '))
    const common = (a: string[], b: string[]): number => {
      let n = 0
      while (n < a.length && a[n] === b[n]) n++
      return n
    }
    const B = TRACE_BLOCK_TOKENS
    // Salt + block 0 shared by records 0 and 1; salt + blocks 0 and 1 by records 0 and 3; only the salt by 0 and 2.
    expect(common(words[0] as string[], words[1] as string[])).toBeGreaterThanOrEqual(1 + B)
    expect(common(words[0] as string[], words[1] as string[])).toBeLessThan(1 + B + 8)
    expect(common(words[0] as string[], words[3] as string[])).toBeGreaterThanOrEqual(1 + 2 * B)
    expect(common(words[0] as string[], words[2] as string[])).toBeLessThan(8)
    expect(workload.describe()).toMatchObject({
      kind: 'trace',
      path,
      sha256: sha256(path),
      salt: 'feed',
      records: 4,
      spanMs: 300,
    })
  })

  it.each([
    ['trace-unsorted.jsonl', 3, /"timestamp" 200 is earlier than the line before \(500\)/],
    ['trace-bad-field.jsonl', 2, /"input_length" must be a whole number >= 1, got "ten"/],
  ])('fails on %s at line %i', async (name, line, problem) => {
    const error = await workloadError({ kind: 'trace', path: fixture(name) })
    expect(error.line).toBe(line)
    expect(error.message).toMatch(problem)
    expect(error.message).toMatch(/mooncake trace record/)
  })
})
