import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ApiKind } from '../core/contract/api-kinds.ts'
import { drawFault, faultChunkIndex } from './faults.ts'
import { resolveSpeedFactor, resolveSimulatorOptions } from './options.ts'
import type { ResolvedSimulatorOptions, SimulatorOptions } from './options.ts'
import { planOutput } from './output-plan.ts'
import { errorBody, modelList } from './protocol.ts'
import type { ResponseIdentity } from './protocol.ts'
import { createRandom, deriveSeed, type Random } from '../core/platform/random.ts'
import { hashPromptBlocks, PrefixCache } from './prefix-cache.ts'
import { PROMETHEUS_CONTENT_TYPE } from './prometheus-text.ts'
import { parseCompletionRequest } from './request.ts'
import { parseInputsRequest } from './inputs-request.ts'
import type { InputsRequest } from './inputs-request.ts'
import { inputsReplyBody } from './inputs-reply.ts'
import { takesInputs } from '../core/contract/api-kinds.ts'
import type { CompletionRequest, RequestLimits } from './request.ts'
import { CompletionResponder, sendJson } from './responder.ts'
import type { ResponseMode } from './responder.ts'
import { BatchScheduler } from './scheduler.ts'
import type { BatchSequence } from './scheduler.ts'
import { SimulatorServerMetrics } from './server-metrics.ts'
import { createTokenTextSource } from './tokens.ts'
import type { RunningSimulator, SimulatorScheduleEntry } from './types.ts'
import { toolVersion } from '../core/telemetry/tool-version.ts'
import { SIMULATOR_SERVER_NAME } from '../core/contract/simulator-name.ts'

/** This package's version (see {@link toolVersion}); `0.0.0` when it cannot be read. */
function packageVersion(): string {
  const version = toolVersion()
  return version === 'unknown' ? '0.0.0' : version
}

/** Request bodies above this size get a 413. */
const MAX_BODY_BYTES = 64 * 1024 * 1024

const ROUTES: Record<string, { method: 'GET' | 'POST'; api?: ApiKind }> = {
  '/health': { method: 'GET' },
  '/version': { method: 'GET' },
  '/metrics': { method: 'GET' },
  '/v1/models': { method: 'GET' },
  '/v1/chat/completions': { method: 'POST', api: 'chat' },
  '/v1/completions': { method: 'POST', api: 'completions' },
  '/v1/responses': { method: 'POST', api: 'responses' },
  '/v1/messages': { method: 'POST', api: 'messages' },
  '/v1/embeddings': { method: 'POST', api: 'embeddings' },
  '/v1/rerank': { method: 'POST', api: 'rerank' },
}

/** The prefix of a response id per API, as vLLM makes them. */
const ID_PREFIXES: Record<ApiKind, string> = {
  chat: 'chatcmpl',
  completions: 'cmpl',
  responses: 'resp',
  messages: 'msg',
  embeddings: 'embd',
  rerank: 'rerank',
}

function sendError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  param: string | null = null,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, errorBody(status, type, message, param), headers)
}

/** Notes a fault in a request's schedule entry; `at` also ends it (a stall does not). */
function markFault(entry: SimulatorScheduleEntry | undefined, fault: string, at?: number): void {
  if (entry === undefined) return
  entry.fault = fault
  if (at !== undefined) entry.finishedAt = at
}

/** The HTTP error a request drew at arrival (`faults.httpErrorRate`), as vLLM sends them. */
function sendHttpFault(res: ServerResponse, entry: SimulatorScheduleEntry | undefined, status: 429 | 500): void {
  markFault(entry, `http-${status}`, performance.now())
  if (status === 429)
    sendError(res, 429, 'RateLimitError', 'Too many requests (simulated by faults.httpErrorRate). Retry later.', null, {
      'retry-after': '1',
    })
  else sendError(res, 500, 'InternalServerError', 'Internal server error (simulated by faults.httpErrorRate).')
}

function readBody(req: IncomingMessage): Promise<{ ok: true; text: string } | { ok: false; tooLarge: boolean }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = []
    let size = 0
    let tooLarge = false
    req.on('data', (part: Buffer) => {
      size += part.length
      if (size > MAX_BODY_BYTES) tooLarge = true
      else parts.push(part)
    })
    req.on('end', () =>
      resolve(tooLarge ? { ok: false, tooLarge: true } : { ok: true, text: Buffer.concat(parts).toString('utf8') }),
    )
    req.on('error', () => resolve({ ok: false, tooLarge: false }))
  })
}

/** Request ids as vLLM makes them (prefix plus 32 hex digits), reproducible from the seed. */
function createIdSource(seed: number): (api: ApiKind) => string {
  const random = createRandom(deriveSeed(seed, 'ids'))
  let counter = 0
  const hex8 = () => random.integer(0x100000000).toString(16).padStart(8, '0')
  return (api) => `${ID_PREFIXES[api]}-${(counter++).toString(16).padStart(8, '0')}${hex8()}${hex8()}${hex8()}`
}

class Simulator {
  readonly config: ResolvedSimulatorOptions
  readonly schedule: SimulatorScheduleEntry[] = []
  readonly scheduler: BatchScheduler
  readonly metrics: SimulatorServerMetrics
  readonly #limits: RequestLimits
  readonly #faultRandom: Random
  readonly #nextId: (api: ApiKind) => string
  readonly #created = Math.floor(Date.now() / 1000)

  constructor(config: ResolvedSimulatorOptions) {
    this.config = config
    const capacityBlocks = Math.floor(config.kvCacheTokens / config.blockTokens)
    this.scheduler = new BatchScheduler({ ...config, stallMs: config.faults.stallMs }, undefined, {
      blockTokens: config.blockTokens,
      capacityBlocks,
      prefixCache: config.prefixCaching ? new PrefixCache(capacityBlocks, config.blockTokens) : undefined,
    })
    this.metrics = new SimulatorServerMetrics({
      model: config.model,
      tokensPerChunk: config.tokensPerChunk,
      prefixCaching: config.prefixCaching,
      gauges: () => {
        const { running, queued } = this.scheduler.stats()
        return { running, waiting: queued, kvCacheUsage: this.scheduler.kvCacheUsage() }
      },
    })
    this.#limits = {
      model: config.model,
      defaultMaxTokens: config.defaultMaxTokens,
      maxModelLen: config.maxModelLen,
      keepPromptTokens: config.prefixCaching,
    }
    this.#faultRandom = createRandom(deriveSeed(config.seed, 'faults'))
    this.#nextId = createIdSource(config.seed)
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const arrivedAt = performance.now()
    res.setHeader('server', SIMULATOR_SERVER_NAME)
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const route = ROUTES[path]
    if (!route) {
      req.resume()
      sendError(
        res,
        404,
        'NotFoundError',
        `Not Found: ${req.method ?? 'GET'} ${path}. The simulator serves ${Object.keys(ROUTES).join(', ')}.`,
      )
      return
    }
    if (req.method !== route.method && !(route.method === 'GET' && req.method === 'HEAD')) {
      req.resume()
      sendError(res, 405, 'MethodNotAllowed', `Method Not Allowed: use ${route.method} ${path}.`, null, {
        allow: route.method,
      })
      return
    }
    if (path.startsWith('/v1/') && !this.#authorized(req)) {
      req.resume()
      sendError(
        res,
        401,
        'AuthenticationError',
        'Unauthorized: send the header `Authorization: Bearer <api key>` with the key the simulator was started with.',
      )
      return
    }
    if (path === '/health') {
      res.writeHead(200, { 'content-length': 0 })
      res.end()
    } else if (path === '/metrics') {
      // Served without the API key, as vLLM does: scrapers rarely carry one.
      const text = this.metrics.render()
      res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) })
      res.end(text)
    } else if (path === '/version') {
      sendJson(res, 200, { version: this.config.version ?? `sim-${packageVersion()}` })
    } else if (path === '/v1/models') {
      sendJson(res, 200, modelList(this.config.model, this.config.maxModelLen, this.#created))
    } else if (route.api) {
      void this.#completion(route.api, req, res, arrivedAt)
    }
  }

  #authorized(req: IncomingMessage): boolean {
    if (this.config.apiKey === undefined) return true
    return req.headers.authorization === `Bearer ${this.config.apiKey}`
  }

  async #completion(api: ApiKind, req: IncomingMessage, res: ServerResponse, arrivedAt: number): Promise<void> {
    const body = await readBody(req)
    if (!body.ok) {
      if (body.tooLarge) sendError(res, 413, 'BadRequestError', `Request body larger than ${MAX_BODY_BYTES} bytes.`)
      else res.destroy()
      return
    }
    let json: unknown
    try {
      json = JSON.parse(body.text)
    } catch (error) {
      sendError(res, 400, 'BadRequestError', `Invalid JSON in the request body: ${(error as Error).message}`)
      return
    }
    if (takesInputs(api)) {
      const inputs = parseInputsRequest(api, json, this.#limits)
      if (inputs.ok) this.#runInputs(inputs.request, res, arrivedAt)
      else sendError(res, inputs.problem.status, inputs.problem.type, inputs.problem.message, inputs.problem.param)
      return
    }
    const parsed = parseCompletionRequest(api, json, this.#limits)
    if (!parsed.ok) {
      const { status, type, message, param } = parsed.problem
      sendError(res, status, type, message, param ?? null)
      return
    }
    this.#run(parsed.request, res, arrivedAt)
  }

  /** The schedule entry of a request (`recordSchedule`), added to the log; undefined when none is kept. */
  #logEntry(
    id: string,
    arrivedAt: number,
    promptTokens: number,
    completionTokens: number,
  ): SimulatorScheduleEntry | undefined {
    if (!this.config.recordSchedule) return undefined
    const entry: SimulatorScheduleEntry = {
      id,
      arrivedAt,
      tokenTimes: [],
      chunkTimes: [],
      promptTokens,
      completionTokens,
    }
    this.schedule.push(entry)
    return entry
  }

  /** A response the client cut short frees its slot ('close' also follows a normal end, which frees nothing). */
  #cancelWhenCut(res: ServerResponse, sequence: BatchSequence, entry: SimulatorScheduleEntry | undefined): void {
    res.on('close', () => {
      if (res.writableFinished || entry?.finishedAt !== undefined) return
      this.scheduler.cancel(sequence)
      if (entry) {
        entry.fault ??= 'client-disconnect'
        entry.finishedAt = performance.now()
      }
    })
  }

  /**
   * An embeddings or rerank request: one forward pass over its tokens, scheduled as a sequence with
   * no output (its prefill, then the step it ends in), answered in one JSON body. Faults as for a
   * completion: an HTTP error at arrival; a mid-stream fault drops the connection or answers 500.
   */
  #runInputs(request: InputsRequest, res: ServerResponse, arrivedAt: number): void {
    const config = this.config
    const fault = drawFault(this.#faultRandom, config.faults)
    const id = this.#nextId(request.api)
    const entry = this.#logEntry(id, arrivedAt, request.promptTokens, 0)
    if (fault?.kind === 'http-error') {
      sendHttpFault(res, entry, fault.status)
      return
    }
    const tracker = this.metrics.track(arrivedAt, request.promptTokens, 'stop')
    const sequence: BatchSequence = {
      promptTokens: request.promptTokens,
      completionTokens: 0,
      fault: fault?.kind,
      faultAtChunk: 0,
      sink: {
        admitted: (at, cachedTokens) => {
          if (entry) entry.prefillStartedAt = at
          tracker.admitted(at, cachedTokens)
        },
        emit: (count, last, at) => {
          tracker.emitted(count, last, at)
          if (entry) entry.finishedAt = entry.prefillEndedAt = at
          sendJson(res, 200, inputsReplyBody(request, id, config.model, config.seed))
        },
        stalled: () => markFault(entry, 'stall'),
        failed: (kind, at) => {
          markFault(entry, kind, at)
          if (kind === 'drop-connection') res.destroy()
          else sendError(res, 500, 'InternalServerError', 'Internal server error (simulated by faults).')
        },
      },
    }
    this.#cancelWhenCut(res, sequence, entry)
    this.scheduler.submit(sequence)
  }

  #run(request: CompletionRequest, res: ServerResponse, arrivedAt: number): void {
    const config = this.config
    const plan = planOutput(request, config.seed)
    const fault = drawFault(this.#faultRandom, config.faults)
    const identity: ResponseIdentity = {
      api: request.api,
      id: this.#nextId(request.api),
      created: Math.floor(Date.now() / 1000),
      model: config.model,
    }
    const entry = this.#logEntry(identity.id, arrivedAt, request.promptTokens, plan.completionTokens)
    if (fault?.kind === 'http-error') {
      sendHttpFault(res, entry, fault.status)
      return
    }

    const mode: ResponseMode =
      config.bufferMode === 'json' || !request.stream ? 'json' : config.bufferMode === 'burst' ? 'burst' : 'stream'
    // The first output tokens are the reply's reasoning (not for completions: vLLM's have no reasoning parser).
    const reasoningTokens = request.api === 'completions' ? 0 : Math.min(config.reasoningTokens, plan.completionTokens)
    let emittedTokens = 0
    const responder = new CompletionResponder({
      res,
      identity,
      mode,
      includeUsage: request.includeUsage,
      continuousUsage: request.continuousUsage,
      ...(reasoningTokens > 0 ? { reasoningTokens } : {}),
      promptTokens: request.promptTokens,
      finishReason: plan.finishReason,
      reportCachedTokens: config.prefixCaching,
      ...(request.toolName === undefined ? {} : { toolCall: { name: request.toolName, id: `call_${identity.id}` } }),
    })
    const tracker = this.metrics.track(arrivedAt, request.promptTokens, plan.finishReason)
    const nextToken = createTokenTextSource(plan.textSeed)
    const midStreamFault = fault?.kind
    const chunks = Math.ceil(plan.completionTokens / config.tokensPerChunk)
    const sequence: BatchSequence = {
      promptTokens: request.promptTokens,
      completionTokens: plan.completionTokens,
      fault: midStreamFault,
      faultAtChunk: faultChunkIndex(chunks),
      ...(request.promptTokenTexts && config.prefixCaching
        ? { blockHashes: hashPromptBlocks(request.promptTokenTexts, config.blockTokens) }
        : {}),
      sink: {
        admitted: (at, cachedTokens) => {
          if (entry) {
            entry.prefillStartedAt = at
            entry.cachedPromptTokens = cachedTokens
          }
          responder.cached(cachedTokens)
          tracker.admitted(at, cachedTokens)
        },
        emit: (count, last, at) => {
          tracker.emitted(count, last, at)
          let reasoning = ''
          let text = ''
          for (let i = 0; i < count; i++) {
            if (emittedTokens++ < reasoningTokens) reasoning += nextToken()
            else text += nextToken()
          }
          if (entry) {
            if (entry.firstTokenAt === undefined) entry.firstTokenAt = entry.prefillEndedAt = at
            entry.chunkTimes.push(at)
            for (let i = 0; i < count; i++) entry.tokenTimes.push(at)
            if (last) entry.finishedAt = at
          }
          responder.tokens(text, count, last, reasoning)
        },
        stalled: () => markFault(entry, 'stall'),
        failed: (kind, at) => {
          markFault(entry, kind, at)
          responder.fail(kind)
        },
      },
    }
    this.#cancelWhenCut(res, sequence, entry)
    responder.open()
    this.scheduler.submit(sequence)
  }
}

/** Starts the simulator; resolves once it listens. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  return startResolvedSimulator(resolveSimulatorOptions(options))
}

/** Starts the simulator from options resolved once, at a bench's collection ({@link resolveSimulatorOptions}). */
export async function startResolvedSimulator(config: ResolvedSimulatorOptions): Promise<RunningSimulator> {
  const simulator = new Simulator(config)
  const server = createServer((req, res) => simulator.handle(req, res))
  // Clients keep pooled connections open; a short timeout would cut them between benchmark phases.
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host
  let closing: Promise<void> | undefined
  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    schedule: simulator.schedule,
    stats: () => simulator.scheduler.stats(),
    metrics: () => simulator.metrics.snapshot(),
    setSpeedFactor: (speedFactor) => simulator.scheduler.setSpeedFactor(resolveSpeedFactor(speedFactor)),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        simulator.scheduler.close()
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closing
    },
  }
}
