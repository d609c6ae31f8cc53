import { ToolArguments } from './protocol.ts'
import type { ResponseIdentity, TokenUsage, ToolCallIdentity } from './protocol.ts'

/**
 * The event streams of OpenAI's Responses API and Anthropic's Messages API as vLLM and llama.cpp
 * serve them: every event named twice, in `event:` and in the data's `type`, usage only at the end
 * (`response.completed` / `message_delta`), no `[DONE]`. Reasoning goes first, as its own item or
 * block, then the answer.
 */

/** One server-sent event with its name. */
export function namedSseEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
}

/** Writes the events of one streamed response; a new object per response (it tracks which parts are open). */
export interface TypedEventWriter {
  /** The events before the first output; `usage`: the usage so far (the prompt, its cached tokens, no output). */
  open(usage: TokenUsage): string
  /**
   * The events of one chunk of output: `reasoning` text, then answer `text` (the arguments of a tool
   * call when the reply calls one); `last`: the reply's last chunk.
   */
  chunk(text: string, reasoning: string, last: boolean): string
  /** The events after the last output, with the final usage and the Chat Completions finish reason. */
  close(usage: TokenUsage, finishReason: string): string
  /** The event that reports a failure in the middle of the stream. */
  failure(message: string): string
}

function responsesUsage(usage: TokenUsage): Record<string, unknown> {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  }
}

function messagesUsage(usage: TokenUsage): Record<string, unknown> {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0
  return {
    input_tokens: usage.prompt_tokens - cached,
    cache_read_input_tokens: cached,
    output_tokens: usage.completion_tokens,
  }
}

function stopReason(finishReason: string): string {
  return finishReason === 'length' ? 'max_tokens' : 'end_turn'
}

/** A Responses API object: `status` completed, or incomplete when the output limit ended it. */
function responseObject(
  identity: ResponseIdentity,
  output: unknown[],
  usage: TokenUsage | undefined,
  finishReason: string | undefined,
): Record<string, unknown> {
  const incomplete = finishReason === 'length'
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.created,
    model: identity.model,
    status: finishReason === undefined ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    output,
    usage: usage === undefined ? null : responsesUsage(usage),
  }
}

function messageItem(identity: ResponseIdentity, text: string): Record<string, unknown> {
  return {
    id: `msg_${identity.id}`,
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  }
}

function reasoningItem(identity: ResponseIdentity, reasoning: string): Record<string, unknown> {
  return {
    id: `rs_${identity.id}`,
    type: 'reasoning',
    summary: [],
    content: [{ type: 'reasoning_text', text: reasoning }],
  }
}

function functionCallItem(call: ToolCallIdentity, args: string, status: string): Record<string, unknown> {
  return { type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: args, status }
}

class ResponsesEventWriter implements TypedEventWriter {
  readonly #identity: ResponseIdentity
  readonly #call: ToolCallIdentity | undefined
  readonly #args = new ToolArguments()
  /** The answer text, or a tool call's arguments, so far. */
  #text = ''
  #reasoning = ''
  #messageOpen = false

  constructor(identity: ResponseIdentity, call: ToolCallIdentity | undefined) {
    this.#identity = identity
    this.#call = call
  }

  /** A tool call's events for one chunk: its item opened with the first piece, then an arguments delta. */
  #callChunk(call: ToolCallIdentity, text: string, last: boolean): string {
    if (text === '' && !(last && this.#args.opened)) return ''
    const opening = this.#args.opened
      ? ''
      : namedSseEvent('response.output_item.added', {
          output_index: this.#messageIndex(),
          item: functionCallItem(call, '', 'in_progress'),
        })
    const delta = this.#args.piece(text, last)
    this.#text += delta
    return (
      opening +
      namedSseEvent('response.function_call_arguments.delta', {
        item_id: `fc_${call.id}`,
        output_index: this.#messageIndex(),
        delta,
      })
    )
  }

  open(_usage: TokenUsage): string {
    const response = responseObject(this.#identity, [], undefined, undefined)
    return namedSseEvent('response.created', { response }) + namedSseEvent('response.in_progress', { response })
  }

  chunk(text: string, reasoning: string, last: boolean): string {
    let events = ''
    if (reasoning !== '') {
      if (this.#reasoning === '')
        events += namedSseEvent('response.output_item.added', {
          output_index: 0,
          item: reasoningItem(this.#identity, ''),
        })
      this.#reasoning += reasoning
      events += namedSseEvent('response.reasoning_text.delta', {
        item_id: `rs_${this.#identity.id}`,
        output_index: 0,
        content_index: 0,
        delta: reasoning,
      })
    }
    if (this.#call !== undefined) return events + this.#callChunk(this.#call, text, last)
    if (text !== '') {
      if (!this.#messageOpen) {
        this.#messageOpen = true
        events +=
          namedSseEvent('response.output_item.added', {
            output_index: this.#messageIndex(),
            item: { ...messageItem(this.#identity, ''), status: 'in_progress', content: [] },
          }) +
          namedSseEvent('response.content_part.added', {
            item_id: `msg_${this.#identity.id}`,
            output_index: this.#messageIndex(),
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          })
      }
      this.#text += text
      events += namedSseEvent('response.output_text.delta', {
        item_id: `msg_${this.#identity.id}`,
        output_index: this.#messageIndex(),
        content_index: 0,
        delta: text,
      })
    }
    return events
  }

  #messageIndex(): number {
    return this.#reasoning === '' ? 0 : 1
  }

  #output(): unknown[] {
    const output: unknown[] = []
    if (this.#reasoning !== '') output.push(reasoningItem(this.#identity, this.#reasoning))
    if (this.#messageOpen) output.push(messageItem(this.#identity, this.#text))
    if (this.#call !== undefined && this.#args.opened)
      output.push(functionCallItem(this.#call, this.#text, 'completed'))
    return output
  }

  close(usage: TokenUsage, finishReason: string): string {
    let events = ''
    const call = this.#call
    if (call !== undefined && this.#args.opened)
      events +=
        namedSseEvent('response.function_call_arguments.done', {
          item_id: `fc_${call.id}`,
          output_index: this.#messageIndex(),
          arguments: this.#text,
        }) +
        namedSseEvent('response.output_item.done', {
          output_index: this.#messageIndex(),
          item: functionCallItem(call, this.#text, 'completed'),
        })
    if (this.#messageOpen)
      events +=
        namedSseEvent('response.output_text.done', {
          item_id: `msg_${this.#identity.id}`,
          output_index: this.#messageIndex(),
          content_index: 0,
          text: this.#text,
        }) +
        namedSseEvent('response.output_item.done', {
          output_index: this.#messageIndex(),
          item: messageItem(this.#identity, this.#text),
        })
    const end = finishReason === 'length' ? 'response.incomplete' : 'response.completed'
    return (
      events + namedSseEvent(end, { response: responseObject(this.#identity, this.#output(), usage, finishReason) })
    )
  }

  failure(message: string): string {
    const response = { ...responseObject(this.#identity, this.#output(), undefined, 'stop'), status: 'failed' }
    return namedSseEvent('response.failed', { response: { ...response, error: { code: 'server_error', message } } })
  }
}

class MessagesEventWriter implements TypedEventWriter {
  readonly #identity: ResponseIdentity
  readonly #call: ToolCallIdentity | undefined
  readonly #args = new ToolArguments()
  /** Index of the open content block, -1 before the first. */
  #block = -1
  #blockType: 'thinking' | 'text' | 'tool_use' | undefined

  constructor(identity: ResponseIdentity, call: ToolCallIdentity | undefined) {
    this.#identity = identity
    this.#call = call
  }

  open(usage: TokenUsage): string {
    return namedSseEvent('message_start', {
      message: {
        id: this.#identity.id,
        type: 'message',
        role: 'assistant',
        content: [],
        model: this.#identity.model,
        stop_reason: null,
        stop_sequence: null,
        usage: messagesUsage(usage),
      },
    })
  }

  #blockOf(type: 'thinking' | 'text' | 'tool_use'): Record<string, unknown> {
    if (type === 'thinking') return { type, thinking: '' }
    if (type === 'tool_use' && this.#call !== undefined)
      return { type, id: this.#call.id, name: this.#call.name, input: {} }
    return { type, text: '' }
  }

  #switchTo(type: 'thinking' | 'text' | 'tool_use'): string {
    if (this.#blockType === type) return ''
    let events = this.#blockType === undefined ? '' : namedSseEvent('content_block_stop', { index: this.#block })
    this.#block++
    this.#blockType = type
    events += namedSseEvent('content_block_start', { index: this.#block, content_block: this.#blockOf(type) })
    return events
  }

  chunk(text: string, reasoning: string, last: boolean): string {
    let events = ''
    if (reasoning !== '')
      events +=
        this.#switchTo('thinking') +
        namedSseEvent('content_block_delta', {
          index: this.#block,
          delta: { type: 'thinking_delta', thinking: reasoning },
        })
    if (this.#call !== undefined) {
      if (text === '' && !(last && this.#args.opened)) return events
      return (
        events +
        this.#switchTo('tool_use') +
        namedSseEvent('content_block_delta', {
          index: this.#block,
          delta: { type: 'input_json_delta', partial_json: this.#args.piece(text, last) },
        })
      )
    }
    if (text !== '')
      events +=
        this.#switchTo('text') +
        namedSseEvent('content_block_delta', { index: this.#block, delta: { type: 'text_delta', text } })
    return events
  }

  close(usage: TokenUsage, finishReason: string): string {
    const stop = this.#blockType === undefined ? '' : namedSseEvent('content_block_stop', { index: this.#block })
    const called = this.#call !== undefined && this.#args.opened
    return (
      stop +
      namedSseEvent('message_delta', {
        delta: { stop_reason: called ? 'tool_use' : stopReason(finishReason), stop_sequence: null },
        usage: { output_tokens: usage.completion_tokens },
      }) +
      namedSseEvent('message_stop', {})
    )
  }

  failure(message: string): string {
    return namedSseEvent('error', { error: { type: 'api_error', message } })
  }
}

/** The event writer of a Responses (`responses`) or Messages (`messages`) stream. */
export function typedEventWriter(identity: ResponseIdentity, call?: ToolCallIdentity): TypedEventWriter {
  return identity.api === 'responses'
    ? new ResponsesEventWriter(identity, call)
    : new MessagesEventWriter(identity, call)
}

/** A whole (non-streamed) Responses or Messages body; `call`: the reply is that tool call, its arguments built from `text`. */
export function typedBody(
  identity: ResponseIdentity,
  text: string,
  finishReason: string,
  usage: TokenUsage,
  reasoning: string,
  call?: ToolCallIdentity,
): unknown {
  const args = call === undefined ? '' : new ToolArguments().piece(text, true)
  if (identity.api === 'responses') {
    const output: unknown[] = []
    if (reasoning !== '') output.push(reasoningItem(identity, reasoning))
    output.push(call === undefined ? messageItem(identity, text) : functionCallItem(call, args, 'completed'))
    return responseObject(identity, output, usage, finishReason)
  }
  const content: unknown[] = []
  if (reasoning !== '') content.push({ type: 'thinking', thinking: reasoning, signature: '' })
  content.push(
    call === undefined
      ? { type: 'text', text }
      : { type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(args) as unknown },
  )
  return {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content,
    stop_reason: call === undefined ? stopReason(finishReason) : 'tool_use',
    stop_sequence: null,
    usage: messagesUsage(usage),
  }
}
