import { describe, expect, onTestFinished, test } from 'vitest'
import { OptionsError } from '../../src/core/contract/errors.ts'
import { startSimulator } from '../../src/sim/index.ts'
import { buildSimulatorText, countSimulatorTokens } from '../../src/sim/tokens.ts'
import type { RunningSimulator, SimulatorOptions } from '../../src/sim/index.ts'
import { resolveSimulatorOptions } from '../../src/sim/options.ts'
import { hashPromptBlocks, PrefixCache } from '../../src/sim/prefix-cache.ts'
import { parseCompletionRequest } from '../../src/sim/request.ts'
import type { CompletionRequest } from '../../src/sim/request.ts'
import { BatchScheduler } from '../../src/sim/scheduler.ts'
import type { BatchSequence, BatchTimings } from '../../src/sim/scheduler.ts'
import { splitSimulatorTokens } from '../../src/sim/tokens.ts'
import { parseCliFlags } from '../../src/cli/cli-command.ts'
import { simulatorCommand, simulatorOptionsFromFlags } from '../../src/cli/simulator-command.ts'
import { chatBody, eventJson, post } from '../helpers/sim-test-client.ts'
import { VirtualClock } from '../helpers/virtual-clock.ts'

async function started(options: SimulatorOptions): Promise<RunningSimulator> {
  const sim = await startSimulator(options)
  onTestFinished(() => sim.close())
  return sim
}

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

function parsed(api: 'chat' | 'completions', body: unknown): CompletionRequest {
  const result = parseCompletionRequest(api, body, {
    model: 'sim-model',
    defaultMaxTokens: 16,
    maxModelLen: 32768,
    keepPromptTokens: true,
  })
  if (!result.ok) throw new Error(result.problem.message)
  return result.request
}

function usageOf(res: { events: Array<{ data: string }> }): {
  prompt_tokens: number
  prompt_tokens_details?: { cached_tokens: number }
} {
  const chunk = eventJson(res as never).at(-1) as {
    usage?: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens: number } }
  }
  if (!chunk.usage) throw new Error('no usage chunk')
  return chunk.usage
}

describe('prompt tokens for hashing', () => {
  test('splitSimulatorTokens cuts long words into 8-code-point pieces and always has countSimulatorTokens entries', () => {
    expect(splitSimulatorTokens('  short  averyveryverylongword 🙂🙂🙂🙂🙂🙂🙂🙂🙂 ')).toEqual([
      'short',
      'averyver',
      'yverylon',
      'gword',
      '🙂🙂🙂🙂🙂🙂🙂🙂',
      '🙂',
    ])
    for (const text of [
      '',
      'a',
      'eightchr ninechars',
      'façade jalapeño 数据模型東京数据模型東京',
      buildSimulatorText(100, 3),
    ]) {
      expect(splitSimulatorTokens(text)).toHaveLength(countSimulatorTokens(text))
    }
  })

  test('the parser keeps the token count it had and hands over the tokens only when asked', () => {
    const messages = [
      { role: 'system', content: 'be brief averyveryverylongword' },
      { role: 'assistant', content: null },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one two' },
          { type: 'image_url', image_url: { url: 'x' } },
          { type: 'text', text: 'three' },
        ],
      },
    ]
    const chat = parsed('chat', { messages })
    // 'averyveryverylongword' is 3 tokens: 5 in the system turn, none in the assistant's, 3 in the user's.
    expect(chat.promptTokens).toBe(8)
    expect(chat.promptTokenTexts).toHaveLength(chat.promptTokens)
    // Role markers ride on the first token of each message; the empty assistant turn passes its marker on.
    expect(chat.promptTokenTexts?.[0]).toBe('\nsystem\nbe')
    expect(chat.promptTokenTexts?.[5]).toBe('\nassistant\n\nuser\none')
    expect(chat.promptTokenTexts?.slice(6)).toEqual(['two', 'three'])
    expect(parsed('completions', { prompt: [[7, 8, 9]] }).promptTokenTexts).toEqual(['\t7', '\t8', '\t9'])
    expect(parsed('completions', { prompt: 'seven eight' }).promptTokenTexts).toEqual(['seven', 'eight'])
    const plain = parseCompletionRequest(
      'chat',
      { messages },
      { model: 'sim-model', defaultMaxTokens: 16, maxModelLen: 32768 },
    )
    expect(plain.ok && plain.request.promptTokenTexts).toBeUndefined()
    expect(plain.ok && plain.request.promptTokens).toBe(chat.promptTokens)
  })
})

describe('block hashes and the cache', () => {
  test('only full blocks get a hash; each hash covers everything before it', () => {
    const base = words('t', 40)
    const hashes = hashPromptBlocks(base, 16)
    expect(hashes).toHaveLength(2)
    const changedFirst = hashPromptBlocks(['x', ...base.slice(1)], 16)
    expect(changedFirst[0]).not.toBe(hashes[0])
    expect(changedFirst[1]).not.toBe(hashes[1])
    const changedSecond = hashPromptBlocks([...base.slice(0, 20), 'x', ...base.slice(21)], 16)
    expect(changedSecond[0]).toBe(hashes[0])
    expect(changedSecond[1]).not.toBe(hashes[1])
    // The partial block (tokens 32..39) is not hashed: changing it changes nothing.
    expect(hashPromptBlocks([...base.slice(0, 39), 'x'], 16)).toEqual(hashes)
    // Same tokens in block 1 after a different block 0: a different chain.
    expect(hashPromptBlocks([...words('u', 16), ...base.slice(16, 32)], 16)[1]).not.toBe(hashes[1])
    // Token boundaries count: 'ab','c' is not 'a','bc'.
    expect(hashPromptBlocks(['ab', 'c'], 2)).not.toEqual(hashPromptBlocks(['a', 'bc'], 2))
  })

  test('a hit is the run of leading cached blocks, never reaching the last prompt token', () => {
    const cache = new PrefixCache(100, 16)
    const prompt = hashPromptBlocks(words('p', 64), 16)
    expect(cache.acquire(prompt, 64)).toBe(0)
    // Same-step admission: the blocks are cached as soon as they are acquired.
    expect(cache.acquire(prompt, 64)).toBe(48)
    expect(cache.acquire(hashPromptBlocks(words('p', 65), 16), 65)).toBe(64)
    expect(cache.acquire(hashPromptBlocks(words('p', 16), 16), 16)).toBe(0)
    expect(cache.acquire(hashPromptBlocks(words('p', 17), 16), 17)).toBe(16)
    // A different second block stops the run there.
    expect(cache.acquire(hashPromptBlocks([...words('p', 16), ...words('q', 60)], 16), 76)).toBe(16)
    expect(cache.acquire([], 0)).toBe(0)
  })

  test('eviction: least recently freed first (a prompt tail before its head), referenced blocks never', () => {
    const cache = new PrefixCache(5, 16)
    const a = hashPromptBlocks(words('a', 32), 16)
    const b = hashPromptBlocks(words('b', 32), 16)
    const c = hashPromptBlocks(words('c', 32), 16)
    cache.acquire(a, 33)
    cache.acquire(b, 33)
    cache.release(a)
    cache.release(b)
    cache.acquire(c, 33)
    cache.evictToFit(0)
    // 6 blocks over a capacity of 5: a's tail, freed first, goes.
    expect(cache.cachedBlocks).toBe(5)
    expect(cache.acquire(a, 33)).toBe(16)
    cache.release(a)
    // a is cached again (6 blocks), then freed after b: with 2 blocks outside the cache, 3 go: b's two, then a's tail.
    cache.evictToFit(2)
    expect(cache.cachedBlocks).toBe(3)
    expect(cache.referencedBlocks).toBe(2)
    // Nothing free left: running sequences' blocks stay even past the capacity.
    cache.acquire(hashPromptBlocks(words('d', 64), 16), 65)
    cache.evictToFit(10)
    expect(cache.referencedBlocks).toBe(6)
    expect(cache.cachedBlocks).toBe(6)
    expect(cache.acquire(c, 33)).toBe(32)
  })
})

describe('the scheduler charges prefill for uncached tokens only', () => {
  const timings: BatchTimings = {
    maxRunningSequences: 4,
    prefillBaseMs: 3,
    prefillMsPerToken: 1,
    decodeBaseMs: 10,
    decodeMsPerSequence: 0,
    tokensPerChunk: 1,
    speedFactor: 1,
    stallMs: 0,
  }

  function sequence(tokens: readonly string[], log: { cached?: number; firstAt?: number }): BatchSequence {
    return {
      promptTokens: tokens.length,
      completionTokens: 1,
      fault: undefined,
      faultAtChunk: 0,
      blockHashes: hashPromptBlocks(tokens, 16),
      sink: {
        admitted: (_at, cached) => (log.cached = cached),
        emit: (_count, _last, at) => (log.firstAt ??= at),
        stalled: () => {},
        failed: () => {},
      },
    }
  }

  test('a later request with a 64-token cached prefix is 64 × prefillMsPerToken faster; in one step the second of two hits too', () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler(timings, clock, {
      blockTokens: 16,
      capacityBlocks: 1000,
      prefixCache: new PrefixCache(1000, 16),
    })
    const prompt = [...words('shared', 64), ...words('own', 6)]
    const a: { cached?: number; firstAt?: number } = {}
    s.submit(sequence(prompt, a))
    clock.run()
    expect(a).toEqual({ cached: 0, firstAt: 3 + 70 + 10 })
    const b: { cached?: number; firstAt?: number } = {}
    const started = clock.t
    s.submit(sequence([...words('shared', 64), ...words('else', 6)], b))
    clock.run()
    expect(b.cached).toBe(64)
    expect((b.firstAt ?? NaN) - started).toBe(3 + 6 + 10)

    // Two new prompts admitted together: the second finds the first's blocks already cached.
    const c: { cached?: number; firstAt?: number } = {}
    const d: { cached?: number; firstAt?: number } = {}
    const together = [...words('new', 32), 'x']
    const start2 = clock.t
    s.submit(sequence(together, c))
    s.submit(sequence(together, d))
    clock.run()
    expect([c.cached, d.cached]).toEqual([0, 32])
    expect((d.firstAt ?? NaN) - start2).toBe(3 + 33 + 3 + 1 + 10)
  })

  test('without a prefix cache the same prompts pay full prefill', () => {
    const clock = new VirtualClock()
    const s = new BatchScheduler(timings, clock)
    const a: { cached?: number; firstAt?: number } = {}
    const b: { cached?: number; firstAt?: number } = {}
    s.submit(sequence([...words('shared', 64), ...words('own', 6)], a))
    clock.run()
    const started = clock.t
    s.submit(sequence([...words('shared', 64), ...words('else', 6)], b))
    clock.run()
    expect(b.cached).toBe(0)
    expect((b.firstAt ?? NaN) - started).toBe(3 + 70 + 10)
  })
})

describe('the simulator with prefixCaching', () => {
  const prefix = buildSimulatorText(64, 11)
  const slowPrefill = {
    prefillBaseMs: 0,
    prefillMsPerToken: 1,
    decodeBaseMs: 1,
    decodeMsPerSequence: 0,
    recordSchedule: true,
  } satisfies SimulatorOptions

  async function sequential(
    sim: RunningSimulator,
    prompts: string[],
  ): Promise<Array<{ prompt_tokens: number; prompt_tokens_details?: { cached_tokens: number } }>> {
    const usages = []
    for (const prompt of prompts) {
      const res = await post(`${sim.url}/v1/completions`, {
        prompt,
        max_tokens: 2,
        ignore_eos: true,
        stream: true,
        stream_options: { include_usage: true },
      })
      expect(res.status).toBe(200)
      usages.push(usageOf(res))
    }
    return usages
  }

  test('10 sequential requests sharing a 64-token prefix: the first misses, each later one hits 64 tokens and prefills only its own 3', async () => {
    const sim = await started({ ...slowPrefill, prefixCaching: true })
    const prompts = Array.from({ length: 10 }, (_, i) => `${prefix} own${i} tail${i} end${i}`)
    const usages = await sequential(sim, prompts)
    expect(usages.map((u) => u.prompt_tokens)).toEqual(Array<number>(10).fill(67))
    const hits = [0, ...Array<number>(9).fill(64)]
    expect(usages.map((u) => u.prompt_tokens_details?.cached_tokens)).toEqual(hits)
    expect(sim.schedule.map((e) => e.cachedPromptTokens)).toEqual(hits)
    const m = sim.metrics()
    expect(m.prefixCacheQueries).toBe(670)
    expect(m.prefixCacheHits).toBe(576)
    expect(m.promptTokens).toBe(670)

    // The step that prefills a request lasts prefill + one decode: 67 + 1 ms uncached, 3 + 1 ms with 64 cached.
    // Steps never end early; a late one is made up by the next, so only the lower bound is exact.
    const prefillMs = sim.schedule.map((e) => (e.prefillEndedAt ?? NaN) - (e.prefillStartedAt ?? NaN))
    expect(prefillMs[0]).toBeGreaterThanOrEqual(68)
    for (const ms of prefillMs.slice(1)) {
      expect(ms).toBeGreaterThanOrEqual(4)
      expect(ms).toBeLessThan(prefillMs[0] ?? NaN)
    }
  })

  test('prefixCaching off (the default): no hits, no cached_tokens in the usage, full prefill every time', async () => {
    const sim = await started(slowPrefill)
    const usages = await sequential(
      sim,
      Array.from({ length: 3 }, (_, i) => `${prefix} own${i} tail${i} end${i}`),
    )
    expect(usages.map((u) => u.prompt_tokens)).toEqual([67, 67, 67])
    expect(usages.every((u) => !('prompt_tokens_details' in u))).toBe(true)
    expect(sim.schedule.map((e) => e.cachedPromptTokens)).toEqual([0, 0, 0])
    expect(sim.metrics()).toMatchObject({ prefixCacheQueries: 0, prefixCacheHits: 0, promptTokens: 201 })
    for (const e of sim.schedule)
      expect((e.prefillEndedAt ?? NaN) - (e.prefillStartedAt ?? NaN)).toBeGreaterThanOrEqual(68)
  })

  test('a request repeated verbatim hits every full block short of its last token', async () => {
    const sim = await started({ speedFactor: 0, prefixCaching: true })
    for (const [tokens, expected] of [
      [64, 48],
      [70, 64],
      [16, 0],
      [33, 32],
    ] as const) {
      const text = buildSimulatorText(tokens, 100 + tokens)
      const usages = await sequential(sim, [text, text])
      expect(
        usages.map((u) => u.prompt_tokens_details?.cached_tokens),
        `${tokens} tokens`,
      ).toEqual([0, expected])
    }
    // Token-id prompts are cached the same way.
    const ids = Array.from({ length: 40 }, (_, i) => 1000 + i)
    const a = await post(`${sim.url}/v1/completions`, {
      prompt: ids,
      max_tokens: 1,
      stream: true,
      stream_options: { include_usage: true },
    })
    const b = await post(`${sim.url}/v1/completions`, {
      prompt: ids,
      max_tokens: 1,
      stream: true,
      stream_options: { include_usage: true },
    })
    expect([usageOf(a), usageOf(b)].map((u) => u.prompt_tokens_details?.cached_tokens)).toEqual([0, 32])
  })

  test('chat: a shared system prompt is a hit, the same text under another role is not; the JSON body reports cached_tokens too', async () => {
    const sim = await started({ speedFactor: 0, prefixCaching: true })
    const system = { role: 'system', content: prefix }
    const ask = (messages: unknown[]) =>
      post(`${sim.url}/v1/chat/completions`, {
        messages,
        max_tokens: 1,
        stream: true,
        stream_options: { include_usage: true },
      })
    const first = usageOf(await ask([system, { role: 'user', content: 'first question' }]))
    const second = usageOf(await ask([system, { role: 'user', content: 'second question here' }]))
    const asUser = usageOf(
      await ask([
        { role: 'user', content: prefix },
        { role: 'user', content: 'second question here' },
      ]),
    )
    expect([first, second, asUser].map((u) => u.prompt_tokens)).toEqual([66, 67, 67])
    expect([first, second, asUser].map((u) => u.prompt_tokens_details?.cached_tokens)).toEqual([0, 64, 0])
    const json = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [system, { role: 'user', content: 'json' }], max_tokens: 1 }),
    })
    expect(((await json.json()) as { usage: unknown }).usage).toEqual({
      prompt_tokens: 65,
      completion_tokens: 1,
      total_tokens: 66,
      prompt_tokens_details: { cached_tokens: 64 },
    })
  })

  test('kvCacheTokens bounds the cache: a second long prompt evicts the first once it is done', async () => {
    // 5 blocks of 16: a 67-token prompt holds 4 full blocks and a partial one.
    const sim = await started({ speedFactor: 0, prefixCaching: true, kvCacheTokens: 80 })
    const a = `${prefix} a1 a2 a3`
    const b = `${buildSimulatorText(64, 12)} b1 b2 b3`
    const usages = await sequential(sim, [a, a, b, a])
    expect(usages.map((u) => u.prompt_tokens_details?.cached_tokens)).toEqual([0, 64, 0, 0])
  })

  test('the options are checked', () => {
    expect(() => resolveSimulatorOptions({ blockTokens: 0 })).toThrow(OptionsError)
    expect(() => resolveSimulatorOptions({ blockTokens: 1.5 })).toThrow(/blockTokens/)
    expect(() => resolveSimulatorOptions({ kvCacheTokens: -1 })).toThrow(/kvCacheTokens/)
    expect(() => resolveSimulatorOptions({ blockTokens: 32, kvCacheTokens: 16 })).toThrow(/kvCacheTokens/)
    expect(() => resolveSimulatorOptions({ prefixCaching: 'yes' as unknown as boolean })).toThrow(/prefixCaching/)
    expect(resolveSimulatorOptions({})).toMatchObject({ prefixCaching: false, blockTokens: 16, kvCacheTokens: 262144 })
  })

  test('the sim command takes --prefix-caching, --block-tokens and --kv-cache-tokens', () => {
    const options = simulatorOptionsFromFlags(
      parseCliFlags('sim', simulatorCommand, ['--prefix-caching', '--block-tokens', '32', '--kv-cache-tokens=4096']),
    )
    expect(options).toMatchObject({ prefixCaching: true, blockTokens: 32, kvCacheTokens: 4096 })
    expect(simulatorOptionsFromFlags(parseCliFlags('sim', simulatorCommand, []))).toMatchObject({
      prefixCaching: false,
      blockTokens: 16,
      kvCacheTokens: 262144,
    })
  })

  test('concurrent chat requests with a shared prefix on the live server hit it once the first is admitted', async () => {
    const sim = await started({ speedFactor: 0, prefixCaching: true, maxRunningSequences: 1, recordSchedule: true })
    const responses = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        post(`${sim.url}/v1/chat/completions`, chatBody(`${prefix} q${i}`, { max_tokens: 2, ignore_eos: true })),
      ),
    )
    expect(responses.map((r) => usageOf(r).prompt_tokens_details?.cached_tokens).sort()).toEqual([0, 64, 64, 64])
    expect(sim.metrics()).toMatchObject({ prefixCacheQueries: 4 * 65, prefixCacheHits: 3 * 64 })
  })
})
