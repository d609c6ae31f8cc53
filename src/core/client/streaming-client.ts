import { OptionsError } from '../contract/errors.ts'
import { createStreamDispatcher } from '../platform/runtime-http.ts'
import type { StreamDispatcher } from '../platform/runtime-http.ts'
import type { HttpTransportName } from '../platform/runtime.ts'
import type { PreparedRequest, RequestRecord } from '../contract/request-record.ts'
import type { RequestShape } from '../contract/workload-options.ts'
import { replyCheckOf, type ReplyCheck } from '../contract/reply-schema.ts'
import { buildRequestBody, endpointPath } from './request-body.ts'
import { takesInputs } from '../contract/api-kinds.ts'
import { StreamingRequest } from './streaming-request.ts'
import type { RequestContext, RequestMeta } from './streaming-request.ts'
import type { ResolvedTarget } from './target.ts'

/** Options of {@link StreamingClient}. */
export interface StreamingClientOptions {
  /** Most requests in flight at once (the load's concurrency); the pool opens up to this many connections. */
  connections: number
  /** How to speak HTTP. Default: the runtime's (undici on Node and Deno, fetch on Bun, whose undici is a stub); see `defaultHttpTransport`. */
  transport?: HttpTransportName
  /** What every request carries besides its conversation (the workload's tools). */
  shape?: RequestShape
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return true
  return false
}

/**
 * Sends streaming requests to one OpenAI-compatible server over an undici connection pool
 * (one request per connection at a time, no pipelining; the runtime's fetch where undici cannot
 * dispatch) and turns each into a {@link RequestRecord}.
 */
/** The `anthropic-version` sent to a Messages API server, unless `target.headers` gives one. */
const ANTHROPIC_VERSION = '2023-06-01'

export class StreamingClient {
  private readonly target: ResolvedTarget
  private readonly pool: StreamDispatcher
  private readonly context: RequestContext
  private readonly path: string
  private readonly headers: Record<string, string>
  private readonly shape: RequestShape | undefined
  /** Checks each reply against the workload's reply format; undefined when none was asked. */
  private readonly checkReply: ReplyCheck | undefined

  constructor(target: ResolvedTarget, options: StreamingClientOptions) {
    const connections = Math.floor(options.connections)
    if (!(connections >= 1) || !Number.isFinite(connections)) {
      throw new OptionsError(
        'load.concurrency',
        `${String(options.connections)} connections cannot carry a request`,
        'Give at least 1.',
      )
    }
    this.target = target
    this.shape = options.shape
    const format = options.shape?.responseFormat
    this.checkReply = format === undefined ? undefined : replyCheckOf(format)
    const root = new URL(target.baseUrl)
    this.pool = createStreamDispatcher(root.origin, { connections, transport: options.transport })
    this.path = root.pathname.replace(/\/+$/, '') + endpointPath(target.api)
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      // Embeddings and rerank answer in one JSON body.
      accept: takesInputs(target.api) ? 'application/json' : 'text/event-stream',
      ...target.headers,
    }
    if (target.apiKey !== undefined && !hasHeader(target.headers, 'authorization'))
      headers.authorization = `Bearer ${target.apiKey}`
    // Anthropic's own header and version, which servers of its Messages API may require.
    if (target.api === 'messages') {
      if (target.apiKey !== undefined && !hasHeader(target.headers, 'x-api-key')) headers['x-api-key'] = target.apiKey
      if (!hasHeader(target.headers, 'anthropic-version')) headers['anthropic-version'] = ANTHROPIC_VERSION
    }
    this.headers = headers
    this.context = {
      dispatcher: this.pool,
      url: root.origin + this.path,
      timeoutMs: target.requestTimeoutMs,
      apiKey: target.apiKey,
      api: target.api,
    }
  }

  /**
   * Sends one request and resolves with its record when the stream ends, fails, times out
   * (`requestTimeoutMs` after send) or `meta.signal` aborts. Never rejects for anything the
   * server or the network does: every such failure is a typed `error` inside the record.
   * Rejects only with {@link OptionsError} when the request body cannot be serialised.
   */
  send(request: PreparedRequest, meta: RequestMeta): Promise<RequestRecord> {
    let body: string
    try {
      body = JSON.stringify(buildRequestBody(this.target, request, this.shape))
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error)
      return Promise.reject(
        new OptionsError(
          'workload',
          `request ${meta.index} cannot be sent as JSON (${problem})`,
          'Remove values JSON cannot hold (BigInt, cycles) from extraBody.',
        ),
      )
    }
    const keepText = request.keepOutputText === true
    const checkReply = this.checkReply
    const handler = new StreamingRequest(
      this.context,
      { method: 'POST', path: this.path, headers: this.headers, body },
      meta,
      request.expectedInputTokens,
      keepText || checkReply !== undefined,
      request.inputs?.length,
    )
    if (checkReply === undefined) return handler.send()
    // Structured output: the reply's text is checked, then dropped unless the workload keeps it.
    return handler.send().then((record) => {
      // A reply that called a tool answered with the call, not with text in the format.
      if (record.ok && record.toolCall !== true) record.structuredOutput = checkReply(record.outputText ?? '')
      if (!keepText) {
        delete record.outputText
        delete record.toolCalls
      }
      return record
    })
  }

  /** Waits for requests in flight, then closes every connection. */
  close(): Promise<void> {
    return this.pool.close()
  }
}
