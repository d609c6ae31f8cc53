import { OptionsError } from '../contract/errors.ts'
import { isRecord } from '../contract/is-record.ts'
import type { ChatTool, RequestShape, ToolChoice, WorkloadOptions } from '../contract/types.ts'

const CHOICES = ['auto', 'required', 'none']

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
  if (typeof fn.name !== 'string' || fn.name === '')
    throw new OptionsError(`${option}.function.name`, 'must be a non-empty string', 'Give the function a name.')
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

/**
 * The tools a workload offers with every request, checked; undefined when it offers none. Throws
 * {@link OptionsError} before any request is sent: a malformed tool or a choice naming no tool.
 * (Tools for the completions API, which takes none, are refused by `createWorkload`, which knows the API.)
 */
export function resolveRequestShape(workload: WorkloadOptions): RequestShape | undefined {
  const { tools, toolChoice } = workload as { tools?: unknown; toolChoice?: unknown }
  if (tools === undefined) {
    if (toolChoice !== undefined)
      throw new OptionsError('workload.toolChoice', 'is given without workload.tools', 'Give the tools too.')
    return undefined
  }
  if (!Array.isArray(tools) || tools.length === 0)
    throw new OptionsError('workload.tools', 'must be a non-empty array of tools', 'Leave it out to offer none.')
  const checked = tools.map(checkTool)
  const names = new Set(checked.map((tool) => tool.function.name))
  return { tools: checked, toolChoice: toolChoice === undefined ? undefined : checkChoice(toolChoice, names) }
}
