import type { ApiKind } from '../core/contract/types.ts'
import { countSimulatorTokens, splitSimulatorTokens } from './tokens.ts'
import { isRecord } from '../core/contract/is-record.ts'

/** A validated completion request, reduced to what the simulator needs. */
export interface CompletionRequest {
  api: ApiKind
  /** Model named in the body, when it named one. */
  model: string | undefined
  stream: boolean
  /** `stream_options.include_usage`. */
  includeUsage: boolean
  /** `stream_options.continuous_usage_stats` with `include_usage` (as vLLM requires both): usage in every chunk. */
  continuousUsage: boolean
  promptTokens: number
  /**
   * The prompt as `promptTokens` token strings, for prefix-cache block hashes; present only when
   * {@link RequestLimits.keepPromptTokens} is set. Chat messages are concatenated in order, and
   * the first token of each message carries a role marker (so the same text under another role
   * hashes differently) that is not a token of its own. Token-id prompts give one entry per id.
   */
  promptTokenTexts: readonly string[] | undefined
  /** `max_tokens` (or `max_completion_tokens`), else the simulator's default. */
  maxTokens: number
  /** `min_tokens`, 0 when absent. */
  minTokens: number
  ignoreEos: boolean
  /** Canonical text of the prompt: seeds the output length and text. */
  contentKey: string
}

/** Why a request is refused, in the terms of the OpenAI error body. */
export interface RequestProblem {
  status: number
  /** Error class name as vLLM reports it, e.g. `BadRequestError`. */
  type: string
  message: string
  /** The offending body field, when one is at fault. */
  param?: string
}

export type ParsedCompletionRequest = { ok: true; request: CompletionRequest } | { ok: false; problem: RequestProblem }

/** What the served model allows. */
export interface RequestLimits {
  model: string
  defaultMaxTokens: number
  maxModelLen: number
  /** Keep the prompt's token strings ({@link CompletionRequest.promptTokenTexts}); off, a request allocates nothing per token. */
  keepPromptTokens?: boolean
}

/**
 * Marks a message start inside a token string. Whitespace never occurs inside a token (tokens
 * are whitespace-split), so a marked token cannot equal an unmarked one.
 */
function roleMarker(role: string): string {
  return `\n${role}\n`
}

/** Token-id prompts: an id never collides with a word, which has no whitespace. */
function tokenIdText(id: number): string {
  return `\t${id}`
}

function badRequest(message: string, param?: string): { ok: false; problem: RequestProblem } {
  return {
    ok: false,
    problem: { status: 400, type: 'BadRequestError', message, ...(param === undefined ? {} : { param }) },
  }
}

/** A prompt's token count, and its token strings when asked for. */
interface PromptTokens {
  count: number
  texts: string[] | undefined
}

/** Counts chat message text; non-text parts (images) cost nothing here. Returns undefined when malformed. */
function countMessageTokens(messages: unknown, keep: boolean): PromptTokens | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return undefined
  let count = 0
  const texts: string[] | undefined = keep ? [] : undefined
  // A message without text passes its marker on to the next token, so an empty turn still shapes the chain.
  let marker = ''
  const add = (text: string) => {
    if (!texts) {
      count += countSimulatorTokens(text)
      return
    }
    for (const token of splitSimulatorTokens(text)) {
      texts.push(marker + token)
      marker = ''
    }
    count = texts.length
  }
  for (const message of messages) {
    if (!isRecord(message) || typeof message.role !== 'string') return undefined
    if (texts) marker += roleMarker(message.role)
    const content = message.content
    if (typeof content === 'string') add(content)
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (!isRecord(part)) return undefined
        if (part.type === 'text' && typeof part.text === 'string') add(part.text)
      }
    } else if (content !== null && content !== undefined) return undefined
  }
  return { count, texts }
}

function isTokenIds(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((t) => Number.isInteger(t) && (t as number) >= 0)
}

/** Counts a completions `prompt`: a string, token ids, or a one-element list of either. */
function countPromptTokens(prompt: unknown, keep: boolean): PromptTokens | undefined {
  if (typeof prompt === 'string')
    return keep ? fromTexts(splitSimulatorTokens(prompt)) : { count: countSimulatorTokens(prompt), texts: undefined }
  if (isTokenIds(prompt)) return keep ? fromTexts(prompt.map(tokenIdText)) : { count: prompt.length, texts: undefined }
  if (Array.isArray(prompt) && prompt.length === 1) return countPromptTokens(prompt[0], keep)
  return undefined
}

function fromTexts(texts: string[]): PromptTokens {
  return { count: texts.length, texts }
}

function optionalInteger(
  body: Record<string, unknown>,
  field: string,
  min: number,
): number | undefined | { problem: string } {
  const value = body[field]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    return { problem: `${field} must be an integer of at least ${min}, got ${JSON.stringify(value)}.` }
  return value
}

/** Validates a `/v1/chat/completions` or `/v1/completions` body the way vLLM's OpenAI server does, for the fields the simulator reads. */
export function parseCompletionRequest(api: ApiKind, body: unknown, limits: RequestLimits): ParsedCompletionRequest {
  if (!isRecord(body)) return badRequest('The request body must be a JSON object.')

  if (body.model !== undefined && body.model !== null && typeof body.model !== 'string')
    return badRequest('model must be a string.', 'model')
  const model = typeof body.model === 'string' ? body.model : undefined
  if (model !== undefined && model !== limits.model) {
    return {
      ok: false,
      problem: {
        status: 404,
        type: 'NotFoundError',
        message: `The model \`${model}\` does not exist.`,
        param: 'model',
      },
    }
  }

  let prompt: PromptTokens | undefined
  let contentKey: string
  const keep = limits.keepPromptTokens === true
  if (api === 'chat') {
    prompt = countMessageTokens(body.messages, keep)
    if (prompt === undefined)
      return badRequest('messages must be a non-empty list of {role, content} objects.', 'messages')
    contentKey = 'chat:' + JSON.stringify(body.messages)
  } else {
    prompt = countPromptTokens(body.prompt, keep)
    if (prompt === undefined)
      return badRequest('prompt must be a string, a list of token ids, or a list with one of either.', 'prompt')
    contentKey = 'completions:' + JSON.stringify(body.prompt)
  }
  const promptTokens = prompt.count

  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    return badRequest('stream must be a boolean.', 'stream')
  const stream = body.stream === true
  let includeUsage = false
  let continuousUsage = false
  if (body.stream_options !== undefined && body.stream_options !== null) {
    if (!stream) return badRequest('Stream options can only be defined when `stream=True`.', 'stream_options')
    if (!isRecord(body.stream_options)) return badRequest('stream_options must be an object.', 'stream_options')
    includeUsage = body.stream_options.include_usage === true
    continuousUsage = includeUsage && body.stream_options.continuous_usage_stats === true
  }

  const maxField = body.max_tokens !== undefined && body.max_tokens !== null ? 'max_tokens' : 'max_completion_tokens'
  const requestedMax = optionalInteger(body, maxField, 1)
  if (typeof requestedMax === 'object') return badRequest(requestedMax.problem, maxField)
  const requestedMin = optionalInteger(body, 'min_tokens', 0)
  if (typeof requestedMin === 'object') return badRequest(requestedMin.problem, 'min_tokens')
  if (body.ignore_eos !== undefined && body.ignore_eos !== null && typeof body.ignore_eos !== 'boolean')
    return badRequest('ignore_eos must be a boolean.', 'ignore_eos')

  const where = api === 'chat' ? 'messages' : 'prompt'
  const room = limits.maxModelLen - promptTokens
  if (room < 1 || (requestedMax !== undefined && requestedMax > room)) {
    const asked = requestedMax ?? 1
    return badRequest(
      `This model's maximum context length is ${limits.maxModelLen} tokens. However, you requested ${promptTokens + asked} tokens ` +
        `(${promptTokens} in the ${where}, ${asked} in the completion). Please reduce the length of the ${where} or completion.`,
    )
  }
  const maxTokens = requestedMax ?? Math.min(limits.defaultMaxTokens, room)
  const minTokens = requestedMin ?? 0
  if (minTokens > maxTokens)
    return badRequest(
      `min_tokens (${minTokens}) must be less than or equal to max_tokens (${maxTokens}).`,
      'min_tokens',
    )

  return {
    ok: true,
    request: {
      api,
      model,
      stream,
      includeUsage,
      continuousUsage,
      promptTokens,
      promptTokenTexts: prompt.texts,
      maxTokens,
      minTokens,
      ignoreEos: body.ignore_eos === true,
      contentKey,
    },
  }
}
