/**
 * The simulator's Responses API (`/v1/responses`) and Messages API (`/v1/messages`): the event
 * shapes as vLLM and llama.cpp stream them, and the same timing model and reply as chat for the
 * same conversation, read through our own client.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startSimulator } from '../../src/sim/index.ts'
import type { RunningSimulator } from '../../src/sim/index.ts'
import { StreamingClient, resolveTarget } from '../../src/core/client/index.ts'
import type { ApiKind } from '../../src/core/contract/api-kinds.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'

interface NamedEvent {
  name: string | undefined
  data: Record<string, unknown>
}

/** Posts `body` and splits the answer into named events (`event:` line, `data:` line). */
async function postEvents(url: string, body: unknown): Promise<{ status: number; text: string; events: NamedEvent[] }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  const events: NamedEvent[] = []
  for (const block of text.split('\n\n').filter(Boolean)) {
    const name = /^event: (.*)$/m.exec(block)?.[1]
    const data = /^data: (.*)$/m.exec(block)?.[1]
    if (data !== undefined && data !== '[DONE]')
      events.push({ name, data: JSON.parse(data) as Record<string, unknown> })
  }
  return { status: res.status, text, events }
}

const conversation = [
  { role: 'system', content: 'answer briefly' },
  { role: 'user', content: 'what is the capital of the moon' },
]

let sim: RunningSimulator
beforeAll(async () => {
  sim = await startSimulator({ speedFactor: 0 })
})
afterAll(async () => {
  await sim.close()
})

describe('Responses API', () => {
  test('named events, output_text deltas, usage only in response.completed, no [DONE]', async () => {
    const res = await postEvents(`${sim.url}/v1/responses`, {
      model: 'sim-model',
      input: conversation,
      stream: true,
      max_output_tokens: 6,
      ignore_eos: true,
      min_tokens: 6,
    })
    expect(res.status).toBe(200)
    expect(res.text).not.toContain('[DONE]')
    for (const event of res.events) expect(event.data.type).toBe(event.name)
    const names = res.events.map((e) => e.name)
    expect(names.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ])
    expect(names.filter((n) => n === 'response.output_text.delta')).toHaveLength(6)
    // Six tokens, the limit: the response is incomplete for max_output_tokens, as OpenAI says it.
    expect(names.at(-1)).toBe('response.incomplete')
    const end = res.events.at(-1)?.data.response as Record<string, unknown>
    expect(end).toMatchObject({
      object: 'response',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      usage: { input_tokens: 9, output_tokens: 6, total_tokens: 15 },
    })
    expect(String(end.id)).toMatch(/^resp-[0-9a-f]{32}$/)
    // Only the last event reports usage.
    expect(
      res.events.slice(0, -1).every((e) => (e.data.response as { usage?: unknown } | undefined)?.usage == null),
    ).toBe(true)
  })

  test('a reply that stops on its own ends with response.completed', async () => {
    const res = await postEvents(`${sim.url}/v1/responses`, { input: 'hi', stream: true, max_output_tokens: 4000 })
    expect(res.events.at(-1)?.name).toBe('response.completed')
    expect(res.events.at(-1)?.data.response).toMatchObject({ status: 'completed', incomplete_details: null })
  })

  test('not streamed: one response object with the message text and usage', async () => {
    const res = await fetch(`${sim.url}/v1/responses`, {
      method: 'POST',
      body: JSON.stringify({ input: 'hello', max_output_tokens: 3, ignore_eos: true }),
    })
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({
      object: 'response',
      status: 'incomplete',
      usage: { input_tokens: 1, output_tokens: 3 },
    })
    expect(body.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant' })])
  })

  test('bad input: 400 naming the field', async () => {
    const res = await fetch(`${sim.url}/v1/responses`, { method: 'POST', body: JSON.stringify({ input: 42 }) })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { param: 'input' } })
  })

  test('the Messages API requires max_tokens, as vLLM and Anthropic do', async () => {
    const body = { messages: [{ role: 'user', content: 'hi' }] }
    const res = await fetch(`${sim.url}/v1/messages`, { method: 'POST', body: JSON.stringify(body) })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { param: 'max_tokens' } })
  })
})

describe('Messages API', () => {
  test('message_start with the input usage, text blocks, message_delta usage and stop reason, message_stop', async () => {
    const res = await postEvents(`${sim.url}/v1/messages`, {
      model: 'sim-model',
      system: 'answer briefly',
      messages: conversation.slice(1),
      stream: true,
      max_tokens: 5,
      ignore_eos: true,
      min_tokens: 5,
    })
    expect(res.status).toBe(200)
    expect(res.text).not.toContain('[DONE]')
    for (const event of res.events) expect(event.data.type).toBe(event.name)
    const names = res.events.map((e) => e.name)
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      ...Array<string>(5).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    // The system prompt counts toward the input, as over chat.
    expect(res.events[0]?.data.message).toMatchObject({ usage: { input_tokens: 9, output_tokens: 0 } })
    expect(res.events.at(-2)?.data).toMatchObject({ delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 5 } })
  })

  test('reasoning streams as a thinking block before the text block; Responses as a reasoning item', async () => {
    const thinking = await startSimulator({ speedFactor: 0, reasoningTokens: 2 })
    try {
      const body = { input: 'hi', messages: [{ role: 'user', content: 'hi' }], stream: true, ignore_eos: true }
      const messages = await postEvents(`${thinking.url}/v1/messages`, { ...body, max_tokens: 4 })
      const deltas = messages.events.filter((e) => e.name === 'content_block_delta').map((e) => e.data.delta)
      expect(deltas.map((d) => (d as { type: string }).type)).toEqual([
        'thinking_delta',
        'thinking_delta',
        'text_delta',
        'text_delta',
      ])
      const blocks = messages.events.filter((e) => e.name === 'content_block_start').map((e) => e.data)
      expect(blocks).toEqual([
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
        { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      ])
      const responses = await postEvents(`${thinking.url}/v1/responses`, { ...body, max_output_tokens: 4 })
      const kinds = responses.events.map((e) => e.name).filter((n) => n?.endsWith('.delta'))
      expect(kinds).toEqual([
        'response.reasoning_text.delta',
        'response.reasoning_text.delta',
        'response.output_text.delta',
        'response.output_text.delta',
      ])
      expect(responses.events.at(-1)?.data.response).toMatchObject({
        usage: { output_tokens: 4, output_tokens_details: { reasoning_tokens: 2 } },
      })
    } finally {
      await thinking.close()
    }
  })

  test('a mid-stream fault is each API own failure event', async () => {
    const faulty = await startSimulator({ speedFactor: 0, faults: { errorEventRate: 1 } })
    try {
      const body = { input: 'hi', messages: [{ role: 'user', content: 'hi' }], stream: true, ignore_eos: true }
      const messages = await postEvents(`${faulty.url}/v1/messages`, { ...body, max_tokens: 4 })
      expect(messages.events.at(-1)).toMatchObject({ name: 'error', data: { error: { type: 'api_error' } } })
      const responses = await postEvents(`${faulty.url}/v1/responses`, { ...body, max_output_tokens: 4 })
      expect(responses.events.at(-1)).toMatchObject({
        name: 'response.failed',
        data: { response: { status: 'failed', error: { code: 'server_error' } } },
      })
    } finally {
      await faulty.close()
    }
  })
})

describe('the same conversation over chat, Responses and Messages', () => {
  test('the same reply, token counts and timing model, read by the client', async () => {
    const timed = await startSimulator({ speedFactor: 0.05, reasoningTokens: 2, seed: 3 })
    const records = new Map<ApiKind, RequestRecord>()
    try {
      for (const api of ['chat', 'responses', 'messages'] as const) {
        const client = new StreamingClient(
          resolveTarget({ baseUrl: timed.url, api, requestTimeoutMs: 10_000 }, 'sim-model'),
          {
            connections: 1,
          },
        )
        try {
          records.set(
            api,
            await client.send(
              { messages: conversation, maxTokens: 12, ignoreEos: true, keepOutputText: true },
              { index: 0 },
            ),
          )
        } finally {
          await client.close()
        }
      }
    } finally {
      await timed.close()
    }
    const chat = records.get('chat') as RequestRecord
    expect(chat.ok).toBe(true)
    expect(chat.outputTokens).toBe(12)
    for (const api of ['responses', 'messages'] as const) {
      const record = records.get(api) as RequestRecord
      expect(record.ok, api).toBe(true)
      expect(record.outputText, api).toBe(chat.outputText)
      expect(record.outputTokens, api).toBe(12)
      expect(record.inputTokens, api).toBe(chat.inputTokens)
      expect(record.usageReported, api).toBe(true)
      expect(record.finishReason, api).toBe('length')
      // One output event per token, reasoning first: TTFO after TTFT, as over chat.
      expect(record.chunkTimes, api).toHaveLength(chat.chunkTimes.length)
      expect(record.reasoningChunks, api).toBe(2)
      expect(record.firstOutputAt, api).toBeGreaterThan(record.firstTokenAt as number)
    }
    expect(records.get('responses')?.reasoningTokens).toBe(2)
  })
})

describe('a forced tool call', () => {
  test("streams as each API's tool call: output, not reasoning, counted; its arguments join to JSON", async () => {
    const timed = await startSimulator({ speedFactor: 0, reasoningTokens: 1, seed: 4 })
    const shape = {
      tools: [{ type: 'function' as const, function: { name: 'get_weather' } }],
      toolChoice: 'required' as const,
      responseFormat: undefined,
    }
    try {
      for (const api of ['chat', 'responses', 'messages'] as const) {
        const client = new StreamingClient(
          resolveTarget({ baseUrl: timed.url, api, requestTimeoutMs: 10_000 }, 'sim-model'),
          {
            connections: 1,
            shape,
          },
        )
        let record: RequestRecord
        try {
          record = await client.send({ messages: conversation, maxTokens: 5, ignoreEos: true }, { index: 0 })
        } finally {
          await client.close()
        }
        expect(record.ok, api).toBe(true)
        expect(record.toolCall, api).toBe(true)
        expect(record.outputTokens, api).toBe(5)
        // One reasoning event, then the call's four pieces: every token an output event, as text would be.
        expect(record.chunkTimes, api).toHaveLength(5)
        expect(record.reasoningChunks, api).toBe(1)
        expect(record.firstOutputAt, api).toBe(record.chunkTimes[1])
      }
      // The arguments, streamed in pieces, are one JSON object; the reply ends as a tool call.
      const chat = await postEvents(`${timed.url}/v1/chat/completions`, {
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        max_tokens: 4,
        ignore_eos: true,
        tools: shape.tools,
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      })
      const calls = chat.events.flatMap((e) => {
        const choice = (e.data.choices as Array<{ delta?: { tool_calls?: unknown[] }; finish_reason?: unknown }>)?.[0]
        return (choice?.delta?.tool_calls ?? []) as Array<{
          id?: string
          function: { name?: string; arguments: string }
        }>
      })
      expect(calls[0]?.function.name).toBe('get_weather')
      expect(calls[0]?.id).toMatch(/^call_chatcmpl-/)
      expect(JSON.parse(calls.map((c) => c.function.arguments).join(''))).toEqual({ input: expect.any(String) })
      const last = chat.events
        .filter((e) => Array.isArray(e.data.choices) && (e.data.choices as unknown[]).length > 0)
        .at(-1)
      expect((last?.data.choices as Array<{ finish_reason: unknown }>)[0]?.finish_reason).toBe('tool_calls')
      // Not forced ('auto'), the simulator answers in text.
      const auto = await postEvents(`${timed.url}/v1/messages`, {
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        max_tokens: 4,
        tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
        tool_choice: { type: 'auto' },
      })
      expect(auto.events.some((e) => JSON.stringify(e.data).includes('tool_use'))).toBe(false)
    } finally {
      await timed.close()
    }
  })
})
