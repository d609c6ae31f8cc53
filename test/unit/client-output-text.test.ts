/**
 * The answer text a request keeps (`PreparedRequest.keepOutputText` -> `RequestRecord.outputText`)
 * and the first answer event (`firstOutputAt`, TTFO's end), through the real client and a local
 * server: over the template fast path (chunks of one shape, read without JSON.parse) and over the
 * parse path (every chunk of another shape), with JSON escapes written by the server, multi-byte
 * characters and escapes cut across network reads, and reasoning left out.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { StreamingClient, resolveTarget } from '../../src/core/client/index.ts'
import type { ApiKind } from '../../src/core/contract/api-kinds.ts'
import type { PreparedRequest, RequestRecord } from '../../src/core/contract/request-record.ts'
import { startScriptedServer } from '../fixtures/sse/scripted-server.ts'
import type { ScriptedServer, ScriptedWrite } from '../fixtures/sse/scripted-server.ts'

/** One event of a scripted stream: what the chunk carries. */
interface Piece {
  reasoning?: string
  content?: string
  /** The content as the server writes it inside the JSON string (escapes of its own, e.g. Python's `\u00e9`). */
  rawContent?: string
  finish?: string
}

/** Content as a Python server writes it (`json.dumps`, ensure_ascii): `café 🙂 "q"` with every escape spelled out. */
const ESCAPED_RAW = 'caf\\u00e9 \\ud83d\\ude42 \\"q\\"\\n'
const ESCAPED_TEXT = 'café 🙂 "q"\n'

const PIECES: Piece[] = [
  { reasoning: 'Let me' },
  { reasoning: ' think é' },
  { reasoning: ' more' },
  { content: 'The answer' },
  { content: ' is 42 — é and 🙂' },
  { content: ' with "quotes", a \\ and\na newline' },
  { rawContent: ESCAPED_RAW },
  { content: ' plain' },
  { content: '', finish: 'stop' },
]
const EXPECTED_TEXT = 'The answer is 42 — é and 🙂 with "quotes", a \\ and\na newline' + ESCAPED_TEXT + ' plain'
/** Index among the output events (chunkTimes) of the first answer event: after three reasoning events. */
const FIRST_ANSWER_EVENT = 3

/** The events of one stream; `varying`: each chunk gets its own `created`, so no two share a shape (the parse path). */
function streamText(api: ApiKind, pieces: Piece[], varying: boolean): string {
  let text = ''
  const object = api === 'chat' ? 'chat.completion.chunk' : 'text_completion'
  if (api === 'chat')
    text += `data: ${JSON.stringify({ id: 'c1', object, created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] })}\n\n`
  pieces.forEach((piece, i) => {
    const created = varying ? 100 + i : 1
    const placeholder = '\u0001RAW\u0001'
    const content = piece.rawContent !== undefined ? placeholder : piece.content
    const choice =
      api === 'chat'
        ? {
            index: 0,
            delta: piece.reasoning !== undefined ? { reasoning_content: piece.reasoning } : { content },
            logprobs: null,
            finish_reason: piece.finish ?? null,
          }
        : { index: 0, text: piece.reasoning ?? content, logprobs: null, finish_reason: piece.finish ?? null }
    let data = JSON.stringify({ id: 'c1', object, created, model: 'm', choices: [choice] })
    if (piece.rawContent !== undefined) data = data.replace(JSON.stringify(placeholder), `"${piece.rawContent}"`)
    text += `data: ${data}\n\n`
  })
  text += `data: ${JSON.stringify({ id: 'c1', object, created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 20, total_tokens: 23 } })}\n\ndata: [DONE]\n\n`
  return text
}

/** The stream cut into writes 5 ms apart, with cuts inside multi-byte characters and inside JSON escapes. */
function splitWrites(text: string): ScriptedWrite[] {
  const bytes = new TextEncoder().encode(text)
  const byteIndex = (marker: string, offset: number): number => {
    const at = text.indexOf(marker)
    if (at < 0) throw new Error(`marker ${marker} not in the stream`)
    return new TextEncoder().encode(text.slice(0, at)).length + offset
  }
  const cuts = [
    byteIndex('é and', 1), // inside the two bytes of é
    byteIndex('🙂', 2), // inside the four bytes of 🙂
    byteIndex('\\u00e9', 3), // inside the escape \u00e9
    byteIndex('\\ude42', 1), // between the halves of an escaped surrogate pair
    byteIndex('\\"q', 1), // between a backslash and the quote it escapes
  ].sort((a, b) => a - b)
  const writes: ScriptedWrite[] = []
  let from = 0
  for (const cut of [...cuts, bytes.length]) {
    writes.push({ afterMs: writes.length === 0 ? 0 : 5, data: bytes.subarray(from, cut) })
    from = cut
  }
  return writes
}

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer(() => ({ writes: [] }))
})
afterAll(async () => {
  await server.close()
})

async function send(
  api: ApiKind,
  writes: ScriptedWrite[],
  request: Partial<PreparedRequest>,
  headers?: Record<string, string>,
): Promise<{ record: RequestRecord; parses: number }> {
  server.respond = () => ({ writes, ...(headers ? { headers } : {}) })
  const client = new StreamingClient(resolveTarget({ baseUrl: server.url, api, requestTimeoutMs: 10_000 }, 'm'), {
    connections: 1,
  })
  const parse = vi.spyOn(JSON, 'parse')
  try {
    const record = await client.send(
      { messages: [{ role: 'user', content: 'q' }], prompt: 'q', maxTokens: 32, ...request },
      { index: 0 },
    )
    return { record, parses: parse.mock.calls.length }
  } finally {
    parse.mockRestore()
    await client.close()
  }
}

describe('output text capture', () => {
  test.each(['chat', 'completions'] as const)(
    '%s: the same text over the template path and the parse path, reasoning excluded, first answer event marked',
    async (api) => {
      const templated = await send(api, splitWrites(streamText(api, PIECES, false)), { keepOutputText: true })
      const parsed = await send(api, splitWrites(streamText(api, PIECES, true)), { keepOutputText: true })
      // Completions have no reasoning field: there the "reasoning" pieces are text like any other.
      const expected = api === 'chat' ? EXPECTED_TEXT : 'Let me think é more' + EXPECTED_TEXT
      const firstAnswer = api === 'chat' ? FIRST_ANSWER_EVENT : 0
      for (const { record } of [templated, parsed]) {
        expect(record.ok).toBe(true)
        expect(record.outputText).toBe(expected)
        // The empty closing chunk carries no output; every other piece is an output event.
        expect(record.chunkTimes).toHaveLength(PIECES.length - 1)
        expect(record.firstTokenAt).toBe(record.chunkTimes[0])
        expect(record.firstOutputAt).toBe(record.chunkTimes[firstAnswer])
        expect(record.reasoningChunks).toBe(api === 'chat' ? 3 : undefined)
      }
      // The template path really carried most events: the parse path parsed every one of them.
      const events = PIECES.length + (api === 'chat' ? 2 : 1)
      expect(parsed.parses).toBeGreaterThanOrEqual(events)
      expect(templated.parses).toBeLessThanOrEqual(parsed.parses - 3)
    },
  )

  test('absent when not asked, with the same timings', async () => {
    const { record } = await send('chat', splitWrites(streamText('chat', PIECES, false)), {})
    expect(record.ok).toBe(true)
    expect(record.outputText).toBeUndefined()
    expect('outputText' in record).toBe(false)
    expect(record.firstOutputAt).toBe(record.chunkTimes[FIRST_ANSWER_EVENT])
  })

  test('a stream that is all reasoning keeps an empty text and has no first answer event', async () => {
    const { record } = await send(
      'chat',
      [
        {
          afterMs: 0,
          data: streamText('chat', [{ reasoning: 'hmm' }, { reasoning: ' hmm', finish: 'length' }], false),
        },
      ],
      { keepOutputText: true },
    )
    expect(record.ok).toBe(true)
    expect(record.outputText).toBe('')
    expect(record.chunkTimes).toHaveLength(2)
    expect(record.firstOutputAt).toBeUndefined()
    expect(record.reasoningChunks).toBe(2)
  })

  test('tokens per chunk only when every output event carried a running usage that never went down', async () => {
    const event = (delta: Record<string, string>, usage: number | null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta }], ...(usage === null ? {} : { usage: { prompt_tokens: 1, completion_tokens: usage } }) })}\n\n`
    const stream = (counts: Array<number | null>) => [
      { afterMs: 0, data: counts.map((count, i) => event({ content: `t${i}` }, count)).join('') + 'data: [DONE]\n\n' },
    ]
    const tokens = async (counts: Array<number | null>) => (await send('chat', stream(counts), {})).record.chunkTokens
    expect(await tokens([2, 3, 6])).toEqual([2, 1, 3])
    expect(await tokens([2, null, 6])).toBeUndefined()
    expect(await tokens([null, 3, 6])).toBeUndefined()
    expect(await tokens([2, 5, 4])).toBeUndefined()
  })

  test('a whole JSON body (a buffering layer): message.content without reasoning_content', async () => {
    const body = JSON.stringify({
      id: 'c1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'caf\u00e9 "42"', reasoning_content: 'thinking' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
    })
    const { record } = await send(
      'chat',
      [{ afterMs: 0, data: body }],
      { keepOutputText: true },
      { 'content-type': 'application/json' },
    )
    expect(record.ok).toBe(true)
    expect(record.streamed).toBe(false)
    expect(record.outputText).toBe('café "42"')
  })
})
