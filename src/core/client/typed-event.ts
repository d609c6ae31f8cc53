/**
 * Reading one event of a stream whose events are typed by their `type` field: OpenAI's Responses
 * API (`response.output_text.delta`, ..., `response.completed`) and Anthropic's Messages API
 * (`message_start`, `content_block_delta`, ..., `message_stop`), as vLLM and llama.cpp serve
 * them. Chat and completions chunks are read by sse-event.ts.
 *
 * Output, as for chat (output-fields.ts): an event that carries a non-empty answer text
 * (`output_text` / `text_delta`, a refusal), tool-call arguments (`function_call_arguments` /
 * `input_json_delta`: a tool call is output, as AIPerf counts it toward TTFT) or reasoning
 * (`reasoning_text`, `reasoning_summary_text` / `thinking_delta`; TTFT counts it, TTFO does not).
 * Events that only open or close an item, a part or a block carry no output.
 */
import type { ApiKind } from '../contract/api-kinds.ts'

/** What an event carries: nothing, answer output (text or tool-call arguments) or reasoning. */
export type TypedOutput = 'none' | 'answer' | 'reasoning'

/** What one event says, filled in place by {@link readTypedEvent} (one object per request, no allocation per event). */
export interface TypedEventReading {
  output: TypedOutput
  /** The answer text the event adds ('' for reasoning and tool-call arguments). */
  text: string
  /** True when the event's output is a tool call's arguments. */
  toolCall: boolean
  /** The stream's last event: `response.completed` / `response.incomplete`, `message_stop`. */
  done: boolean
  /** The server's message when the event reports a failure (`response.failed`, `error`). */
  error: string | undefined
  /** Input tokens the event reports (with cached ones), else undefined. */
  inputTokens: number | undefined
  /** Output tokens the event reports (cumulative), else undefined. */
  outputTokens: number | undefined
  /** Reasoning tokens among the output, when reported. */
  reasoningTokens: number | undefined
  /** Why generation ended, in the Chat Completions vocabulary (`stop`, `length`, `tool_calls`, ...). */
  finishReason: string | undefined
  /** llama.cpp's `timings` object, when the event carries one. */
  timings: unknown
}

export function emptyTypedReading(): TypedEventReading {
  return {
    output: 'none',
    text: '',
    toolCall: false,
    done: false,
    error: undefined,
    inputTokens: undefined,
    outputTokens: undefined,
    reasoningTokens: undefined,
    finishReason: undefined,
    timings: undefined,
  }
}

/** The APIs whose streams {@link readTypedEvent} reads. */
export function hasTypedEvents(api: ApiKind): boolean {
  return api === 'responses' || api === 'messages'
}

type Json = Record<string, unknown>

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0
}

function messageOf(value: unknown, fallback: string): string {
  if (nonEmpty(value)) return value
  const r = record(value)
  if (r !== undefined) {
    if (nonEmpty(r.message)) return r.message
    const inner = record(r.error)
    if (inner !== undefined && nonEmpty(inner.message)) return inner.message
    return JSON.stringify(r).slice(0, 200)
  }
  return fallback
}

/** Responses API `usage` (`input_tokens`, `output_tokens`, `output_tokens_details.reasoning_tokens`). */
function readResponsesUsage(usage: unknown, into: TypedEventReading): void {
  const u = record(usage)
  if (u === undefined) return
  into.inputTokens = count(u.input_tokens)
  into.outputTokens = count(u.output_tokens)
  into.reasoningTokens = count(record(u.output_tokens_details)?.reasoning_tokens)
}

/** The end of a Responses stream: `response.completed` (`stop`) or `response.incomplete` (its reason; `length` for the output limit). */
function readResponseEnd(data: Json, into: TypedEventReading, completed: boolean): void {
  into.done = true
  const response = record(data.response)
  readResponsesUsage(response?.usage, into)
  if (completed) {
    const output = response?.output
    const called = Array.isArray(output) && output.some((item) => record(item)?.type === 'function_call')
    into.finishReason = called ? 'tool_calls' : 'stop'
  } else {
    const reason = record(response?.incomplete_details)?.reason
    into.finishReason = reason === 'max_output_tokens' ? 'length' : nonEmpty(reason) ? reason : 'incomplete'
  }
}

function readResponsesEvent(type: string, data: Json, into: TypedEventReading): void {
  switch (type) {
    case 'response.output_text.delta':
    case 'response.refusal.delta':
      if (nonEmpty(data.delta)) {
        into.output = 'answer'
        into.text = data.delta
      }
      return
    case 'response.function_call_arguments.delta':
      if (nonEmpty(data.delta)) {
        into.output = 'answer'
        into.toolCall = true
      }
      return
    case 'response.reasoning_text.delta':
    case 'response.reasoning_summary_text.delta':
      if (nonEmpty(data.delta)) into.output = 'reasoning'
      return
    case 'response.completed':
      readResponseEnd(data, into, true)
      return
    case 'response.incomplete':
      readResponseEnd(data, into, false)
      return
    case 'response.failed':
      into.error = messageOf(record(data.response)?.error, 'response.failed without an error message')
      return
    case 'error':
      into.error = messageOf(data, 'error event without a message')
      return
  }
}

/** Anthropic's `stop_reason` in the Chat Completions vocabulary. */
function finishOfStopReason(reason: unknown): string | undefined {
  if (!nonEmpty(reason)) return undefined
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'stop'
  if (reason === 'max_tokens') return 'length'
  if (reason === 'tool_use') return 'tool_calls'
  return reason
}

function readMessagesEvent(type: string, data: Json, into: TypedEventReading): void {
  switch (type) {
    case 'content_block_delta': {
      const delta = record(data.delta)
      if (delta === undefined) return
      if (delta.type === 'text_delta' && nonEmpty(delta.text)) {
        into.output = 'answer'
        into.text = delta.text
      } else if (delta.type === 'input_json_delta' && nonEmpty(delta.partial_json)) {
        into.output = 'answer'
        into.toolCall = true
      } else if (delta.type === 'thinking_delta' && nonEmpty(delta.thinking)) into.output = 'reasoning'
      return
    }
    case 'message_start': {
      // Anthropic's input_tokens leave out the tokens read from or written to the prompt cache.
      const usage = record(record(data.message)?.usage)
      const input = count(usage?.input_tokens)
      if (input !== undefined)
        into.inputTokens =
          input + (count(usage?.cache_read_input_tokens) ?? 0) + (count(usage?.cache_creation_input_tokens) ?? 0)
      return
    }
    case 'message_delta':
      into.outputTokens = count(record(data.usage)?.output_tokens)
      into.finishReason = finishOfStopReason(record(data.delta)?.stop_reason)
      return
    case 'message_stop':
      into.done = true
      return
    case 'error':
      into.error = messageOf(data.error ?? data, 'error event without a message')
      return
  }
}

/**
 * Reads one parsed event of a Responses or Messages stream into `into` (reset first). `eventName`
 * is the SSE `event:` field, used when the data has no `type`.
 */
export function readTypedEvent(api: ApiKind, eventName: string | undefined, data: Json, into: TypedEventReading): void {
  into.output = 'none'
  into.text = ''
  into.toolCall = false
  into.done = false
  into.error = undefined
  into.inputTokens = undefined
  into.outputTokens = undefined
  into.reasoningTokens = undefined
  into.finishReason = undefined
  into.timings = data.timings
  const type = nonEmpty(data.type) ? data.type : (eventName ?? '')
  if (api === 'responses') readResponsesEvent(type, data, into)
  else readMessagesEvent(type, data, into)
}

/** What a whole (non-streamed) Responses or Messages body holds. */
export interface TypedBody {
  /** True when some output item or block carries output (text, reasoning or a tool call). */
  carriesOutput: boolean
  /** True when the reply holds a tool call. */
  toolCall: boolean
  /** The answer text, reasoning and tool calls left out. */
  text: string
  reading: TypedEventReading
}

/** Reads a whole Responses (`object: "response"`) or Messages (`type: "message"`) body. */
export function readTypedBody(api: ApiKind, body: Json): TypedBody {
  const reading = emptyTypedReading()
  reading.timings = body.timings
  let text = ''
  let carries = false
  let toolCall = false
  if (api === 'responses') {
    readResponseEnd({ response: body }, reading, body.status !== 'incomplete')
    reading.done = false
    const output = Array.isArray(body.output) ? body.output : []
    for (const item of output) {
      const i = record(item)
      if (i === undefined) continue
      if (i.type === 'function_call' || i.type === 'reasoning') carries = true
      if (i.type === 'function_call') toolCall = true
      for (const part of Array.isArray(i.content) ? i.content : []) {
        const p = record(part)
        if (p !== undefined && i.type === 'message' && nonEmpty(p.text)) {
          text += p.text
          carries = true
        }
      }
    }
  } else {
    const usage = record(body.usage)
    readMessagesEvent('message_start', { message: { usage } }, reading)
    reading.outputTokens = count(usage?.output_tokens)
    reading.finishReason = finishOfStopReason(body.stop_reason)
    for (const block of Array.isArray(body.content) ? body.content : []) {
      const b = record(block)
      if (b === undefined) continue
      if (b.type === 'text' && nonEmpty(b.text)) {
        text += b.text
        carries = true
      } else if (b.type === 'tool_use' || (b.type === 'thinking' && nonEmpty(b.thinking))) carries = true
      if (b.type === 'tool_use') toolCall = true
    }
  }
  return { carriesOutput: carries, toolCall, text, reading }
}
