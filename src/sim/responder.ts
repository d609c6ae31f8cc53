import type { ServerResponse } from 'node:http'
import {
  completionBody,
  errorBody,
  roleChunk,
  SSE_DONE,
  sseEvent,
  streamErrorEvent,
  tokenChunk,
  usageChunk,
  usageOf,
} from './protocol.ts'
import { ToolArguments, toolCallChunk } from './protocol.ts'
import type { ResponseIdentity, TokenUsage, ToolCallIdentity } from './protocol.ts'
import { typedBody, typedEventWriter } from './typed-protocol.ts'
import type { TypedEventWriter } from './typed-protocol.ts'

/**
 * How a response reaches the client: `stream` writes each event as it is produced, `burst`
 * writes the same events in one piece at the end, `json` answers with one completion object.
 */
export type ResponseMode = 'stream' | 'burst' | 'json'

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' } as const

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

/** Writes one completion response in the chosen mode. */
export class CompletionResponder {
  readonly #res: ServerResponse
  readonly #identity: ResponseIdentity
  readonly #mode: ResponseMode
  readonly #includeUsage: boolean
  readonly #continuousUsage: boolean
  /** Reasoning tokens of the reply, reported in the usage; undefined when reasoning is not modelled. */
  readonly #reasoningTokens: number | undefined
  readonly #promptTokens: number
  readonly #finishReason: string
  /** Prefix-cache hits to report in the usage; undefined when prefix caching is not modelled. */
  #cachedTokens: number | undefined
  #buffer = ''
  #reasoningBuffer = ''
  #emittedTokens = 0
  #started = false
  /** The Responses or Messages API's events; undefined for chat and completions. */
  readonly #typed: TypedEventWriter | undefined
  /** The tool the reply calls (its tokens are the call's arguments); undefined: a text reply. */
  readonly #toolCall: ToolCallIdentity | undefined
  /** A chat tool call's arguments, built from the tokens as they come. */
  readonly #args = new ToolArguments()

  /**
   * `reportCachedTokens`: the usage carries `prompt_tokens_details.cached_tokens` (set by {@link cached}, 0 until then).
   * `continuousUsage`: every chunk carries the usage so far (`stream_options.continuous_usage_stats`).
   * `reasoningTokens`: the reply's reasoning tokens, reported in `completion_tokens_details.reasoning_tokens`.
   */
  constructor(options: {
    res: ServerResponse
    identity: ResponseIdentity
    mode: ResponseMode
    includeUsage: boolean
    continuousUsage?: boolean
    reasoningTokens?: number
    promptTokens: number
    finishReason: string
    reportCachedTokens?: boolean
    toolCall?: ToolCallIdentity
  }) {
    this.#res = options.res
    this.#identity = options.identity
    this.#mode = options.mode
    this.#includeUsage = options.includeUsage
    this.#continuousUsage = options.continuousUsage === true
    this.#reasoningTokens = options.reasoningTokens
    this.#promptTokens = options.promptTokens
    this.#finishReason = options.finishReason
    this.#cachedTokens = options.reportCachedTokens === true ? 0 : undefined
    const api = options.identity.api
    this.#toolCall = options.toolCall
    this.#typed =
      api === 'responses' || api === 'messages' ? typedEventWriter(options.identity, options.toolCall) : undefined
  }

  /** The prompt's prefix-cache hits, known at admission. */
  cached(tokens: number): void {
    if (this.#cachedTokens !== undefined) this.#cachedTokens = tokens
  }

  /** Sends the headers of a live stream at once, as vLLM does before the first token. */
  open(): void {
    if (this.#mode !== 'stream') return
    this.#res.writeHead(200, SSE_HEADERS)
    this.#res.flushHeaders()
  }

  /** `count` tokens of output: `reasoning` text (chat) then answer `text`; `last` ends the response. */
  tokens(text: string, count: number, last: boolean, reasoning = ''): void {
    if (this.#res.destroyed) return
    this.#emittedTokens += count
    if (this.#mode === 'json') {
      this.#buffer += text
      this.#reasoningBuffer += reasoning
      if (last) {
        const body = this.#typed === undefined ? completionBody : typedBody
        sendJson(
          this.#res,
          200,
          body(
            this.#identity,
            this.#buffer,
            this.#finishReason,
            this.#finalUsage(),
            this.#reasoningBuffer,
            this.#toolCall,
          ),
        )
      }
      return
    }
    const events =
      this.#typed === undefined ? this.#chunkEvents(text, last, reasoning) : this.#typedEvents(text, last, reasoning)
    if (this.#mode === 'stream') {
      if (last) this.#res.end(events)
      else this.#res.write(events)
      return
    }
    this.#buffer += events
    if (last) {
      this.#res.writeHead(200, { ...SSE_HEADERS, 'content-length': Buffer.byteLength(this.#buffer) })
      this.#res.end(this.#buffer)
    }
  }

  /** The events of one chunk of a Responses or Messages stream; usage only in the last. */
  #typedEvents(text: string, last: boolean, reasoning: string): string {
    const writer = this.#typed as TypedEventWriter
    let events = ''
    if (!this.#started) events += writer.open(usageOf(this.#promptTokens, 0, this.#cachedTokens))
    this.#started = true
    events += writer.chunk(text, reasoning, last)
    if (last) events += writer.close(this.#finalUsage(), this.#finishReason)
    return events
  }

  /** The chunks of one chunk of output of a chat or completions stream. */
  #chunkEvents(text: string, last: boolean, reasoning: string): string {
    let events = ''
    if (!this.#started && this.#identity.api === 'chat')
      events += sseEvent(roleChunk(this.#identity, this.#continuousUsage ? usageOf(this.#promptTokens, 0) : undefined))
    this.#started = true
    // As vLLM: a chunk's continuous usage is the running total, without the details of the final one.
    const usage = this.#continuousUsage ? usageOf(this.#promptTokens, this.#emittedTokens) : undefined
    const call = this.#toolCall
    if (call !== undefined && (text !== '' || (last && this.#args.opened))) {
      const first = !this.#args.opened
      const args = this.#args.piece(text, last)
      events += sseEvent(toolCallChunk(this.#identity, call, first, args, last, reasoning, usage))
    } else events += sseEvent(tokenChunk(this.#identity, text, last ? this.#finishReason : null, reasoning, usage))
    if (last) {
      if (this.#includeUsage) events += sseEvent(usageChunk(this.#identity, this.#finalUsage()))
      events += SSE_DONE
    }
    return events
  }

  #finalUsage(): TokenUsage {
    return usageOf(this.#promptTokens, this.#emittedTokens, this.#cachedTokens, this.#reasoningTokens)
  }

  /** Ends the response with a mid-stream fault. */
  fail(kind: 'drop-connection' | 'error-event'): void {
    if (this.#res.destroyed) return
    if (kind === 'drop-connection') {
      // destroySoon, not destroy: what was already sent reaches the client, then the connection
      // closes mid-response (the chunked body never terminates), so the fault point is exact.
      const socket = this.#res.socket
      if (socket) socket.destroySoon()
      else this.#res.destroy()
      return
    }
    const message = 'Simulated failure in the middle of the stream (vitest-llm-bench simulator, faults.errorEventRate).'
    if (this.#mode === 'json') {
      sendJson(this.#res, 500, errorBody(500, 'InternalServerError', message))
      return
    }
    const failure = this.#typed === undefined ? streamErrorEvent(message) : this.#typed.failure(message)
    const events = this.#buffer + failure
    if (this.#mode === 'burst')
      this.#res.writeHead(200, { ...SSE_HEADERS, 'content-length': Buffer.byteLength(events) })
    this.#res.end(events)
  }
}
