// The client's own JavaScript per event, without network, kernel or HTTP parser: recorded vLLM
// streams replayed through the real StreamingRequest (decode, SSE parse, chunk reading,
// timestamps, record) and MetricsAccumulator. What is left of the figures of parse-capacity.ts
// is undici, Node's sockets and the kernel. Steady and quiet enough to compare two versions of
// the hot path on a busy machine.
// Run: npm exec -- node perf/handler-cost.ts
import type { Dispatcher } from 'undici'
import { StreamingRequest } from '../src/core/client/streaming-request.ts'
import type { RequestContext } from '../src/core/client/streaming-request.ts'
import { MetricsAccumulator } from '../src/core/metrics/index.ts'

export interface HandlerCostRow {
  shape: string
  tokens: number
  /** HTTP chunks undici hands over per network read (they share one read tick). */
  chunksPerRead: number
  /** Wall time per content event of the replay, µs (one thread, nothing else in it). */
  usPerEvent: number
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`
}

const base = {
  id: 'chatcmpl-0123456789abcdef0123456789abcdef',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'perf-model',
}
const WORDS = [
  ' the',
  ' quick',
  ' brown',
  ' fox',
  ' jumps',
  ' over',
  ' a',
  ' lazy',
  ' dog',
  ',',
  ' and',
  ' é',
  '"quoted"',
]

/** How the replayed stream reports usage: once at the end, or in every chunk too (`continuous_usage_stats`, vLLM's shape). */
type UsageShape = 'final' | 'continuous'

/** One response as undici hands it over: one buffer per HTTP chunk (one event each, as vLLM writes them). */
function vllmStream(tokens: number, usage: UsageShape = 'final'): Uint8Array[] {
  const running = (completion: number) =>
    usage === 'continuous'
      ? { usage: { prompt_tokens: 16, total_tokens: 16 + completion, completion_tokens: completion } }
      : {}
  const chunks = [
    sse({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      ...running(0),
    }),
  ]
  for (let i = 0; i < tokens; i++) {
    const last = i === tokens - 1
    chunks.push(
      sse({
        ...base,
        choices: [
          {
            index: 0,
            delta: { content: WORDS[i % WORDS.length] },
            logprobs: null,
            finish_reason: last ? 'length' : null,
            ...(last ? { stop_reason: null } : {}),
          },
        ],
        ...running(i + 1),
      }),
    )
  }
  chunks.push(
    sse({ ...base, choices: [], usage: { prompt_tokens: 16, completion_tokens: tokens, total_tokens: 16 + tokens } }) +
      'data: [DONE]\n\n',
  )
  return chunks.map((text) => Buffer.from(text))
}

/** A dispatcher that answers every request at once with the same recorded chunks, `chunksPerRead` per microtask turn. */
function replayDispatcher(chunks: Uint8Array[], chunksPerRead: number): RequestContext['dispatcher'] {
  const controller = {
    abort() {},
    pause() {},
    resume() {},
    paused: false,
    aborted: false,
    reason: null,
  } as unknown as Dispatcher.DispatchController
  const headers = { 'content-type': 'text/event-stream; charset=utf-8' }
  return {
    dispatch(_options, handler) {
      void (async () => {
        handler.onRequestStart?.(controller, {})
        handler.onResponseStart?.(controller, 200, headers, 'OK')
        for (let i = 0; i < chunks.length; i++) {
          // A new read: the client's read tick moves on only across microtask turns.
          if (i % chunksPerRead === 0) await Promise.resolve()
          handler.onResponseData?.(controller, chunks[i] as Buffer)
        }
        handler.onResponseEnd?.(controller, {})
      })()
      return true
    },
    close: async () => {},
  }
}

/**
 * Replays `requests` streams of `tokens` events and returns the cost per event. `usage: 'continuous'`
 * puts the running usage in every chunk (no two chunks alike: every event is parsed);
 * `keepOutputText` collects the answer text as a multi-turn workload asks.
 */
export async function measureHandlerCost(
  tokens: number,
  chunksPerRead: number,
  requests: number,
  options: { usage?: UsageShape; keepOutputText?: boolean } = {},
): Promise<HandlerCostRow> {
  const chunks = vllmStream(tokens, options.usage)
  const context: RequestContext = {
    dispatcher: replayDispatcher(chunks, chunksPerRead),
    url: 'http://replay/v1/chat/completions',
    timeoutMs: 600_000,
    apiKey: undefined,
    api: 'chat',
  }
  const dispatchOptions = {
    method: 'POST',
    path: '/v1/chat/completions',
    headers: {},
    body: '{}',
  } as Dispatcher.DispatchOptions
  const accumulator = new MetricsAccumulator()
  const run = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const record = await new StreamingRequest(
        context,
        dispatchOptions,
        { index: i },
        16,
        options.keepOutputText === true,
      ).send()
      if (!record.ok || record.chunkTimes.length !== tokens)
        throw new Error(`replay failed: ${JSON.stringify(record.error ?? record.chunkTimes.length)}`)
      accumulator.add(record)
    }
  }
  await run(Math.max(10, requests / 10))
  const start = performance.now()
  await run(requests)
  const us = (performance.now() - start) * 1000
  const shape = `vLLM chat chunks${options.usage === 'continuous' ? ', usage in every chunk' : ''}${options.keepOutputText === true ? ', output text kept' : ''}`
  return { shape, tokens, chunksPerRead, usPerEvent: us / (requests * tokens) }
}

export function formatHandlerCostRows(rows: HandlerCostRow[]): string {
  const lines = [
    '| stream | tokens per request | chunks per read | client JS µs per event |',
    '| --- | ---: | ---: | ---: |',
  ]
  for (const r of rows) lines.push(`| ${r.shape} | ${r.tokens} | ${r.chunksPerRead} | ${r.usPerEvent.toFixed(3)} |`)
  return lines.join('\n')
}

export async function runHandlerCost(): Promise<HandlerCostRow[]> {
  const rows: HandlerCostRow[] = []
  for (const [tokens, perRead, requests] of [
    [256, 1, 2000],
    [256, 8, 2000],
    [4, 1, 40_000],
  ] as const) {
    rows.push(await measureHandlerCost(tokens, perRead, requests))
  }
  rows.push(await measureHandlerCost(256, 1, 2000, { keepOutputText: true }))
  rows.push(await measureHandlerCost(256, 1, 2000, { usage: 'continuous' }))
  return rows
}

if (import.meta.main) console.log(formatHandlerCostRows(await runHandlerCost()))
