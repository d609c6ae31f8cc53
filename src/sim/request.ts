import type { ApiKind, GenerationApi } from '../core/contract/api-kinds.ts'
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
  /**
   * The tool the reply calls: the request offered `tools` and its `tool_choice` forces a call
   * (`required`, Messages `any`: the first tool; a named one: that one). The reply's tokens are then
   * the call's arguments. Undefined: a text reply (the simulator never chooses a tool on its own).
   */
  toolName: string | undefined
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

/** A string field as text ('' when it is not a string). */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : ''
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
    if (!isRecord(message)) return undefined
    // Responses API items that are not messages: a call the model made, and a tool's output.
    if (message.type === 'function_call' || message.type === 'function_call_output') {
      if (texts) marker += roleMarker(message.type)
      add(
        message.type === 'function_call'
          ? `${textOf(message.name)} ${textOf(message.arguments)}`
          : textOf(message.output),
      )
      continue
    }
    if (typeof message.role !== 'string') return undefined
    if (texts) marker += roleMarker(message.role)
    const content = message.content
    if (typeof content === 'string') add(content)
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (!isRecord(part)) return undefined
        // `text` in chat and Messages, `input_text` / `output_text` in the Responses API.
        if (
          (part.type === 'text' || part.type === 'input_text' || part.type === 'output_text') &&
          typeof part.text === 'string'
        )
          add(part.text)
        // Messages: a call the model made, and the tool's result answering it.
        else if (part.type === 'tool_use') add(`${textOf(part.name)} ${JSON.stringify(part.input ?? {})}`)
        else if (part.type === 'tool_result') add(textOf(part.content))
      }
    } else if (content !== null && content !== undefined) return undefined
    // Chat: the calls an assistant message made.
    if (Array.isArray(message.tool_calls))
      for (const call of message.tool_calls) {
        const fn = isRecord(call) && isRecord(call.function) ? call.function : {}
        add(`${textOf(fn.name)} ${textOf(fn.arguments)}`)
      }
  }
  return { count, texts }
}

/**
 * The conversation of a chat, Responses or Messages body as one chat message list: the Responses
 * API's `input` (a string is one user message), the Messages API's `system` first. The same
 * conversation sent over any of the three gives the same list, so the same reply.
 */
function conversationOf(api: ApiKind, body: Record<string, unknown>): unknown {
  if (api === 'responses') return typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input
  if (api === 'messages' && body.system !== undefined && body.system !== null) {
    if (!Array.isArray(body.messages)) return body.messages
    return [{ role: 'system', content: body.system }, ...(body.messages as unknown[])]
  }
  return body.messages
}

/** A tool's name in each API's shape: chat nests it under `function`, Responses and Messages do not. */
function toolNameOf(tool: unknown): string | undefined {
  if (!isRecord(tool)) return undefined
  const fn = isRecord(tool.function) ? tool.function : tool
  return typeof fn.name === 'string' && fn.name !== '' ? fn.name : undefined
}

/** The tool a request's `tool_choice` forces it to call, or undefined when it forces none. */
function forcedTool(body: Record<string, unknown>): string | undefined {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return undefined
  const choice = body.tool_choice
  if (choice === 'required' || (isRecord(choice) && choice.type === 'any')) return toolNameOf(body.tools[0])
  if (isRecord(choice)) return toolNameOf(choice)
  return undefined
}

/** The body field that holds the prompt, per API. */
const PROMPT_FIELDS: Record<GenerationApi, string> = {
  chat: 'messages',
  completions: 'prompt',
  responses: 'input',
  messages: 'messages',
}

/** The body field that limits the output, per API (chat also takes `max_completion_tokens`). */
const MAX_TOKENS_FIELDS: Record<GenerationApi, string> = {
  chat: 'max_tokens',
  completions: 'max_tokens',
  responses: 'max_output_tokens',
  messages: 'max_tokens',
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

/**
 * Validates a `/v1/chat/completions`, `/v1/completions`, `/v1/responses` or `/v1/messages` body the
 * way vLLM's server does, for the fields the simulator reads. The Responses and Messages APIs
 * report usage at the end of every stream without being asked (`includeUsage`).
 */
export function parseCompletionRequest(
  api: GenerationApi,
  body: unknown,
  limits: RequestLimits,
): ParsedCompletionRequest {
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
  const where = PROMPT_FIELDS[api]
  if (api !== 'completions') {
    const conversation = conversationOf(api, body)
    prompt = countMessageTokens(conversation, keep)
    if (prompt === undefined)
      return badRequest(
        api === 'responses'
          ? 'input must be a string or a non-empty list of {role, content} messages.'
          : 'messages must be a non-empty list of {role, content} objects.',
        where,
      )
    contentKey = 'chat:' + JSON.stringify(conversation)
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
  let includeUsage = api === 'responses' || api === 'messages'
  let continuousUsage = false
  if ((api === 'chat' || api === 'completions') && body.stream_options !== undefined && body.stream_options !== null) {
    if (!stream) return badRequest('Stream options can only be defined when `stream=True`.', 'stream_options')
    if (!isRecord(body.stream_options)) return badRequest('stream_options must be an object.', 'stream_options')
    includeUsage = body.stream_options.include_usage === true
    continuousUsage = includeUsage && body.stream_options.continuous_usage_stats === true
  }

  if (api === 'messages' && (body.max_tokens === undefined || body.max_tokens === null))
    return badRequest('max_tokens: Field required (the Messages API has no default output length).', 'max_tokens')
  const maxField =
    api !== 'chat' || (body.max_tokens !== undefined && body.max_tokens !== null)
      ? MAX_TOKENS_FIELDS[api]
      : 'max_completion_tokens'
  const requestedMax = optionalInteger(body, maxField, 1)
  if (typeof requestedMax === 'object') return badRequest(requestedMax.problem, maxField)
  const requestedMin = optionalInteger(body, 'min_tokens', 0)
  if (typeof requestedMin === 'object') return badRequest(requestedMin.problem, 'min_tokens')
  if (body.ignore_eos !== undefined && body.ignore_eos !== null && typeof body.ignore_eos !== 'boolean')
    return badRequest('ignore_eos must be a boolean.', 'ignore_eos')

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
      toolName: api === 'completions' ? undefined : forcedTool(body),
    },
  }
}
