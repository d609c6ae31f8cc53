import { OptionsError } from '../contract/errors.ts'
import { isRecord } from '../contract/is-record.ts'
import type {
  ChatTool,
  RequestShape,
  ResolvedResponseFormat,
  ToolChoice,
  WorkloadOptions,
} from '../contract/workload-options.ts'
import { compileReplySchema } from '../contract/reply-schema.ts'

const CHOICES = ['auto', 'required', 'none']

/** A function name as the OpenAI and Anthropic APIs accept it. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

function checkTool(tool: unknown, i: number): ChatTool {
  const option = `workload.tools[${i}]`
  const fn = isRecord(tool) ? tool.function : undefined
  if (!isRecord(tool) || tool.type !== 'function' || !isRecord(fn)) {
    throw new OptionsError(
      option,
      `must be { type: 'function', function: { name, description?, parameters? } }, got ${JSON.stringify(tool)}`,
      'Give each tool in the Chat Completions shape; it is converted for the Responses and Messages APIs.',
    )
  }
  if (typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name))
    throw new OptionsError(
      `${option}.function.name`,
      `must be 1 to 64 letters, digits, _ or -, got ${JSON.stringify(fn.name)}`,
      'Give it a name the OpenAI and Anthropic APIs accept (vLLM and llama.cpp pass it to the model as is).',
    )
  if (fn.description !== undefined && typeof fn.description !== 'string')
    throw new OptionsError(`${option}.function.description`, 'must be a string', 'Give a description in words.')
  if (fn.parameters !== undefined && !isRecord(fn.parameters))
    throw new OptionsError(
      `${option}.function.parameters`,
      'must be a JSON Schema object',
      "Give the arguments' schema, e.g. { type: 'object', properties: { city: { type: 'string' } } }.",
    )
  return tool as unknown as ChatTool
}

function checkChoice(choice: unknown, names: ReadonlySet<string>): ToolChoice {
  if (typeof choice === 'string' && CHOICES.includes(choice)) return choice as ToolChoice
  if (isRecord(choice) && typeof choice.name === 'string') {
    if (names.has(choice.name)) return { name: choice.name }
    throw new OptionsError(
      'workload.toolChoice.name',
      `'${choice.name}' is not among workload.tools (${[...names].join(', ')})`,
      'Use the name of one of the tools given.',
    )
  }
  throw new OptionsError(
    'workload.toolChoice',
    `must be 'auto', 'required', 'none' or { name }, got ${JSON.stringify(choice)}`,
    "Leave it out for the server's default (auto).",
  )
}

/** `workload.responseFormat` checked, its defaults applied; its schema must compile. */
function checkResponseFormat(format: unknown): ResolvedResponseFormat {
  const fix = "Give { type: 'json_schema', schema } or { type: 'json_object' }."
  if (!isRecord(format) || (format.type !== 'json_object' && format.type !== 'json_schema'))
    throw new OptionsError('workload.responseFormat', `must be a JSON format, got ${JSON.stringify(format)}`, fix)
  if (format.type === 'json_object') return { type: 'json_object' }
  const { name, schema, strict } = format
  if (!isRecord(schema)) throw new OptionsError('workload.responseFormat.schema', 'must be a JSON Schema object', fix)
  if (name !== undefined && (typeof name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(name)))
    throw new OptionsError(
      'workload.responseFormat.name',
      `must be 1 to 64 letters, digits, _ or -, got ${JSON.stringify(name)}`,
      'Leave it out for `output`.',
    )
  if (strict !== undefined && typeof strict !== 'boolean')
    throw new OptionsError('workload.responseFormat.strict', 'must be true or false', 'Leave it out for true.')
  const problem = compileReplySchema(schema).problem
  if (problem !== undefined)
    throw new OptionsError('workload.responseFormat.schema', `is not a valid JSON Schema: ${problem}`, fix)
  return { type: 'json_schema', name: name ?? 'output', schema, strict: strict ?? true }
}

/**
 * What a workload adds to every request, checked; undefined when it adds nothing. Throws
 * {@link OptionsError} before any request is sent: a malformed tool, a choice naming no tool, a
 * reply format whose schema does not compile. (What an API cannot take, tools for completions or
 * a reply format for Messages, is refused by `createWorkload`, which knows the API.)
 */
export function resolveRequestShape(workload: WorkloadOptions): RequestShape | undefined {
  const { tools, toolChoice, responseFormat } = workload as {
    tools?: unknown
    toolChoice?: unknown
    responseFormat?: unknown
  }
  const format = responseFormat === undefined ? undefined : checkResponseFormat(responseFormat)
  if (tools === undefined) {
    if (toolChoice !== undefined)
      throw new OptionsError('workload.toolChoice', 'is given without workload.tools', 'Give the tools too.')
    return format === undefined ? undefined : { tools: [], toolChoice: undefined, responseFormat: format }
  }
  if (!Array.isArray(tools) || tools.length === 0)
    throw new OptionsError('workload.tools', 'must be a non-empty array of tools', 'Leave it out to offer none.')
  const checked = tools.map(checkTool)
  const names = new Set(checked.map((tool) => tool.function.name))
  return {
    tools: checked,
    toolChoice: toolChoice === undefined ? undefined : checkChoice(toolChoice, names),
    responseFormat: format,
  }
}
