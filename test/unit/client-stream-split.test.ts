/**
 * One event split across two TCP writes at every byte position, including inside multi-byte
 * UTF-8 characters (2-, 3- and 4-byte ones). Every split must give the same record.
 *
 * The finish_reason of the split event holds multi-byte characters on purpose: it is copied into
 * the record, so a decoder that is not streaming would turn a split character into U+FFFD there
 * and the record would differ.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { StreamingClient, resolveTarget } from '../../src/core/client/index.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { startScriptedServer } from '../fixtures/sse/scripted-server.ts'
import type { ScriptedServer } from '../fixtures/sse/scripted-server.ts'

const FINISH = 'länge€𝄞'
const roleEvent = 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n'
const splitEvent = `data: {"choices":[{"index":0,"delta":{"content":"héllo wörld € 𝄞"},"finish_reason":"${FINISH}"}]}\r\n\r\n`
const tail =
  'data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":6,"total_tokens":10}}\n\ndata: [DONE]\n\n'
const bytes = new TextEncoder().encode(splitEvent)

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer((request) => {
    const at = Number(JSON.parse(request.body).split_at)
    return {
      writes: [
        { afterMs: 0, data: roleEvent },
        { afterMs: 10, data: bytes.subarray(0, at) },
        // Long enough for the client to read the first part on its own.
        { afterMs: 15, data: bytes.subarray(at) },
        { afterMs: 0, data: tail },
      ],
    }
  })
})
afterAll(async () => {
  await server.close()
})

function timeless(record: RequestRecord): Record<string, unknown> {
  return {
    ok: record.ok,
    error: record.error,
    chunks: record.chunkTimes.length,
    outputTokens: record.outputTokens,
    inputTokens: record.inputTokens,
    usageReported: record.usageReported,
    streamed: record.streamed,
    finishReason: record.finishReason,
  }
}

test('an event split at every byte position (inside multi-byte characters too) gives identical records', async () => {
  // Sanity of the fixture: it has characters of 2, 3 and 4 bytes, so some splits fall inside them.
  expect(bytes.length).toBeGreaterThan(splitEvent.length + 5)
  const client = new StreamingClient(resolveTarget({ baseUrl: server.url, requestTimeoutMs: 20_000 }, 'm'), {
    connections: 16,
  })
  try {
    const positions = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)
    const records = await Promise.all(
      positions.map((at, index) =>
        client.send({ messages: [{ role: 'user', content: 'x' }], extraBody: { split_at: at } }, { index }),
      ),
    )
    const expected = {
      ok: true,
      error: undefined,
      chunks: 1,
      outputTokens: 6,
      inputTokens: 4,
      usageReported: true,
      streamed: true,
      finishReason: FINISH,
    }
    records.forEach((record, i) => {
      expect({ at: positions[i], ...timeless(record) }).toEqual({ at: positions[i], ...expected })
      // The event is complete with the CR of its closing blank line (a bare CR ends a line in
      // SSE): only the split before the very last byte completes it in the first part.
      const at = positions[i] as number
      const completingWrite = at >= bytes.length - 1 ? 1 : 2
      const writeTimes = server.requests.find((r) => JSON.parse(r.body).split_at === at)?.writeTimes ?? []
      expect({
        at,
        arrivedAfterCompletingWrite: (record.firstTokenAt as number) >= (writeTimes[completingWrite] as number),
      }).toEqual({ at, arrivedAfterCompletingWrite: true })
    })
  } finally {
    await client.close()
  }
})
