import { StringDecoder } from 'node:string_decoder'
import { createParser } from 'eventsource-parser'
import type { EventSourceMessage, EventSourceParser, ParseError } from 'eventsource-parser'
import type { Dispatcher } from 'undici'
import type { StreamDispatcher } from '../platform/runtime-http.ts'
import type { ApiKind, InputsApi } from '../contract/api-kinds.ts'
import type { RequestFailure, RequestRecord } from '../contract/request-record.ts'
import {
  cancelledFailure,
  errorCodeOf,
  httpFailure,
  incompleteFailure,
  malformedFailure,
  networkFailure,
  redactFailure,
  streamErrorFailure,
  timeoutFailure,
} from './failure.ts'
import { ContentChunkTemplate, MATCH_WITH_ANSWER, MATCH_WITHOUT_OUTPUT, NO_MATCH } from './content-chunk-template.ts'
import { currentReadTick } from './read-tick.ts'
import {
  choiceCarriesNonReasoningOutput,
  choiceCarriesOutput,
  choiceCarriesToolCall,
  completionChoiceCarriesOutput,
  completionChoiceCarriesToolCall,
  completionNonReasoningTextOf,
  completionTokensOf,
  finishReasonOf,
  firstChoice,
  nonReasoningTextOf,
  reasoningTokensOf,
  serverTimingsOf,
  streamErrorOf,
  usageTokens,
} from './sse-event.ts'
import type { ChunkLike } from './sse-event.ts'
import { emptyTypedReading, hasTypedEvents, readTypedBody, readTypedEvent } from './typed-event.ts'
import { readInputsReply } from './inputs-reply.ts'
import { ToolCallsMade } from './tool-calls-made.ts'
import { takesInputs } from '../contract/api-kinds.ts'
import type { TypedEventReading } from './typed-event.ts'

/** What a request needs from its client; one object shared by every request of a client. */
export interface RequestContext {
  dispatcher: StreamDispatcher
  /** Full URL of the endpoint, for messages. */
  url: string
  /** Limit from send to end of stream, in milliseconds. */
  timeoutMs: number
  /** Redacted from every failure message. */
  apiKey: string | undefined
  /** The API driven: how the stream's events are read. */
  api: ApiKind
}

/** Identity of one request in the run. */
export interface RequestMeta {
  index: number
  plannedAt?: number
  signal?: AbortSignal
}

type ResponseMode = 'pending' | 'sse' | 'json' | 'error'

/** An SSE line longer than this is refused rather than buffered without bound, in characters. */
const MAX_SSE_BUFFER_CHARS = 16 * 1024 * 1024
/** Bytes of a non-2xx body kept to quote the server's message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024
/** Content events that must share one network read for the stream to count as a burst. */
const BURST_MIN_EVENTS = 3
/** Longest delay a timer accepts, in milliseconds. */
const MAX_TIMER_MS = 2_147_483_647
/** Codes of a connection the server closed before answering: a kept-alive socket it had already dropped. */
const STALE_CONNECTION_CODES: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'])

function onRequestTimeout(request: StreamingRequest): void {
  request.expire()
}

/**
 * One streaming request as an undici dispatch handler: turns response bytes into a
 * {@link RequestRecord}. Settles exactly once; everything after that is ignored.
 */
export class StreamingRequest implements Dispatcher.DispatchHandler {
  readonly record: Promise<RequestRecord>
  private resolveRecord!: (record: RequestRecord) => void
  private readonly context: RequestContext
  private readonly options: Dispatcher.DispatchOptions
  private readonly meta: RequestMeta
  private readonly expectedInputTokens: number | undefined

  private sentAt = 0
  private headersAt: number | undefined = undefined
  private readonly chunkTimes: number[] = []
  /** First event with answer (non-reasoning) output. */
  private firstOutputAt: number | undefined = undefined
  /** Output events that carried reasoning only. */
  private reasoningChunks = 0
  /** True once an output event carried a tool call. */
  private toolCall = false
  /** The answer text so far; undefined unless the request asked to keep it (then nothing is decoded or joined). */
  private outputText: string | undefined
  /** The tool calls the reply made, collected only when the request asked to keep its output (a session's turn). */
  private readonly toolCallsMade: ToolCallsMade | undefined
  /**
   * Cumulative `usage.completion_tokens` at each output event (continuous usage), aligned with
   * `chunkTimes`; undefined before the first one, null once an output event came without it
   * (then none is kept: a stream without continuous usage allocates nothing here).
   */
  private chunkUsage: number[] | null | undefined = undefined
  private firstContentTick = -1
  private lastContentTick = -1
  private readTick = 0
  private usage: unknown = undefined
  private timings: unknown = undefined
  private finishReason: string | undefined = undefined
  private doneSeen = false
  private mode: ResponseMode = 'pending'
  private contentType = ''
  private status = 0
  private body: Uint8Array[] | undefined = undefined
  private bodyBytes = 0
  private parser: EventSourceParser | undefined = undefined
  private decoder: StringDecoder | undefined = undefined
  private template: ContentChunkTemplate | undefined = undefined
  private controller: Dispatcher.DispatchController | undefined = undefined
  private started = false
  private retried = false
  private settled = false
  private timer: ReturnType<typeof setTimeout> | undefined = undefined
  /** The Responses or Messages API: events read by type into this one object; undefined for chat and completions. */
  private readonly typed: TypedEventReading | undefined
  /** Texts an `embeddings` or `rerank` request carried; undefined for the generation APIs. */
  private readonly inputsSent: number | undefined
  /** Texts the reply answered (embeddings, rerank), set when its body was read. */
  private inputsAnswered: number | undefined = undefined

  /**
   * `keepOutputText`: collect the answer text into {@link RequestRecord.outputText} (`PreparedRequest.keepOutputText`).
   * `inputsSent`: the texts of an `embeddings` or `rerank` request (its reply is one JSON body that must answer each).
   */
  constructor(
    context: RequestContext,
    options: Dispatcher.DispatchOptions,
    meta: RequestMeta,
    expectedInputTokens: number | undefined,
    keepOutputText = false,
    inputsSent?: number,
  ) {
    this.context = context
    this.options = options
    this.meta = meta
    this.expectedInputTokens = expectedInputTokens
    this.outputText = keepOutputText ? '' : undefined
    this.toolCallsMade = keepOutputText ? new ToolCallsMade() : undefined
    this.typed = hasTypedEvents(context.api) ? emptyTypedReading() : undefined
    this.inputsSent = takesInputs(context.api) ? (inputsSent ?? 1) : undefined
    this.record = new Promise<RequestRecord>((resolve) => {
      this.resolveRecord = resolve
    })
  }

  /** Hands the request to the pool and starts its clock. */
  send(): Promise<RequestRecord> {
    const signal = this.meta.signal
    if (signal?.aborted) {
      this.sentAt = performance.now()
      this.settle(cancelledFailure(signal.reason), this.sentAt)
      return this.record
    }
    signal?.addEventListener('abort', this)
    // Timers overflow above 2^31-1 ms and would fire at once: clamp (about 24.8 days).
    this.timer = setTimeout(onRequestTimeout, Math.min(this.context.timeoutMs, MAX_TIMER_MS), this)
    this.dispatch()
    return this.record
  }

  private dispatch(): void {
    this.sentAt = performance.now()
    this.context.dispatcher.dispatch(this.options, this)
  }

  /** The caller's signal fired (this object is the abort listener). */
  handleEvent(): void {
    this.abort(cancelledFailure(this.meta.signal?.reason))
  }

  /** `requestTimeoutMs` passed since send. */
  expire(): void {
    this.timer = undefined
    this.abort(timeoutFailure(this.context.timeoutMs))
  }

  private abort(failure: RequestFailure): void {
    if (this.settled) return
    this.settle(failure, performance.now())
    // Before onRequestStart there is no controller yet: onRequestStart aborts on arrival.
    this.controller?.abort(new Error(failure.message))
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    this.started = true
    if (this.settled) controller.abort(new Error('request settled before it started'))
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.settled) return
    this.headersAt = performance.now()
    this.status = statusCode
    const type = headers['content-type']
    this.contentType = (Array.isArray(type) ? type.join(', ') : (type ?? '')).toLowerCase()
    if (statusCode < 200 || statusCode > 299) {
      this.mode = 'error'
      this.body = []
    } else if (this.inputsSent === undefined && this.contentType.includes('text/event-stream')) {
      this.mode = 'sse'
      this.template = new ContentChunkTemplate()
      // StringDecoder, not TextDecoder: half the cost per call, and calls happen per chunk.
      this.decoder = new StringDecoder('utf8')
      this.parser = createParser({
        onEvent: (event) => this.onEvent(event),
        onError: (error) => this.onParseError(error),
        maxBufferSize: MAX_SSE_BUFFER_CHARS,
      })
    } else {
      this.mode = 'json'
      this.body = []
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Uint8Array): void {
    if (this.settled) return
    if (this.mode === 'sse') {
      this.readTick = currentReadTick()
      const parser = this.parser as EventSourceParser
      // One streaming decoder per request: a UTF-8 character split across reads decodes whole.
      parser.feed((this.decoder as StringDecoder).write(chunk))
      return
    }
    const body = this.body as Uint8Array[]
    if (this.mode === 'error' && this.bodyBytes >= MAX_ERROR_BODY_BYTES) return
    body.push(chunk)
    this.bodyBytes += chunk.byteLength
  }

  onResponseEnd(): void {
    if (this.settled) return
    const now = performance.now()
    if (this.mode === 'sse') {
      const rest = (this.decoder as StringDecoder).end()
      if (rest.length > 0) (this.parser as EventSourceParser).feed(rest)
      if (this.settled) return
      if (!this.doneSeen) this.settle(incompleteFailure(), now)
      else this.settle(undefined, now)
    } else if (this.mode === 'json') {
      this.finishWholeBody(now)
    } else {
      this.settle(httpFailure(this.status, this.bodyText(), this.context.url), now)
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    if (this.settled) return
    const now = performance.now()
    if (this.headersAt === undefined) {
      const code = errorCodeOf(error)
      // A kept-alive socket the server had already closed (llama.cpp closes after each response
      // and still says keep-alive): the request never reached it, so send it once more.
      if (this.started && !this.retried && code !== undefined && STALE_CONNECTION_CODES.has(code)) {
        this.retried = true
        this.started = false
        this.controller = undefined
        this.dispatch()
        return
      }
      this.settle(networkFailure(this.context.url, error), now)
    } else if (this.mode === 'sse') {
      this.settle(incompleteFailure(error), now)
    } else {
      this.settle(networkFailure(this.context.url, error), now)
    }
  }

  private onParseError(error: ParseError): void {
    if (error.type === 'max-buffer-size-exceeded')
      this.fail(malformedFailure(error.message, 'an SSE line over 16 MiB'), performance.now())
  }

  /** One parsed SSE event; its timestamp is taken here, when the event is handed to us. */
  private onEvent(event: EventSourceMessage): void {
    const now = performance.now()
    if (this.settled) return
    const data = event.data
    if (event.event === 'error') {
      this.fail(streamErrorFailure(streamErrorOfData(data)), now)
      return
    }
    if (this.typed !== undefined) {
      this.onTypedEvent(event.event, data, now)
      return
    }
    if (data === '[DONE]') {
      this.doneSeen = true
      return
    }
    if (data.length === 0) return
    const template = this.template as ContentChunkTemplate
    const matched = template.match(data)
    if (matched !== NO_MATCH) {
      // The same JSON as the learned chunk but for its output string: same fields, no parse.
      const learned = template.learnedChunk as ChunkLike
      if (matched !== MATCH_WITHOUT_OUTPUT) {
        const answer = matched === MATCH_WITH_ANSWER
        this.outputEvent(now, answer, learned.usage)
        if (answer && this.outputText !== undefined) this.outputText += template.answerText(data)
      }
      this.readFields(learned)
      return
    }
    let chunk: unknown
    try {
      chunk = JSON.parse(data)
    } catch {
      this.fail(malformedFailure(data), now)
      return
    }
    if (typeof chunk !== 'object' || chunk === null) {
      this.fail(malformedFailure(data), now)
      return
    }
    const c = chunk as ChunkLike
    const streamError = streamErrorOf(c)
    if (streamError !== undefined) {
      this.fail(streamErrorFailure(streamError), now)
      return
    }
    const choice = firstChoice(c)
    if (choiceCarriesOutput(choice)) {
      const toolCall = choiceCarriesToolCall(choice)
      if (toolCall) {
        this.toolCall = true
        this.toolCallsMade?.chatDelta((choice as { delta?: unknown }).delta)
      }
      const answer = choiceCarriesNonReasoningOutput(choice)
      this.outputEvent(now, answer, c.usage)
      if (answer && this.outputText !== undefined) this.outputText += nonReasoningTextOf(choice)
      // A tool-call chunk has no output string to learn; learning it would only drop the content template.
      if (!toolCall) template.learn(data, c)
    }
    this.readFields(c)
  }

  /**
   * One event of a Responses or Messages stream (typed-event.ts). Every event is parsed: these
   * streams carry their type inside the data, and the repeated-chunk fast path is chat's. The
   * usage they report is kept in the Chat Completions shape the record is built from.
   */
  private onTypedEvent(eventName: string | undefined, data: string, now: number): void {
    // A gateway may add chat's `[DONE]`; these streams end with their own last event.
    if (data.length === 0 || data === '[DONE]') return
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch {
      this.fail(malformedFailure(data), now)
      return
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      this.fail(malformedFailure(data), now)
      return
    }
    // llama.cpp reports a failure inside a Responses stream as chat does: `data: {"error": ...}`.
    const streamError = streamErrorOf(parsed as ChunkLike)
    if (streamError !== undefined) {
      this.fail(streamErrorFailure(streamError), now)
      return
    }
    this.toolCallsMade?.typedEvent(this.context.api, parsed as Record<string, unknown>)
    const reading = this.typed as TypedEventReading
    readTypedEvent(this.context.api, eventName, parsed as Record<string, unknown>, reading)
    if (reading.error !== undefined) {
      this.fail(streamErrorFailure(reading.error), now)
      return
    }
    if (reading.output !== 'none') {
      if (reading.toolCall) this.toolCall = true
      const answer = reading.output === 'answer'
      this.outputEvent(now, answer, undefined)
      if (answer && this.outputText !== undefined) this.outputText += reading.text
    }
    this.keepTypedFields(reading)
    if (reading.done) this.doneSeen = true
  }

  /** The usage, finish reason and timings an event of a Responses or Messages stream reported, in the chat shape. */
  private keepTypedFields(reading: TypedEventReading): void {
    if (reading.finishReason !== undefined) this.finishReason = reading.finishReason
    if (reading.timings !== undefined && reading.timings !== null) this.timings = reading.timings
    if (reading.inputTokens === undefined && reading.outputTokens === undefined) return
    const usage = (this.usage ?? {}) as {
      prompt_tokens?: number
      completion_tokens?: number
      completion_tokens_details?: { reasoning_tokens: number }
    }
    if (reading.inputTokens !== undefined) usage.prompt_tokens = reading.inputTokens
    if (reading.outputTokens !== undefined) usage.completion_tokens = reading.outputTokens
    if (reading.reasoningTokens !== undefined)
      usage.completion_tokens_details = { reasoning_tokens: reading.reasoningTokens }
    this.usage = usage
  }

  /** An event that carries output (`answer`: some of it is not reasoning), with the chunk's `usage`. */
  private outputEvent(now: number, answer: boolean, usage: unknown): void {
    this.chunkTimes.push(now)
    if (!answer) this.reasoningChunks++
    else if (this.firstOutputAt === undefined) this.firstOutputAt = now
    if (this.firstContentTick < 0) this.firstContentTick = this.readTick
    this.lastContentTick = this.readTick
    if (this.chunkUsage === null) return
    const tokens = completionTokensOf(usage)
    if (tokens === undefined) this.chunkUsage = null
    else (this.chunkUsage ??= []).push(tokens)
  }

  private readFields(c: ChunkLike): void {
    if (c.choices !== undefined) this.finishReason = finishReasonOf(c, this.finishReason)
    if (c.usage !== undefined && c.usage !== null) this.usage = c.usage
    if (c.timings !== undefined && c.timings !== null) this.timings = c.timings
  }

  /** Settles with a failure and drops the connection (the rest of the response is of no use). */
  private fail(failure: RequestFailure, at: number): void {
    this.settle(failure, at)
    this.controller?.abort(new Error(failure.message))
  }

  private bodyText(): string {
    const parts = this.body ?? []
    let total = 0
    for (const part of parts) total += part.byteLength
    const bytes = new Uint8Array(total)
    let offset = 0
    for (const part of parts) {
      bytes.set(part, offset)
      offset += part.byteLength
    }
    return new TextDecoder().decode(bytes)
  }

  /** A 2xx response that is not an event stream: a buffering layer returned the whole completion. */
  private finishWholeBody(now: number): void {
    const text = this.bodyText()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    if (typeof parsed !== 'object' || parsed === null) {
      this.settle(malformedFailure(text, `the ${this.contentType || 'untyped'} response (not text/event-stream)`), now)
      return
    }
    const c = parsed as ChunkLike
    const streamError = streamErrorOf(c)
    if (streamError !== undefined) {
      this.settle(streamErrorFailure(streamError), now)
      return
    }
    if (this.inputsSent !== undefined) {
      this.finishInputs(parsed, now)
      return
    }
    if (this.typed !== undefined) {
      const whole = readTypedBody(this.context.api, parsed as Record<string, unknown>)
      this.toolCallsMade?.typedBody(this.context.api, parsed as Record<string, unknown>)
      this.keepTypedFields(whole.reading)
      if (this.outputText !== undefined) this.outputText = whole.text
      this.toolCall = whole.toolCall
      this.settle(undefined, now, whole.carriesOutput ? 1 : 0)
      return
    }
    this.usage = c.usage
    this.timings = c.timings
    this.finishReason = finishReasonOf(c, undefined)
    const choice = firstChoice(c)
    if (this.outputText !== undefined) this.outputText = completionNonReasoningTextOf(choice)
    this.toolCallsMade?.chatDelta((choice as { message?: unknown } | undefined)?.message)
    this.toolCall = completionChoiceCarriesToolCall(choice)
    const carries = completionChoiceCarriesOutput(choice)
    this.settle(undefined, now, carries ? 1 : 0)
  }

  /** The body of an `embeddings` or `rerank` reply: every text sent must be answered. */
  private finishInputs(body: unknown, now: number): void {
    const api = this.context.api as InputsApi
    const reply = readInputsReply(api, body, this.inputsSent as number)
    if ('kind' in reply) {
      this.settle(reply, now)
      return
    }
    this.inputsAnswered = reply.answered
    // Kept in the chat shape the record is built from: no output tokens.
    if (reply.inputTokens !== undefined) this.usage = { prompt_tokens: reply.inputTokens, completion_tokens: 0 }
    this.settle(undefined, now, 0)
  }

  private settle(failure: RequestFailure | undefined, at: number, wholeBodyChunks?: number): void {
    if (this.settled) return
    this.settled = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.meta.signal?.removeEventListener('abort', this)
    this.parser = undefined
    this.decoder = undefined
    this.template = undefined
    this.body = undefined

    const wholeBody = wholeBodyChunks !== undefined
    const chunkTimes = this.chunkTimes
    const contentEvents = wholeBody ? wholeBodyChunks : chunkTimes.length
    const tokens = usageTokens(this.usage)
    const burst = contentEvents >= BURST_MIN_EVENTS && this.firstContentTick === this.lastContentTick
    const lastContentAt = chunkTimes.length > 0 ? (chunkTimes[chunkTimes.length - 1] as number) : undefined

    const record: RequestRecord = {
      index: this.meta.index,
      plannedAt: this.meta.plannedAt,
      sentAt: this.sentAt,
      headersAt: this.headersAt,
      firstTokenAt: chunkTimes[0],
      endAt: failure === undefined && lastContentAt !== undefined ? lastContentAt : at,
      chunkTimes,
      outputTokens: tokens?.completion ?? contentEvents,
      inputTokens: tokens?.prompt ?? this.expectedInputTokens ?? 0,
      usageReported: tokens !== undefined,
      streamed: !wholeBody,
      readInOneBurst: burst,
      ok: failure === undefined,
    }
    if (failure !== undefined) record.error = redactFailure(failure, this.context.apiKey)
    if (this.inputsAnswered !== undefined) record.inputs = this.inputsAnswered
    if (this.finishReason !== undefined) record.finishReason = this.finishReason
    if (this.firstOutputAt !== undefined) record.firstOutputAt = this.firstOutputAt
    if (this.reasoningChunks > 0) record.reasoningChunks = this.reasoningChunks
    if (this.toolCall) record.toolCall = true
    if (this.outputText !== undefined) record.outputText = this.outputText
    const toolCalls = this.toolCallsMade?.list()
    if (toolCalls !== undefined) record.toolCalls = toolCalls
    const reasoningTokens = reasoningTokensOf(this.usage)
    if (reasoningTokens !== undefined) record.reasoningTokens = reasoningTokens
    const chunkTokens = chunkTokensOf(this.chunkUsage, chunkTimes.length)
    if (chunkTokens !== undefined) record.chunkTokens = chunkTokens
    const serverTimings = serverTimingsOf(this.timings)
    if (serverTimings !== undefined) record.serverTimings = serverTimings
    this.resolveRecord(record)
  }
}

/**
 * Tokens of each output event from the cumulative counts at each (continuous usage): the
 * difference to the previous event's count (the first event's count is its own). Tokens that
 * produced no text (held back by the detokenizer, a stop token) thereby count with the next output
 * event, as the server reports them. Undefined when some output event had no count or a count
 * went down: then nothing is exact.
 */
function chunkTokensOf(cumulative: number[] | null | undefined, events: number): number[] | undefined {
  if (cumulative === null || cumulative === undefined || cumulative.length !== events || events === 0) return undefined
  const tokens: number[] = []
  let previous = 0
  for (let i = 0; i < events; i++) {
    const count = cumulative[i] as number
    if (count < previous) return undefined
    tokens.push(count - previous)
    previous = count
  }
  return tokens
}

function streamErrorOfData(data: string): string {
  try {
    const parsed: unknown = JSON.parse(data)
    if (typeof parsed === 'object' && parsed !== null) {
      const message = streamErrorOf(parsed as ChunkLike) ?? (parsed as { message?: unknown }).message
      if (typeof message === 'string') return message
    }
  } catch {
    // Plain-text error data: quoted as is.
  }
  return data.length > 0 ? data : 'event: error without data'
}
