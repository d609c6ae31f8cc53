/**
 * A conversation ({@link ConversationMessage}s) in each API's shape. Plain messages go as
 * `{ role, content }` everywhere; the tool calls a reply made and the tool results that answer
 * them go as each API writes them:
 *
 * - chat: the assistant message's `tool_calls` (`content` null when the reply had no text), then
 *   `{ role: 'tool', tool_call_id, content }` per result;
 * - Responses: `function_call` items (`call_id`, `name`, `arguments`) after the assistant's text,
 *   then `function_call_output` items (`call_id`, `output`);
 * - Messages: `tool_use` blocks (`id`, `name`, `input`) in the assistant's content, then one user
 *   message whose `tool_result` blocks answer every call of that reply.
 */
import type { ConversationMessage, ToolCallMade } from '../contract/request-record.ts'
import { isRecord } from '../contract/is-record.ts'

const plain = (m: ConversationMessage): { role: string; content: string } => ({ role: m.role, content: m.content })

/** Chat Completions `messages`. */
export function chatMessages(messages: readonly ConversationMessage[]): unknown[] {
  return messages.map((m) => {
    if (m.role === 'tool' && m.toolCallId !== undefined)
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content }
    if (m.toolCalls === undefined || m.toolCalls.length === 0) return plain(m)
    return {
      role: m.role,
      content: m.content === '' ? null : m.content,
      tool_calls: m.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    }
  })
}

/** Responses API `input` items. */
export function responsesInput(messages: readonly ConversationMessage[]): unknown[] {
  return messages.flatMap((m): unknown[] => {
    if (m.role === 'tool' && m.toolCallId !== undefined)
      return [{ type: 'function_call_output', call_id: m.toolCallId, output: m.content }]
    if (m.toolCalls === undefined || m.toolCalls.length === 0) return [plain(m)]
    const calls = m.toolCalls.map((call) => ({
      type: 'function_call',
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    }))
    return m.content === '' ? calls : [plain(m), ...calls]
  })
}

/** A call's arguments as the object Messages' `tool_use.input` must be (`{}` when they are not a JSON object). */
function inputOf(call: ToolCallMade): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.arguments)
    return isRecord(parsed) ? parsed : {}
  } catch {
    return {}
  }
}

/** Messages API `messages` (system messages left out: they go as the top-level `system`). */
export function anthropicMessages(messages: readonly ConversationMessage[]): unknown[] {
  const out: unknown[] = []
  let results: unknown[] | undefined
  for (const m of messages) {
    if (m.role === 'system') continue
    if (m.role === 'tool' && m.toolCallId !== undefined) {
      const block = { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }
      // The results of one reply's calls share one user message.
      if (results === undefined) {
        results = [block]
        out.push({ role: 'user', content: results })
      } else results.push(block)
      continue
    }
    results = undefined
    if (m.toolCalls === undefined || m.toolCalls.length === 0) {
      out.push(plain(m))
      continue
    }
    const text = m.content === '' ? [] : [{ type: 'text', text: m.content }]
    const uses = m.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: inputOf(call) }))
    out.push({ role: m.role, content: [...text, ...uses] })
  }
  return out
}
