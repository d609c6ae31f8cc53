import type { ApiKind } from '../core/contract/api-kinds.ts'

/**
 * The JSON shapes of vLLM's OpenAI-compatible server (v0.6 to v0.11), field for field where a
 * client could look: streaming chunks, the usage chunk, whole completions and error bodies.
 */

/** What every chunk of one response repeats. */
export interface ResponseIdentity {
  api: ApiKind
  id: string
  /** Unix seconds (a protocol field, not a measurement). */
  created: number
  model: string
}

export interface TokenUsage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  /** Sent only when prefix caching is modelled (vLLM with `--enable-prompt-tokens-details`). */
  prompt_tokens_details?: { cached_tokens: number }
  /** Sent only when reasoning is modelled (`reasoningTokens`), as OpenAI reports it. */
  completion_tokens_details?: { reasoning_tokens: number }
}

/**
 * `cachedTokens` given: the usage also reports `prompt_tokens_details.cached_tokens`;
 * `reasoningTokens` given: `completion_tokens_details.reasoning_tokens`.
 */
export function usageOf(
  promptTokens: number,
  completionTokens: number,
  cachedTokens?: number,
  reasoningTokens?: number,
): TokenUsage {
  const usage: TokenUsage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  }
  if (cachedTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: cachedTokens }
  if (reasoningTokens !== undefined) usage.completion_tokens_details = { reasoning_tokens: reasoningTokens }
  return usage
}

/** One server-sent event. */
export function sseEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`
}

export const SSE_DONE = 'data: [DONE]\n\n'

function chunkObject(identity: ResponseIdentity): 'chat.completion.chunk' | 'text_completion' {
  return identity.api === 'chat' ? 'chat.completion.chunk' : 'text_completion'
}

/** The first chat chunk: role only, empty content. The completions API has no such chunk. `usage`: continuous usage (0 completion tokens so far). */
export function roleChunk(identity: ResponseIdentity, usage?: TokenUsage): unknown {
  return {
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    ...(usage === undefined ? {} : { usage }),
  }
}

/**
 * A chunk carrying output: `text` (the answer) and, chat only, `reasoning` before it in
 * `delta.reasoning_content` (a chunk crossing from reasoning to answer carries both); the last one
 * carries the finish reason. `usage`: the cumulative usage so far (`continuous_usage_stats`).
 */
export function tokenChunk(
  identity: ResponseIdentity,
  text: string,
  finishReason: string | null,
  reasoning = '',
  usage?: TokenUsage,
): unknown {
  const ending = finishReason === null ? {} : { stop_reason: null }
  const delta =
    reasoning === ''
      ? { content: text }
      : text === ''
        ? { reasoning_content: reasoning }
        : { reasoning_content: reasoning, content: text }
  const choice =
    identity.api === 'chat'
      ? { index: 0, delta, logprobs: null, finish_reason: finishReason, ...ending }
      : { index: 0, text: reasoning + text, logprobs: null, finish_reason: finishReason, ...ending }
  return {
    id: identity.id,
    object: chunkObject(identity),
    created: identity.created,
    model: identity.model,
    choices: [choice],
    ...(usage === undefined ? {} : { usage }),
  }
}

/** A tool the reply calls: its name and call id. */
export interface ToolCallIdentity {
  name: string
  id: string
}

/**
 * The arguments of a reply that calls a tool, built from its tokens as they come: one JSON object
 * `{"input": "<the tokens>"}`, opened with the first piece and closed with the last, so the pieces
 * joined are valid JSON.
 */
export class ToolArguments {
  #opened = false
  /** The piece of the arguments one chunk of tokens adds (`last`: it closes them). */
  piece(text: string, last: boolean): string {
    const open = this.#opened ? '' : '{"input": "'
    this.#opened = true
    return open + JSON.stringify(text).slice(1, -1) + (last ? '"}' : '')
  }
  get opened(): boolean {
    return this.#opened
  }
}

/**
 * A chat chunk carrying a tool call's arguments (vLLM's shape): the first names the function with
 * the call's id, later ones carry only their piece of the arguments; `reasoning` before it in
 * `delta.reasoning_content`. The last carries `finish_reason` `tool_calls`.
 */
export function toolCallChunk(
  identity: ResponseIdentity,
  call: ToolCallIdentity,
  first: boolean,
  args: string,
  last: boolean,
  reasoning = '',
  usage?: TokenUsage,
): unknown {
  const toolCall = first
    ? { index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: args } }
    : { index: 0, function: { arguments: args } }
  const delta = reasoning === '' ? { tool_calls: [toolCall] } : { reasoning_content: reasoning, tool_calls: [toolCall] }
  return {
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: last ? 'tool_calls' : null }],
    ...(usage === undefined ? {} : { usage }),
  }
}

/** The `stream_options.include_usage` chunk: no choices, only usage. */
export function usageChunk(identity: ResponseIdentity, usage: TokenUsage): unknown {
  return {
    id: identity.id,
    object: chunkObject(identity),
    created: identity.created,
    model: identity.model,
    choices: [],
    usage,
  }
}

/** A whole (non-streamed) completion; `reasoning` (chat) goes to `message.reasoning_content`; `call`: the reply is that tool call. */
export function completionBody(
  identity: ResponseIdentity,
  text: string,
  finishReason: string,
  usage: TokenUsage,
  reasoning = '',
  call?: ToolCallIdentity,
): unknown {
  if (identity.api === 'chat') {
    const toolCalls =
      call === undefined
        ? []
        : [
            {
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: new ToolArguments().piece(text, true) },
            },
          ]
    return {
      id: identity.id,
      object: 'chat.completion',
      created: identity.created,
      model: identity.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: call === undefined ? text : null,
            reasoning_content: reasoning === '' ? null : reasoning,
            tool_calls: toolCalls,
          },
          logprobs: null,
          finish_reason: call === undefined ? finishReason : 'tool_calls',
          stop_reason: null,
        },
      ],
      usage: { ...usage, prompt_tokens_details: usage.prompt_tokens_details ?? null },
      prompt_logprobs: null,
    }
  }
  return {
    id: identity.id,
    object: 'text_completion',
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        text: reasoning + text,
        logprobs: null,
        finish_reason: finishReason,
        stop_reason: null,
        prompt_logprobs: null,
      },
    ],
    usage,
  }
}

/** An OpenAI error body: `{"error": {"message", "type", "param", "code"}}`. */
export function errorBody(status: number, type: string, message: string, param: string | null = null): unknown {
  return { error: { message, type, param, code: status } }
}

/** The error event sent inside a stream (shape as vLLM writes it, without `param`). */
export function streamErrorEvent(message: string): string {
  return sseEvent({ error: { message, type: 'InternalServerError', code: 500 } })
}

/** `GET /v1/models` as vLLM answers it. */
export function modelList(model: string, maxModelLen: number, created: number): unknown {
  return {
    object: 'list',
    data: [
      {
        id: model,
        object: 'model',
        created,
        owned_by: 'vitest-llm-bench',
        root: model,
        parent: null,
        max_model_len: maxModelLen,
        permission: [
          {
            id: `modelperm-${model}`,
            object: 'model_permission',
            created,
            allow_create_engine: false,
            allow_sampling: true,
            allow_logprobs: true,
            allow_search_indices: false,
            allow_view: true,
            allow_fine_tuning: false,
            organization: '*',
            group: null,
            is_blocking: false,
          },
        ],
      },
    ],
  }
}
