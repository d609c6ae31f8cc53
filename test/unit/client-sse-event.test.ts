/** The pure parts of the client: reading a parsed chunk, failure messages, the read tick. */
import { describe, expect, test } from 'vitest'
import {
  errorCodeOf,
  httpFailure,
  networkFailure,
  redactFailure,
  serverMessageOf,
} from '../../src/core/client/failure.ts'
import { currentReadTick } from '../../src/core/client/read-tick.ts'
import {
  choiceCarriesOutput,
  finishReasonOf,
  serverTimingsOf,
  streamErrorOf,
  usageTokens,
} from '../../src/core/client/sse-event.ts'

describe('choiceCarriesOutput', () => {
  test.each([
    [{ delta: { content: 'a' } }, true],
    [{ delta: { reasoning_content: 'thinking' } }, true],
    [{ delta: { reasoning: 'thinking' } }, true],
    [{ text: 'a' }, true],
    [{ delta: { role: 'assistant' } }, false],
    [{ delta: { role: 'assistant', content: '' } }, false],
    [{ delta: {} }, false],
    [{ delta: { content: null } }, false],
    [{ text: '' }, false],
    [{ delta: { tool_calls: [] } }, false],
    [null, false],
    [undefined, false],
  ])('%j -> %s', (choice, carries) => {
    expect(choiceCarriesOutput(choice)).toBe(carries)
  })
})

test('finishReasonOf keeps the last non-empty finish_reason', () => {
  expect(finishReasonOf({ choices: [{ finish_reason: null }] }, undefined)).toBeUndefined()
  expect(finishReasonOf({ choices: [{ finish_reason: 'stop' }] }, undefined)).toBe('stop')
  expect(finishReasonOf({ choices: [] }, 'length')).toBe('length')
  expect(finishReasonOf({ choices: [{ finish_reason: 'stop' }, { finish_reason: 'length' }] }, undefined)).toBe(
    'length',
  )
})

test('streamErrorOf finds errors in the shapes servers send', () => {
  expect(streamErrorOf({ error: { message: 'oom', code: 500 } })).toBe('oom')
  expect(streamErrorOf({ error: 'plain' })).toBe('plain')
  expect(streamErrorOf({ error: { code: 500 } })).toBe('{"code":500}')
  expect(streamErrorOf({ object: 'error', message: 'bad request' })).toBe('bad request')
  expect(streamErrorOf({ error: null, choices: [] })).toBeUndefined()
  expect(streamErrorOf({ choices: [] })).toBeUndefined()
})

test('usageTokens needs a numeric completion_tokens', () => {
  expect(usageTokens({ prompt_tokens: 3, completion_tokens: 5 })).toEqual({ completion: 5, prompt: 3 })
  expect(usageTokens({ completion_tokens: 5 })).toEqual({ completion: 5, prompt: undefined })
  expect(usageTokens({ prompt_tokens: 3 })).toBeUndefined()
  expect(usageTokens(null)).toBeUndefined()
})

test('serverTimingsOf keeps numbers only', () => {
  expect(serverTimingsOf({ prompt_ms: 1.5, predicted_n: 3, note: 'x', nested: {} })).toEqual({
    prompt_ms: 1.5,
    predicted_n: 3,
  })
  expect(serverTimingsOf({ note: 'x' })).toBeUndefined()
  expect(serverTimingsOf([1, 2])).toBeUndefined()
})

describe('failure messages', () => {
  test('serverMessageOf: error.message, then message, then detail, then the first 200 characters', () => {
    expect(serverMessageOf('{"error":{"message":"a"},"message":"b"}')).toBe('a')
    expect(serverMessageOf('{"message":"b","detail":"c"}')).toBe('b')
    expect(serverMessageOf('{"detail":"c"}')).toBe('c')
    expect(serverMessageOf('{"detail":[{"loc":["body","model"],"msg":"field required"}]}')).toBe(
      '[{"loc":["body","model"],"msg":"field required"}]',
    )
    expect(serverMessageOf('y'.repeat(300))).toBe(`${'y'.repeat(200)}...`)
  })

  test('httpFailure adds what to do for auth and routing errors', () => {
    expect(httpFailure(401, '{"message":"no"}')).toEqual({
      kind: 'http',
      status: 401,
      message: 'HTTP 401: no. Check target.apiKey (or OPENAI_API_KEY).',
    })
    expect(httpFailure(404, '').message).toBe(
      "HTTP 404: empty body. Check target.baseUrl, target.api (a server may not serve every API: 'chat' (/v1/chat/completions), 'completions' (/v1/completions), 'responses' (/v1/responses), 'messages' (/v1/messages, Anthropic), 'embeddings' (/v1/embeddings) or 'rerank' (/v1/rerank)) and target.model.",
    )
    // With the URL, and a server message ending in a period not doubled.
    expect(httpFailure(404, '{"detail":"Not Found."}', 'http://127.0.0.1:8000/v1/completions').message).toBe(
      "POST http://127.0.0.1:8000/v1/completions: HTTP 404: Not Found. Check target.baseUrl, target.api (a server may not serve every API: 'chat' (/v1/chat/completions), 'completions' (/v1/completions), 'responses' (/v1/responses), 'messages' (/v1/messages, Anthropic), 'embeddings' (/v1/embeddings) or 'rerank' (/v1/rerank)) and target.model.",
    )
  })

  test('errorCodeOf looks into AggregateError (dual-stack connect) and cause', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:8000'), { code: 'ECONNREFUSED' })
    expect(errorCodeOf(new AggregateError([refused], 'all failed'))).toBe('ECONNREFUSED')
    expect(errorCodeOf(new Error('fetch failed', { cause: refused }))).toBe('ECONNREFUSED')
    expect(errorCodeOf(new Error('no code'))).toBeUndefined()
    expect(networkFailure('http://h/v1/completions', new Error('weird'))).toEqual({
      kind: 'network',
      message: 'POST http://h/v1/completions: weird (no error code)',
    })
  })

  test('redactFailure replaces the secret everywhere', () => {
    expect(redactFailure({ kind: 'http', status: 401, message: 'key sk-1 bad, sk-1' }, 'sk-1').message).toBe(
      'key *** bad, ***',
    )
    const untouched = { kind: 'http' as const, message: 'fine' }
    expect(redactFailure(untouched, 'sk-1')).toBe(untouched)
  })
})

test('the read tick is shared within one synchronous pass and advances after it', async () => {
  const a = currentReadTick()
  const b = currentReadTick()
  await Promise.resolve()
  const c = currentReadTick()
  expect(b).toBe(a)
  expect(c).toBeGreaterThan(a)
})
