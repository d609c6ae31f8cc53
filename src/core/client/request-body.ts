import type { ApiKind } from '../contract/api-kinds.ts'
import type { ChatTool, RequestShape, ResolvedResponseFormat, ToolChoice } from '../contract/workload-options.ts'
import type { PreparedRequest } from '../contract/request-record.ts'
import { API_ENDPOINTS, MESSAGES_MAX_TOKENS_WHEN_UNSET, takesInputs } from '../contract/api-kinds.ts'
import type { ResolvedTarget } from './target.ts'
import { promptTextOf } from '../contract/prompt-text.ts'
import { anthropicMessages, chatMessages, responsesInput } from './conversation-body.ts'

/** Path of the endpoint an API kind posts to, below the server root. */
export function endpointPath(api: ApiKind): string {
  return API_ENDPOINTS[api]
}

function messagesOf(req: PreparedRequest): NonNullable<PreparedRequest['messages']> {
  return req.messages ?? [{ role: 'user', content: req.prompt ?? '' }]
}

/** An object schema with no properties: the arguments of a tool that declares none. */
const NO_PARAMETERS = { type: 'object', properties: {} }

/** The tools in the shape each API takes: Chat Completions' as given, Responses' flat, Messages' with `input_schema`. */
function toolsFor(api: ApiKind, tools: readonly ChatTool[]): unknown[] {
  return tools.map(({ function: fn }) => {
    const description = fn.description === undefined ? {} : { description: fn.description }
    if (api === 'responses')
      return { type: 'function', name: fn.name, ...description, parameters: fn.parameters ?? NO_PARAMETERS }
    if (api === 'messages') return { name: fn.name, ...description, input_schema: fn.parameters ?? NO_PARAMETERS }
    return { type: 'function', function: fn }
  })
}

/** `tool_choice` in each API's words (Messages: `auto`, `any`, `none`, `tool`). */
function toolChoiceFor(api: ApiKind, choice: ToolChoice): unknown {
  if (api === 'messages') {
    if (typeof choice === 'object') return { type: 'tool', name: choice.name }
    return { type: choice === 'required' ? 'any' : choice }
  }
  if (typeof choice === 'string') return choice
  return api === 'responses'
    ? { type: 'function', name: choice.name }
    : { type: 'function', function: { name: choice.name } }
}

/**
 * The reply format in each API's place: chat and completions `response_format` (`json_schema`
 * nested under its name), Responses `text.format` (flat). The Messages API takes none (refused
 * before the run).
 */
function putResponseFormat(body: Record<string, unknown>, api: ApiKind, format: ResolvedResponseFormat): void {
  if (api === 'responses') {
    body.text = { format: format.type === 'json_object' ? { type: 'json_object' } : { ...format } }
    return
  }
  body.response_format =
    format.type === 'json_object'
      ? { type: 'json_object' }
      : { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: format.strict } }
}

/**
 * The texts of an `embeddings` or `rerank` request: the workload groups them (`workload.batch`);
 * a request built for another API (a hand-made one) gives its prompt, or its conversation's contents.
 */
function inputsOf(req: PreparedRequest): string[] {
  return req.inputs ?? [promptTextOf(req)]
}

/**
 * The body of an `embeddings` request (`input` always an array, floats asked for: the default of
 * OpenAI and vLLM, and what llama.cpp gives) or a `rerank` request (`query` and `documents`, every
 * document scored: no `top_n`). Not streamed. `extraBody` is merged last and wins.
 */
function inputsBody(target: ResolvedTarget, req: PreparedRequest): Record<string, unknown> {
  const body: Record<string, unknown> =
    target.api === 'rerank'
      ? { model: target.model, query: req.query ?? '', documents: inputsOf(req) }
      : { model: target.model, input: inputsOf(req), encoding_format: 'float' }
  if (req.extraBody !== undefined) Object.assign(body, req.extraBody)
  return body
}

/**
 * The JSON body of one streaming request, always streamed. Chat and completions ask for usage
 * (`stream_options.include_usage`) so output tokens are exact, in every chunk too
 * (`continuous_usage_stats`) when the target says so (tokens per chunk exact); the Responses and
 * Messages APIs report usage in their last events without being asked. The Responses API gets the
 * whole conversation as `input` (no `previous_response_id`: a multi-turn session sends its history
 * each turn, as over chat, so both APIs see the same tokens and no server-side state is assumed);
 * the Messages API gets system messages as its top-level `system`. With `ignoreEos` it adds
 * `ignore_eos: true` and `min_tokens = maxTokens` (vLLM, SGLang, llama.cpp) so the server produces
 * exactly the requested length. `shape` adds the workload's tools and reply format in the API's own shape.
 * `extraBody` is merged last and wins.
 */
export function buildRequestBody(
  target: ResolvedTarget,
  req: PreparedRequest,
  shape?: RequestShape,
): Record<string, unknown> {
  if (takesInputs(target.api)) return inputsBody(target, req)
  const body: Record<string, unknown> = { model: target.model }
  switch (target.api) {
    case 'chat':
      body.messages = chatMessages(messagesOf(req))
      break
    case 'completions':
      body.prompt = promptTextOf(req)
      break
    case 'responses':
      body.input = responsesInput(messagesOf(req))
      // Nothing kept on the server: a bench's thousands of responses would pile up there (vLLM, OpenAI store by default).
      body.store = false
      break
    case 'messages': {
      const messages = messagesOf(req)
      const system = messages.filter((m) => m.role === 'system').map((m) => m.content)
      if (system.length > 0) body.system = system.join('\n\n')
      body.messages = anthropicMessages(messages)
      break
    }
  }
  body.stream = true
  if (target.api === 'chat' || target.api === 'completions') {
    body.stream_options =
      target.continuousUsageStats === true
        ? { include_usage: true, continuous_usage_stats: true }
        : { include_usage: true }
  }
  if (req.maxTokens !== undefined) {
    if (target.api === 'responses') body.max_output_tokens = req.maxTokens
    else body.max_tokens = req.maxTokens
  } else if (target.api === 'messages') body.max_tokens = MESSAGES_MAX_TOKENS_WHEN_UNSET
  if (req.ignoreEos === true) {
    body.ignore_eos = true
    if (req.maxTokens !== undefined) body.min_tokens = req.maxTokens
  }
  if (shape !== undefined) {
    if (shape.tools.length > 0) body.tools = toolsFor(target.api, shape.tools)
    if (shape.toolChoice !== undefined) body.tool_choice = toolChoiceFor(target.api, shape.toolChoice)
    if (shape.responseFormat !== undefined) putResponseFormat(body, target.api, shape.responseFormat)
  }
  if (req.extraBody !== undefined) Object.assign(body, req.extraBody)
  return body
}
