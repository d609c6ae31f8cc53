/**
 * Structured output: `workload.responseFormat` is sent in each API's place, every reply is checked
 * against it (JSON, then the schema), and the result counts the replies that met it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { StreamingClient, buildRequestBody, resolveTarget } from '../../src/core/client/index.ts'
import type { ResolvedTarget } from '../../src/core/client/index.ts'
import { replyCheckOf } from '../../src/core/contract/reply-schema.ts'
import { OptionsError } from '../../src/core/contract/errors.ts'
import type { RequestShape, WorkloadOptions } from '../../src/core/contract/workload-options.ts'
import { MetricsAccumulator } from '../../src/core/metrics/index.ts'
import { resolveRequestShape } from '../../src/core/workload/request-shape.ts'
import { createWorkload, ignoreEosOf } from '../../src/core/workload/index.ts'
import { startScriptedServer } from '../fixtures/sse/scripted-server.ts'
import type { ScriptedServer } from '../fixtures/sse/scripted-server.ts'

const schema = {
  type: 'object',
  properties: { city: { type: 'string', maxLength: 8 }, n: { type: 'integer' } },
  required: ['city', 'n'],
  additionalProperties: false,
}
const synthetic = (extra: Record<string, unknown>): WorkloadOptions =>
  ({ kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 8 }, ...extra }) as WorkloadOptions

describe('the check of a reply', () => {
  test('json_schema: valid, not JSON, or JSON that breaks the schema (maxLength, a missing field, an extra one)', () => {
    const check = replyCheckOf({ type: 'json_schema', name: 'c', schema, strict: true })
    expect(check('{"city": "Paris", "n": 2}')).toBe('valid')
    expect(check(' {"city":"Oslo","n":0}\n')).toBe('valid')
    expect(check('{"city": "Paris", "n": 2')).toBe('not-json')
    expect(check('Sure! {"city": "Paris", "n": 2}')).toBe('not-json')
    expect(check('')).toBe('not-json')
    expect(check('{"city": "Copenhagen", "n": 2}')).toBe('schema-mismatch')
    expect(check('{"city": "Paris"}')).toBe('schema-mismatch')
    expect(check('{"city": "Paris", "n": 2, "x": 1}')).toBe('schema-mismatch')
    expect(check('{"city": "Paris", "n": 2.5}')).toBe('schema-mismatch')
  })

  test('draft 2020-12: prefixItems holds the first items', () => {
    const check = replyCheckOf({
      type: 'json_schema',
      name: 'pair',
      schema: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
      strict: true,
    })
    expect(check('["a", 1]')).toBe('valid')
    expect(check('[1, "a"]')).toBe('schema-mismatch')
  })

  test('json_object: any JSON object; an array, a string or text is not one', () => {
    const check = replyCheckOf({ type: 'json_object' })
    expect(check('{"a": [1, 2]}')).toBe('valid')
    expect(check('[1, 2]')).toBe('not-json')
    expect(check('"a"')).toBe('not-json')
    expect(check('hello')).toBe('not-json')
  })
})

describe('workload.responseFormat', () => {
  test('resolved once with its defaults; a schema that does not compile is refused, naming it', () => {
    expect(resolveRequestShape(synthetic({ responseFormat: { type: 'json_schema', schema } }))).toEqual({
      tools: [],
      toolChoice: undefined,
      responseFormat: { type: 'json_schema', name: 'output', schema, strict: true },
    })
    const bad = (format: unknown) => {
      try {
        resolveRequestShape(synthetic({ responseFormat: format }))
      } catch (error) {
        return (error as OptionsError).option
      }
      return 'accepted'
    }
    expect(bad({ type: 'json_schema', schema: { type: 'nonsense' } })).toBe('workload.responseFormat.schema')
    expect(bad({ type: 'json_schema' })).toBe('workload.responseFormat.schema')
    expect(bad({ type: 'json_schema', schema, name: 'has space' })).toBe('workload.responseFormat.name')
    expect(bad({ type: 'text' })).toBe('workload.responseFormat')
    expect(bad({ type: 'json_object' })).toBe('accepted')
  })

  test('a reply held to a format ends on its own: ignoreEos defaults to false, as it does for a forced tool', () => {
    expect(ignoreEosOf(synthetic({}))).toBe(true)
    expect(ignoreEosOf(synthetic({ responseFormat: { type: 'json_object' } }))).toBe(false)
    const tools = [{ type: 'function', function: { name: 'f' } }]
    expect(ignoreEosOf(synthetic({ tools, toolChoice: 'required' }))).toBe(false)
    expect(ignoreEosOf(synthetic({ tools, toolChoice: 'auto' }))).toBe(true)
    expect(ignoreEosOf(synthetic({ responseFormat: { type: 'json_object' }, ignoreEos: true }))).toBe(true)
  })

  test('the Messages API takes none: refused before any request', async () => {
    const error = await createWorkload(synthetic({ responseFormat: { type: 'json_object' } }), {
      seed: 0,
      api: 'messages',
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OptionsError)
    expect((error as OptionsError).option).toBe('workload.responseFormat')
  })

  test("sent in each API's place: response_format for chat and completions, text.format for Responses", () => {
    const target: ResolvedTarget = resolveTarget({ baseUrl: 'http://127.0.0.1:1' }, 'm')
    const shape: RequestShape = {
      tools: [],
      toolChoice: undefined,
      responseFormat: { type: 'json_schema', name: 'c', schema, strict: true },
    }
    const request = { prompt: 'a city' }
    const chat = buildRequestBody(target, request, shape)
    expect(chat.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'c', schema, strict: true } })
    expect('tools' in chat).toBe(false)
    expect(buildRequestBody({ ...target, api: 'completions' }, request, shape).response_format).toEqual(
      chat.response_format,
    )
    expect(buildRequestBody({ ...target, api: 'responses' }, request, shape).text).toEqual({
      format: { type: 'json_schema', name: 'c', schema, strict: true },
    })
    const object = { ...shape, responseFormat: { type: 'json_object' as const } }
    expect(buildRequestBody(target, request, object).response_format).toEqual({ type: 'json_object' })
    expect(buildRequestBody({ ...target, api: 'responses' }, request, object).text).toEqual({
      format: { type: 'json_object' },
    })
  })
})

describe('through the client and the metrics', () => {
  let server: ScriptedServer
  let reply = ''
  beforeAll(async () => {
    const chunk = (text: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`
    server = await startScriptedServer(() => ({
      // The reply in three pieces, split inside its JSON, as a server streams it.
      writes: [
        { afterMs: 5, data: chunk(reply.slice(0, 4)) },
        { afterMs: 5, data: chunk(reply.slice(4, 9)) },
        {
          afterMs: 5,
          data:
            chunk(reply.slice(9)) +
            'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":3}}\n\ndata: [DONE]\n\n',
        },
      ],
    }))
  })
  afterAll(async () => {
    await server.close()
  })

  test('each reply is checked on its whole text, which is then dropped unless kept; the result counts them', async () => {
    const shape = resolveRequestShape(synthetic({ responseFormat: { type: 'json_schema', schema } }))
    const client = new StreamingClient(resolveTarget({ baseUrl: server.url, requestTimeoutMs: 10_000 }, 'm'), {
      connections: 1,
      shape,
    })
    const metrics = new MetricsAccumulator()
    try {
      for (const [text, keep, expected] of [
        ['{"city": "Paris", "n": 2}', false, 'valid'],
        ['{"city": "Copenhagen", "n": 2}', false, 'schema-mismatch'],
        ['Paris, 2 of them', true, 'not-json'],
      ] as const) {
        reply = text
        const record = await client.send({ prompt: 'a city', keepOutputText: keep }, { index: 0 })
        expect(record.ok).toBe(true)
        expect(record.structuredOutput, text).toBe(expected)
        expect(record.outputText).toBe(keep ? text : undefined)
        metrics.add(record)
      }
    } finally {
      await client.close()
    }
    const outcome = metrics.finish({ durationMs: 1000 })
    expect(outcome.streaming.structuredOutput).toEqual({ checked: 3, valid: 1, notJson: 1, schemaMismatch: 1 })
    expect(outcome.warnings).toContain(
      '2 of 3 replies did not meet workload.responseFormat (1 not JSON, 1 breaking the schema).',
    )
    // The request asked for the format.
    expect(JSON.parse(server.requests.at(-1)?.body ?? '{}').response_format.json_schema.schema).toEqual(schema)
  })
})
