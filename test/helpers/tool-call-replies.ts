/**
 * Checks tool-call replies of a real server from two sides: the client's records, and the same
 * streams as a {@link SseTap} read them from the server. Each record is paired with its exchange; the
 * summary says how many replies made a call, whether each call's arguments parse as JSON, and how far
 * the client's TTFT lies from the moment the first tool-call delta left the server.
 */
import type { ApiKind } from '../../src/core/contract/api-kinds.ts'
import type { RequestRecord, ToolCallMade } from '../../src/core/contract/request-record.ts'
import { ToolCallsMade } from '../../src/core/client/tool-calls-made.ts'
import type { TappedEvent, TappedExchange } from './sse-tap.ts'

/** What one API's tool-call replies showed (times in ms). */
export interface ToolReplySummary {
  /** Completed records checked. */
  requests: number
  /** Records the client flagged as tool-call replies (`RequestRecord.toolCall`). */
  countedByClient: number
  /** Records paired with a tapped stream that carried a tool-call delta. */
  paired: number
  /** Paired streams with answer text before their first tool-call delta. */
  textBeforeCall: number
  /** Calls in the paired streams, and those whose whole arguments parse as a JSON object. */
  calls: number
  jsonArguments: number
  /** Calls per function name. */
  names: Record<string, number>
  /** The client's TTFT end minus the tap's time of the first tool-call delta: min, median, max, ms. */
  ttftLagMs: { min: number; p50: number; max: number }
  /** The client's TTFT (send to first tool-call delta), median, ms. */
  ttftP50Ms: number
  /** llama-server's own `timings` (last chunk), medians: prompt time and time per generated token, ms. */
  serverPromptP50Ms: number
  serverPerTokenP50Ms: number
  /** Output tokens per reply (usage), median. */
  outputTokensP50: number
  /** Finish reasons the client recorded, with counts. */
  finishReasons: Record<string, number>
  /** Example arguments, as streamed (at most three). */
  examples: string[]
}

const ENDPOINT: Partial<Record<ApiKind, string>> = {
  chat: '/v1/chat/completions',
  responses: '/v1/responses',
  messages: '/v1/messages',
}

const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value !== ''
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}

/** True when the event carries a piece of a tool call, as each API streams it (docs/apis.md). */
export function isToolCallDelta(api: ApiKind, event: TappedEvent): boolean {
  const data = event.data
  if (data === undefined) return false
  if (api === 'chat') {
    const calls = record(record((data.choices as unknown[] | undefined)?.[0]).delta).tool_calls
    return (
      Array.isArray(calls) &&
      calls.some(
        (call) => nonEmpty(record(record(call).function).name) || nonEmpty(record(record(call).function).arguments),
      )
    )
  }
  if (api === 'responses') return data.type === 'response.function_call_arguments.delta' && nonEmpty(data.delta)
  const delta = record(data.delta)
  return data.type === 'content_block_delta' && delta.type === 'input_json_delta' && nonEmpty(delta.partial_json)
}

/** True when the event carries answer text. */
function isTextDelta(api: ApiKind, event: TappedEvent): boolean {
  const data = event.data
  if (data === undefined) return false
  if (api === 'chat') return nonEmpty(record(record((data.choices as unknown[] | undefined)?.[0]).delta).content)
  if (api === 'responses') return data.type === 'response.output_text.delta' && nonEmpty(data.delta)
  const delta = record(data.delta)
  return data.type === 'content_block_delta' && delta.type === 'text_delta' && nonEmpty(delta.text)
}

/** The calls a tapped stream made, gathered as the client gathers them for a session's next turn. */
export function callsOf(api: ApiKind, exchange: TappedExchange): ToolCallMade[] {
  const calls = new ToolCallsMade()
  for (const event of exchange.events) {
    if (event.data === undefined) continue
    if (api === 'chat') calls.chatDelta(record((event.data.choices as unknown[] | undefined)?.[0]).delta)
    else calls.typedEvent(api, event.data)
  }
  return calls.list() ?? []
}

function parsesAsObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!
}

/**
 * Pairs each completed record of `api` with the tapped exchange it was: sent after the record's send,
 * its first tool-call delta read before the record's TTFT end, the latest such one; then summarises.
 */
export function summariseToolReplies(
  api: ApiKind,
  records: readonly RequestRecord[],
  exchanges: readonly TappedExchange[],
): ToolReplySummary {
  const endpoint = ENDPOINT[api]
  const streams = exchanges
    .filter((exchange) => exchange.path === endpoint && exchange.status === 200)
    .map((exchange) => {
      const first = exchange.events.findIndex((event) => isToolCallDelta(api, event))
      return { exchange, first, firstAt: first < 0 ? Number.NaN : exchange.events[first]!.at, used: false }
    })
  const completed = records.filter((r) => r.ok).sort((a, b) => a.sentAt - b.sentAt)
  const summary: ToolReplySummary = {
    requests: completed.length,
    countedByClient: completed.filter((r) => r.toolCall === true).length,
    paired: 0,
    textBeforeCall: 0,
    calls: 0,
    jsonArguments: 0,
    names: {},
    ttftLagMs: { min: Number.NaN, p50: Number.NaN, max: Number.NaN },
    ttftP50Ms: Number.NaN,
    serverPromptP50Ms: median(completed.flatMap((r) => r.serverTimings?.prompt_ms ?? [])),
    serverPerTokenP50Ms: median(completed.flatMap((r) => r.serverTimings?.predicted_per_token_ms ?? [])),
    outputTokensP50: median(completed.map((r) => r.outputTokens)),
    finishReasons: {},
    examples: [],
  }
  const lags: number[] = []
  const ttfts: number[] = []
  for (const r of completed) {
    const reason = r.finishReason ?? 'none'
    summary.finishReasons[reason] = (summary.finishReasons[reason] ?? 0) + 1
    if (r.firstTokenAt === undefined) continue
    ttfts.push(r.firstTokenAt - r.sentAt)
    let best: (typeof streams)[number] | undefined
    for (const stream of streams) {
      if (stream.used || stream.first < 0 || stream.exchange.receivedAt < r.sentAt || stream.firstAt > r.firstTokenAt)
        continue
      if (best === undefined || stream.firstAt > best.firstAt) best = stream
    }
    if (best === undefined) continue
    best.used = true
    summary.paired++
    lags.push(r.firstTokenAt - best.firstAt)
    if (best.exchange.events.slice(0, best.first).some((event) => isTextDelta(api, event))) summary.textBeforeCall++
    for (const call of callsOf(api, best.exchange)) {
      summary.calls++
      if (parsesAsObject(call.arguments)) summary.jsonArguments++
      summary.names[call.name] = (summary.names[call.name] ?? 0) + 1
      if (summary.examples.length < 3) summary.examples.push(call.arguments)
    }
  }
  if (lags.length > 0) summary.ttftLagMs = { min: Math.min(...lags), p50: median(lags), max: Math.max(...lags) }
  summary.ttftP50Ms = median(ttfts)
  return summary
}

/** How the tool turns of a session workload answered the calls the server streamed (all bodies through a tap). */
export interface ToolTurnSummary {
  /** Distinct tool results sent (each re-sent history counted once). */
  results: number
  /** Results whose id is a call an earlier message of the same body made. */
  answerEarlierCall: number
  /** Results whose id is a call the server itself streamed in an earlier reply. */
  answerStreamedCall: number
  /** Distinct call ids the server streamed. */
  streamedCalls: number
}

/** Calls and results of one request body, in order: chat messages, Responses input items, Messages blocks. */
function turnsOf(api: ApiKind, body: Record<string, unknown>): Array<{ kind: 'call' | 'result'; id: string }> {
  const out: Array<{ kind: 'call' | 'result'; id: string }> = []
  const text = (value: unknown): string => (typeof value === 'string' ? value : '')
  if (api === 'responses') {
    for (const item of (body.input as unknown[] | undefined) ?? []) {
      const it = record(item)
      if (it.type === 'function_call') out.push({ kind: 'call', id: text(it.call_id) })
      if (it.type === 'function_call_output') out.push({ kind: 'result', id: text(it.call_id) })
    }
    return out
  }
  for (const message of (body.messages as unknown[] | undefined) ?? []) {
    const m = record(message)
    if (api === 'chat') {
      for (const call of (m.tool_calls as unknown[] | undefined) ?? [])
        out.push({ kind: 'call', id: text(record(call).id) })
      if (m.role === 'tool') out.push({ kind: 'result', id: text(m.tool_call_id) })
      continue
    }
    for (const block of Array.isArray(m.content) ? (m.content as unknown[]) : []) {
      const b = record(block)
      if (b.type === 'tool_use') out.push({ kind: 'call', id: text(b.id) })
      if (b.type === 'tool_result') out.push({ kind: 'result', id: text(b.tool_use_id) })
    }
  }
  return out
}

/** Checks every tool result sent through the tap against the calls before it and those the server streamed. */
export function summariseToolTurns(api: ApiKind, exchanges: readonly TappedExchange[]): ToolTurnSummary {
  const endpoint = ENDPOINT[api]
  const ordered = exchanges.filter((exchange) => exchange.path === endpoint).sort((a, b) => a.receivedAt - b.receivedAt)
  const streamed = new Map<string, number>()
  for (const exchange of ordered) for (const call of callsOf(api, exchange)) streamed.set(call.id, exchange.receivedAt)
  const seen = new Set<string>()
  const summary: ToolTurnSummary = {
    results: 0,
    answerEarlierCall: 0,
    answerStreamedCall: 0,
    streamedCalls: streamed.size,
  }
  for (const exchange of ordered) {
    const turns = turnsOf(api, exchange.body)
    turns.forEach((turn, at) => {
      if (turn.kind !== 'result' || seen.has(turn.id)) return
      seen.add(turn.id)
      summary.results++
      if (turns.slice(0, at).some((earlier) => earlier.kind === 'call' && earlier.id === turn.id))
        summary.answerEarlierCall++
      const streamedAt = streamed.get(turn.id)
      if (streamedAt !== undefined && streamedAt < exchange.receivedAt) summary.answerStreamedCall++
    })
  }
  return summary
}
