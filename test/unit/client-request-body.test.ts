import { afterEach, describe, expect, test, vi } from 'vitest'
import {
  buildRequestBody,
  endpointPath,
  normalizeBaseUrl,
  resolveTarget,
  withServerName,
} from '../../src/core/client/index.ts'
import type { ResolvedTarget } from '../../src/core/client/index.ts'
import type { ApiKind } from '../../src/core/contract/api-kinds.ts'
import type { RequestShape } from '../../src/core/contract/workload-options.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'

const chat: ResolvedTarget = {
  baseUrl: 'http://127.0.0.1:8000',
  model: 'meta-llama/Llama-3.1-8B-Instruct',
  api: 'chat',
  headers: {},
  requestTimeoutMs: 1000,
  stallTimeoutMs: 120_000,
}
const completions: ResolvedTarget = { ...chat, api: 'completions' }

describe('buildRequestBody', () => {
  test('chat: messages, model, streaming with usage, max_tokens, ignore_eos with min_tokens', () => {
    const messages = [{ role: 'user', content: 'Hello' }]
    expect(buildRequestBody(chat, { messages, maxTokens: 128, ignoreEos: true })).toEqual({
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      messages,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 128,
      ignore_eos: true,
      min_tokens: 128,
    })
  })

  test('continuous usage: stream_options also asks for usage in every chunk, only when the target says so', () => {
    const body = (target: ResolvedTarget) =>
      buildRequestBody(target, { messages: [{ role: 'user', content: 'x' }] }).stream_options
    expect(body({ ...chat, continuousUsageStats: true })).toEqual({ include_usage: true, continuous_usage_stats: true })
    expect(body({ ...completions, continuousUsageStats: true })).toEqual({
      include_usage: true,
      continuous_usage_stats: true,
    })
    expect(body({ ...chat, continuousUsageStats: false })).toEqual({ include_usage: true })
    // Not decided yet (no server facts): not sent.
    expect(body(chat)).toEqual({ include_usage: true })
  })

  test('continuous usage by default for vLLM, SGLang and the simulator only; an explicit option wins', () => {
    const decided = (options: { continuousUsageStats?: boolean }, name: string | undefined) =>
      withServerName(resolveTarget({ baseUrl: 'http://h:1', ...options }, 'm'), name).continuousUsageStats
    expect(decided({}, 'vllm')).toBe(true)
    expect(decided({}, 'sglang')).toBe(true)
    expect(decided({}, 'vitest-llm-bench-sim')).toBe(true)
    // llama.cpp reads only include_usage (tools/server/server-task.cpp) and would gain nothing; unknown servers may refuse it.
    expect(decided({}, 'llama.cpp')).toBe(false)
    expect(decided({}, 'TensorRT-LLM')).toBe(false)
    expect(decided({}, undefined)).toBe(false)
    expect(decided({ continuousUsageStats: true }, 'llama.cpp')).toBe(true)
    expect(decided({ continuousUsageStats: false }, 'vllm')).toBe(false)
    expect(() =>
      resolveTarget({ baseUrl: 'http://h:1', continuousUsageStats: 'yes' as unknown as boolean }, 'm'),
    ).toThrow(OptionsError)
  })

  test('completions: prompt instead of messages', () => {
    expect(buildRequestBody(completions, { prompt: 'Once upon', maxTokens: 16 })).toEqual({
      model: chat.model,
      prompt: 'Once upon',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 16,
    })
  })

  test('without ignoreEos there is no ignore_eos nor min_tokens; without maxTokens no max_tokens', () => {
    const body = buildRequestBody(chat, { messages: [{ role: 'user', content: 'x' }] })
    expect(body).not.toHaveProperty('ignore_eos')
    expect(body).not.toHaveProperty('min_tokens')
    expect(body).not.toHaveProperty('max_tokens')
  })

  test('a prompt on the chat API becomes one user message; messages on the completions API become the prompt', () => {
    expect(buildRequestBody(chat, { prompt: 'p' }).messages).toEqual([{ role: 'user', content: 'p' }])
    expect(
      buildRequestBody(completions, {
        messages: [
          { role: 'system', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      }).prompt,
    ).toBe('a\nb')
  })

  test('extraBody is merged last', () => {
    const body = buildRequestBody(chat, {
      prompt: 'p',
      maxTokens: 8,
      extraBody: { temperature: 0, max_tokens: 9, seed: 1 },
    })
    expect(body.temperature).toBe(0)
    expect(body.seed).toBe(1)
    expect(body.max_tokens).toBe(9)
    expect(body.stream).toBe(true)
  })

  test('endpoint paths', () => {
    expect(endpointPath('chat')).toBe('/v1/chat/completions')
    expect(endpointPath('completions')).toBe('/v1/completions')
    expect(endpointPath('responses')).toBe('/v1/responses')
    expect(endpointPath('messages')).toBe('/v1/messages')
  })

  test('responses: the conversation as input, max_output_tokens, no stream_options (usage comes unasked)', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ]
    expect(
      buildRequestBody(
        { ...chat, api: 'responses', continuousUsageStats: true },
        { messages, maxTokens: 64, ignoreEos: true },
      ),
    ).toEqual({
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      input: messages,
      store: false,
      stream: true,
      max_output_tokens: 64,
      ignore_eos: true,
      min_tokens: 64,
    })
    // A prompt workload's text is one user message.
    expect(buildRequestBody({ ...chat, api: 'responses' }, { prompt: 'Hi' }).input).toEqual([
      { role: 'user', content: 'Hi' },
    ])
  })

  test("tools and tool_choice in each API's shape", () => {
    const shape: RequestShape = {
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } },
        },
        { type: 'function', function: { name: 'now' } },
      ],
      toolChoice: { name: 'now' },
      responseFormat: undefined,
    }
    const req = { prompt: 'Hi' }
    const body = (api: ApiKind, toolChoice: RequestShape['toolChoice']) =>
      buildRequestBody({ ...chat, api }, req, { ...shape, toolChoice })
    expect(body('chat', shape.toolChoice)).toMatchObject({
      tools: shape.tools,
      tool_choice: { type: 'function', function: { name: 'now' } },
    })
    expect(body('responses', shape.toolChoice)).toMatchObject({
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: {} },
        },
        { type: 'function', name: 'now', parameters: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'function', name: 'now' },
    })
    expect(body('messages', shape.toolChoice)).toMatchObject({
      tools: [
        { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: {} } },
        { name: 'now', input_schema: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'tool', name: 'now' },
    })
    expect(body('messages', 'required').tool_choice).toEqual({ type: 'any' })
    expect(body('messages', 'auto').tool_choice).toEqual({ type: 'auto' })
    expect(body('responses', 'required').tool_choice).toBe('required')
    expect('tool_choice' in body('chat', undefined)).toBe(false)
    // extraBody still wins.
    expect(buildRequestBody(chat, { ...req, extraBody: { tools: [] } }, shape).tools).toEqual([])
  })

  test('messages: system messages as the top-level system, the rest as messages, max_tokens', () => {
    const body = buildRequestBody(
      { ...chat, api: 'messages' },
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'system', content: 'Answer in English.' },
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Hi.' },
          { role: 'user', content: 'Bye' },
        ],
        maxTokens: 32,
      },
    )
    expect(body).toEqual({
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      system: 'Be brief.\n\nAnswer in English.',
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi.' },
        { role: 'user', content: 'Bye' },
      ],
      stream: true,
      max_tokens: 32,
    })
    expect('system' in buildRequestBody({ ...chat, api: 'messages' }, { prompt: 'Hi' })).toBe(false)
    // The API requires an output length: a request without one gets 1024 (AIPerf's).
    expect(buildRequestBody({ ...chat, api: 'messages' }, { prompt: 'Hi' }).max_tokens).toBe(1024)
    expect('max_tokens' in buildRequestBody(chat, { prompt: 'Hi' })).toBe(false)
  })
})

describe('resolveTarget', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  test.each([
    ['http://127.0.0.1:8000', 'http://127.0.0.1:8000'],
    ['http://127.0.0.1:8000/', 'http://127.0.0.1:8000'],
    ['http://127.0.0.1:8000/v1', 'http://127.0.0.1:8000'],
    [' http://127.0.0.1:8000/v1/ ', 'http://127.0.0.1:8000'],
    ['https://gateway.example/llm/v1', 'https://gateway.example/llm'],
  ])('baseUrl %j -> %j', (given, root) => {
    expect(normalizeBaseUrl(given)).toBe(root)
  })

  test('defaults: chat API, 10-minute timeout, 2-minute stall timeout, no headers', () => {
    vi.stubEnv('OPENAI_API_KEY', '')
    expect(resolveTarget({ baseUrl: 'http://h:1/v1' }, 'm')).toEqual({
      baseUrl: 'http://h:1',
      model: 'm',
      api: 'chat',
      headers: {},
      requestTimeoutMs: 600_000,
      stallTimeoutMs: 120_000,
    })
  })

  test('a stall timeout that is not a positive number of milliseconds is refused', () => {
    for (const stallTimeoutMs of [0, -1, Number.NaN, Infinity]) {
      expect(() => resolveTarget({ baseUrl: 'http://h:1', stallTimeoutMs }, 'm')).toThrow('target.stallTimeoutMs')
    }
  })

  test('apiKey: the option wins, else OPENAI_API_KEY', () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-env')
    expect(resolveTarget({ baseUrl: 'http://h:1' }, 'm').apiKey).toBe('sk-env')
    expect(resolveTarget({ baseUrl: 'http://h:1', apiKey: 'sk-opt' }, 'm').apiKey).toBe('sk-opt')
  })

  test('invalid values throw OptionsError naming the option', () => {
    expect(() => resolveTarget({ baseUrl: 'localhost:8000' }, 'm')).toThrow(OptionsError)
    expect(() => resolveTarget({ baseUrl: 'ftp://h' }, 'm')).toThrow(/target\.baseUrl/)
    expect(() => resolveTarget({ baseUrl: 'http://h' }, '')).toThrow(/target\.model/)
    expect(() => resolveTarget({ baseUrl: 'http://h', requestTimeoutMs: 0 }, 'm')).toThrow(/target\.requestTimeoutMs/)
  })
})
