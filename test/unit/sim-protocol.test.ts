import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startSimulator } from '../../src/sim/index.ts'
import { buildSimulatorText, countSimulatorTokens } from '../../src/sim/tokens.ts'
import type { RunningSimulator } from '../../src/sim/index.ts'
import { chatBody, chunkText, eventJson, post } from '../helpers/sim-test-client.ts'

// speedFactor 0: protocol tests need no modeled delay.
let sim: RunningSimulator
beforeAll(async () => {
  sim = await startSimulator({ speedFactor: 0, recordSchedule: true })
})
afterAll(async () => {
  await sim.close()
})

describe('streaming chat completions', () => {
  test('role-only first chunk, one chunk per token, finish_reason on the last, usage chunk with no choices, then [DONE]', async () => {
    const res = await post(
      `${sim.url}/v1/chat/completions`,
      chatBody('one two three four', { max_tokens: 7, ignore_eos: true }),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(res.headers.get('server')).toBe('vitest-llm-bench-sim')
    expect(res.events.at(-1)?.data).toBe('[DONE]')
    // Every event is framed as `data: <json>\n\n`.
    expect(
      res.text
        .split('\n\n')
        .filter(Boolean)
        .every((block) => block.startsWith('data: ')),
    ).toBe(true)

    const chunks = eventJson(res)
    expect(chunks).toHaveLength(1 + 7 + 1)
    const [first, ...rest] = chunks
    expect(first).toMatchObject({
      object: 'chat.completion.chunk',
      model: 'sim-model',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    })
    expect(typeof first?.id).toBe('string')
    expect(String(first?.id)).toMatch(/^chatcmpl-[0-9a-f]{32}$/)
    expect(typeof first?.created).toBe('number')

    const tokens = rest.slice(0, 7)
    for (const [i, chunk] of tokens.entries()) {
      expect(chunk.id).toBe(first?.id)
      const choice = (chunk.choices as Array<Record<string, unknown>>)[0]
      expect(choice?.finish_reason).toBe(i === 6 ? 'length' : null)
      expect(choice?.delta).toEqual({ content: expect.stringMatching(/^ \S+$/) })
    }
    const usage = rest[7]
    expect(usage).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 4, completion_tokens: 7, total_tokens: 11 },
    })

    // The output text counts as many simulator tokens as the usage reports.
    const text = tokens.map((c) => chunkText(c)).join('')
    expect(countSimulatorTokens(text)).toBe(7)
  })

  test('no usage chunk without stream_options.include_usage', async () => {
    const res = await post(`${sim.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      max_tokens: 3,
      ignore_eos: true,
    })
    const chunks = eventJson(res)
    expect(chunks).toHaveLength(1 + 3)
    expect(chunks.every((c) => (c.choices as unknown[]).length === 1 && !('usage' in c))).toBe(true)
    expect(res.events.at(-1)?.data).toBe('[DONE]')
  })

  test('tokensPerChunk packs several tokens per event; usage still counts tokens', async () => {
    const spec = await startSimulator({ speedFactor: 0, tokensPerChunk: 3 })
    try {
      const res = await post(`${spec.url}/v1/chat/completions`, chatBody('x', { max_tokens: 10, ignore_eos: true }))
      const chunks = eventJson(res)
      const content = chunks.slice(1, -1).map((c) => chunkText(c) ?? '')
      expect(content.map((t) => countSimulatorTokens(t))).toEqual([3, 3, 3, 1])
      expect(chunks.at(-1)?.usage).toMatchObject({ completion_tokens: 10 })
    } finally {
      await spec.close()
    }
  })
})

describe('reasoning and continuous usage', () => {
  test('reasoningTokens: the first tokens stream as delta.reasoning_content, the boundary chunk carries both, usage reports them', async () => {
    const thinker = await startSimulator({ speedFactor: 0, reasoningTokens: 4, tokensPerChunk: 3 })
    try {
      const res = await post(`${thinker.url}/v1/chat/completions`, chatBody('x', { max_tokens: 10, ignore_eos: true }))
      const chunks = eventJson(res)
      const deltas = chunks
        .slice(1, -1)
        .map((c) => (c.choices as Array<{ delta: Record<string, string> }>)[0]?.delta ?? {})
      const count = (text: string | undefined) => (text === undefined ? 0 : countSimulatorTokens(text))
      // 10 tokens in chunks of 3: [r r r] [r c c] [c c c] [c]
      expect(deltas.map((d) => [count(d.reasoning_content), count(d.content)])).toEqual([
        [3, 0],
        [1, 2],
        [0, 3],
        [0, 1],
      ])
      expect(Object.keys(deltas[0] ?? {})).toEqual(['reasoning_content'])
      expect(chunks.at(-1)?.usage).toEqual({
        prompt_tokens: 1,
        completion_tokens: 10,
        total_tokens: 11,
        completion_tokens_details: { reasoning_tokens: 4 },
      })
      // Without streaming: the reasoning in message.reasoning_content, the answer in content.
      const whole = await post(`${thinker.url}/v1/chat/completions`, {
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 6,
        ignore_eos: true,
      })
      const body = JSON.parse(whole.text) as {
        choices: Array<{ message: { content: string; reasoning_content: string } }>
        usage: Record<string, unknown>
      }
      expect(countSimulatorTokens(body.choices[0]?.message.reasoning_content ?? '')).toBe(4)
      expect(countSimulatorTokens(body.choices[0]?.message.content ?? '')).toBe(2)
      expect(body.usage.completion_tokens_details).toEqual({ reasoning_tokens: 4 })
      // A reply shorter than the reasoning is all reasoning; completions stream it as text.
      const short = eventJson(
        await post(`${thinker.url}/v1/chat/completions`, chatBody('x', { max_tokens: 2, ignore_eos: true })),
      )
      expect(short.at(-1)?.usage).toMatchObject({
        completion_tokens: 2,
        completion_tokens_details: { reasoning_tokens: 2 },
      })
      const text = eventJson(
        await post(`${thinker.url}/v1/completions`, {
          prompt: 'x',
          stream: true,
          max_tokens: 5,
          ignore_eos: true,
          stream_options: { include_usage: true },
        }),
      )
      expect(text.slice(0, -1).every((c) => typeof (c.choices as Array<{ text?: string }>)[0]?.text === 'string')).toBe(
        true,
      )
      expect(text.at(-1)?.usage).toEqual({ prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 })
    } finally {
      await thinker.close()
    }
  })

  test('continuous_usage_stats (with include_usage, as vLLM): every chunk carries the running usage', async () => {
    const spec = await startSimulator({ speedFactor: 0, tokensPerChunk: 3 })
    try {
      const body = (options: Record<string, unknown>) => ({
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
        max_tokens: 10,
        ignore_eos: true,
        stream_options: options,
      })
      const chunks = eventJson(
        await post(`${spec.url}/v1/chat/completions`, body({ include_usage: true, continuous_usage_stats: true })),
      )
      expect(chunks.map((c) => (c.usage as { completion_tokens: number } | undefined)?.completion_tokens)).toEqual([
        0, 3, 6, 9, 10, 10,
      ])
      expect(chunks[1]?.usage).toEqual({ prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 })
      const withoutIncludeUsage = eventJson(
        await post(`${spec.url}/v1/chat/completions`, body({ continuous_usage_stats: true })),
      )
      expect(withoutIncludeUsage.some((c) => 'usage' in c)).toBe(false)
    } finally {
      await spec.close()
    }
  })
})

describe('streaming completions', () => {
  test('text chunks (no role chunk, as vLLM), finish_reason, usage, [DONE]', async () => {
    const res = await post(`${sim.url}/v1/completions`, {
      model: 'sim-model',
      prompt: 'alpha beta gamma',
      max_tokens: 5,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(res.status).toBe(200)
    const chunks = eventJson(res)
    expect(chunks).toHaveLength(5 + 1)
    for (const [i, chunk] of chunks.slice(0, 5).entries()) {
      expect(chunk.object).toBe('text_completion')
      expect(String(chunk.id)).toMatch(/^cmpl-[0-9a-f]{32}$/)
      const choice = (chunk.choices as Array<Record<string, unknown>>)[0]
      expect(choice).toMatchObject({
        index: 0,
        text: expect.stringMatching(/^ \S+$/),
        logprobs: null,
        finish_reason: i === 4 ? 'length' : null,
      })
    }
    expect(chunks[5]).toMatchObject({
      object: 'text_completion',
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
    })
    expect(res.events.at(-1)?.data).toBe('[DONE]')
  })

  test('a prompt of token ids counts one token per id', async () => {
    const res = await post(`${sim.url}/v1/completions`, {
      prompt: [1, 2, 3, 4, 5, 6],
      max_tokens: 2,
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(eventJson(res).at(-1)?.usage).toMatchObject({ prompt_tokens: 6 })
  })
})

describe('non-streaming', () => {
  test('chat returns one chat.completion JSON with usage', async () => {
    const res = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'a b c' }], max_tokens: 6, ignore_eos: true }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'sim-model',
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 },
    })
    const content = (body.choices as Array<{ message: { content: string } }>)[0]?.message.content ?? ''
    expect(countSimulatorTokens(content)).toBe(6)
  })

  test('completions returns one text_completion JSON', async () => {
    const res = await fetch(`${sim.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'a b', max_tokens: 4, ignore_eos: true }),
    })
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({
      object: 'text_completion',
      choices: [{ index: 0, text: expect.any(String), finish_reason: 'length' }],
      usage: { prompt_tokens: 2, completion_tokens: 4 },
    })
  })
})

describe('buffering modes', () => {
  test("bufferMode 'json' ignores stream: true", async () => {
    const json = await startSimulator({ speedFactor: 0, bufferMode: 'json' })
    try {
      const res = await post(`${json.url}/v1/chat/completions`, chatBody('x', { max_tokens: 3, ignore_eos: true }))
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(JSON.parse(res.text)).toMatchObject({ object: 'chat.completion', usage: { completion_tokens: 3 } })
    } finally {
      await json.close()
    }
  })

  test("bufferMode 'burst' sends the whole event stream in one piece at the end", async () => {
    const burst = await startSimulator({
      speedFactor: 1,
      decodeBaseMs: 5,
      decodeMsPerSequence: 0,
      prefillBaseMs: 0,
      prefillMsPerToken: 0,
      bufferMode: 'burst',
      recordSchedule: true,
    })
    try {
      const res = await post(`${burst.url}/v1/chat/completions`, chatBody('x', { max_tokens: 8, ignore_eos: true }))
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
      expect(eventJson(res)).toHaveLength(1 + 8 + 1)
      // All events were received after the last token was produced, i.e. none was streamed early.
      const lastToken = burst.schedule[0]?.finishedAt ?? Infinity
      expect(Math.min(...res.events.map((e) => e.at))).toBeGreaterThanOrEqual(lastToken)
    } finally {
      await burst.close()
    }
  })
})

describe('other endpoints', () => {
  test('/v1/models lists the model in vLLM shape', async () => {
    const res = await fetch(`${sim.url}/v1/models`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      object: 'list',
      data: [{ id: 'sim-model', object: 'model', root: 'sim-model', max_model_len: 32768 }],
    })
  })

  test('/health is 200 with an empty body; /version names the simulator', async () => {
    const health = await fetch(`${sim.url}/health`)
    expect(health.status).toBe(200)
    expect(await health.text()).toBe('')
    const version = await fetch(`${sim.url}/version`)
    expect(await version.json()).toEqual({ version: 'sim-0.1.0' })
    expect(version.headers.get('server')).toBe('vitest-llm-bench-sim')
  })
})

describe('errors', () => {
  const errorShape = (status: number) => ({
    error: { message: expect.any(String), type: expect.any(String), code: status },
  })

  test('unknown path: 404 JSON error', async () => {
    const res = await fetch(`${sim.url}/v1/images/generations`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject(errorShape(404))
  })

  test('wrong method: 405 with an allow header', async () => {
    const res = await fetch(`${sim.url}/v1/chat/completions`)
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    expect(await res.json()).toMatchObject(errorShape(405))
  })

  test('bad JSON body: 400 JSON error', async () => {
    const res = await fetch(`${sim.url}/v1/chat/completions`, { method: 'POST', body: '{"messages": [' })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({
      error: { type: 'BadRequestError', code: 400, message: expect.stringContaining('Invalid JSON') },
    })
  })

  test.each([
    ['no messages', 'chat/completions', { max_tokens: 3 }, 'messages'],
    ['max_tokens 0', 'chat/completions', { messages: [{ role: 'user', content: 'x' }], max_tokens: 0 }, 'max_tokens'],
    [
      'stream_options without stream',
      'chat/completions',
      { messages: [{ role: 'user', content: 'x' }], stream_options: { include_usage: true } },
      'stream_options',
    ],
    ['prompt of the wrong type', 'completions', { prompt: { text: 'x' } }, 'prompt'],
  ])('invalid request (%s): 400 naming the field', async (_name, path, body, param) => {
    const res = await fetch(`${sim.url}/v1/${path}`, { method: 'POST', body: JSON.stringify(body) })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { type: 'BadRequestError', code: 400, param } })
  })

  test('prompt plus max_tokens over max_model_len: 400 like vLLM', async () => {
    const small = await startSimulator({ speedFactor: 0, maxModelLen: 10 })
    try {
      const res = await fetch(`${small.url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: buildSimulatorText(8), max_tokens: 5 }),
      })
      expect(res.status).toBe(400)
      const body = (await res.json()) as { error: { message: string } }
      expect(body.error.message).toContain(
        'maximum context length is 10 tokens. However, you requested 13 tokens (8 in the prompt, 5 in the completion)',
      )
    } finally {
      await small.close()
    }
  })

  test('another model name: 404 NotFoundError', async () => {
    const res = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-9', messages: [{ role: 'user', content: 'x' }] }),
    })
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({
      error: { type: 'NotFoundError', code: 404, message: 'The model `gpt-9` does not exist.' },
    })
  })

  test('apiKey: 401 without or with a wrong bearer token on /v1, open /health', async () => {
    const locked = await startSimulator({ speedFactor: 0, apiKey: 'sekret' })
    try {
      const body = JSON.stringify({ messages: [{ role: 'user', content: 'x' }], max_tokens: 2 })
      const none = await fetch(`${locked.url}/v1/chat/completions`, { method: 'POST', body })
      expect(none.status).toBe(401)
      expect(await none.json()).toMatchObject(errorShape(401))
      const wrong = await fetch(`${locked.url}/v1/models`, { headers: { authorization: 'Bearer nope' } })
      expect(wrong.status).toBe(401)
      const right = await fetch(`${locked.url}/v1/chat/completions`, {
        method: 'POST',
        body,
        headers: { authorization: 'Bearer sekret' },
      })
      expect(right.status).toBe(200)
      expect((await fetch(`${locked.url}/health`)).status).toBe(200)
    } finally {
      await locked.close()
    }
  })
})

describe('determinism', () => {
  async function completion(
    url: string,
    content: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ text: string; tokens: number; finish: unknown }> {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content }], max_tokens: 40, ...extra }),
    })
    const body = (await res.json()) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>
      usage: { completion_tokens: number }
    }
    return {
      text: body.choices[0]?.message.content ?? '',
      tokens: body.usage.completion_tokens,
      finish: body.choices[0]?.finish_reason,
    }
  }

  test('same seed and request: same length and text, across simulator instances', async () => {
    const a = await startSimulator({ speedFactor: 0, seed: 7 })
    const b = await startSimulator({ speedFactor: 0, seed: 7 })
    const c = await startSimulator({ speedFactor: 0, seed: 8 })
    try {
      const prompts = ['tell me a story', 'what is a kv cache', 'count to ten', 'why']
      const fromA = await Promise.all(prompts.map((p) => completion(a.url, p)))
      const fromB = await Promise.all(prompts.map((p) => completion(b.url, p)))
      const fromC = await Promise.all(prompts.map((p) => completion(c.url, p)))
      expect(fromB).toEqual(fromA)
      expect(fromC.map((r) => r.text)).not.toEqual(fromA.map((r) => r.text))
      // Without ignore_eos, lengths fall in [max/2, max] and vary with the prompt; finish_reason follows.
      for (const r of [...fromA, ...fromC]) {
        expect(r.tokens).toBeGreaterThanOrEqual(20)
        expect(r.tokens).toBeLessThanOrEqual(40)
        expect(r.finish).toBe(r.tokens === 40 ? 'length' : 'stop')
      }
      expect(new Set([...fromA, ...fromC].map((r) => r.tokens)).size).toBeGreaterThan(1)
    } finally {
      await Promise.all([a.close(), b.close(), c.close()])
    }
  })

  test('min_tokens raises the drawn length; ignore_eos makes it exactly max_tokens', async () => {
    const min = await completion(sim.url, 'anything', { max_tokens: 30, min_tokens: 30 })
    expect(min.tokens).toBe(30)
    const exact = await completion(sim.url, 'anything', { max_tokens: 33, ignore_eos: true })
    expect(exact).toMatchObject({ tokens: 33, finish: 'length' })
  })

  test('no max_tokens: defaultMaxTokens bounds the output', async () => {
    const r = await completion(sim.url, 'anything', { max_tokens: undefined, ignore_eos: true })
    expect(r.tokens).toBe(64)
  })

  test('output text includes multi-byte UTF-8 now and then', async () => {
    const r = await completion(sim.url, 'long', { max_tokens: 400, ignore_eos: true })
    expect(Buffer.byteLength(r.text)).toBeGreaterThan(r.text.length)
    expect(countSimulatorTokens(r.text)).toBe(400)
  })
})

describe('token counting rule', () => {
  test('words of up to 8 code points are one token each, longer words ceil(length / 8)', () => {
    expect(countSimulatorTokens('')).toBe(0)
    expect(countSimulatorTokens('  one\ttwo\n three  ')).toBe(3)
    expect(countSimulatorTokens('abcdefgh')).toBe(1)
    expect(countSimulatorTokens('abcdefghi')).toBe(2)
    expect(countSimulatorTokens('a'.repeat(17))).toBe(3)
    // Code points, not UTF-16 units: eight emoji are one token.
    expect(countSimulatorTokens('🙂'.repeat(8))).toBe(1)
  })

  test('buildSimulatorText(n) has exactly n tokens and is reproducible', () => {
    for (const n of [0, 1, 2, 127, 1000]) expect(countSimulatorTokens(buildSimulatorText(n))).toBe(n)
    expect(buildSimulatorText(50, 3)).toBe(buildSimulatorText(50, 3))
    expect(buildSimulatorText(50, 3)).not.toBe(buildSimulatorText(50, 4))
  })

  test('chat prompt tokens are the sum over messages, with no template overhead', async () => {
    const res = await post(`${sim.url}/v1/chat/completions`, {
      messages: [
        { role: 'system', content: buildSimulatorText(10) },
        { role: 'user', content: [{ type: 'text', text: buildSimulatorText(5) }] },
      ],
      max_tokens: 1,
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(eventJson(res).at(-1)?.usage).toMatchObject({ prompt_tokens: 15 })
  })
})
