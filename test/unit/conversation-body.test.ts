// A session's conversation with tool calls, rendered in each API's shape: the calls a reply made and the
// tool results that answer them by id (chat `tool_calls` / `tool`, Responses `function_call` /
// `function_call_output` items, Messages `tool_use` / `tool_result` blocks).
import { describe, expect, test } from 'vitest'
import { anthropicMessages, chatMessages, responsesInput } from '../../src/core/client/conversation-body.ts'
import type { ConversationMessage } from '../../src/core/contract/request-record.ts'
import { turnMessages } from '../../src/core/workload/index.ts'

const calls = [
  { id: 'c1', name: 'search', arguments: '{"q":"x"}' },
  { id: 'c2', name: 'open', arguments: 'not json' },
]
const conversation: ConversationMessage[] = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'find x' },
  { role: 'assistant', content: '', toolCalls: calls },
  { role: 'tool', content: 'x is 1', toolCallId: 'c1' },
  { role: 'tool', content: '', toolCallId: 'c2' },
  { role: 'assistant', content: 'x is 1' },
]

describe('a conversation with tool calls, per API', () => {
  test('chat: tool_calls on the assistant message (content null), a tool message per result', () => {
    expect(chatMessages(conversation)).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'find x' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } },
          { id: 'c2', type: 'function', function: { name: 'open', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'x is 1' },
      { role: 'tool', tool_call_id: 'c2', content: '' },
      { role: 'assistant', content: 'x is 1' },
    ])
  })

  test('Responses: function_call items after the text, function_call_output items answering them', () => {
    const withText: ConversationMessage[] = [{ role: 'assistant', content: 'let me look', toolCalls: [calls[0]!] }]
    expect(responsesInput(withText)).toEqual([
      { role: 'assistant', content: 'let me look' },
      { type: 'function_call', call_id: 'c1', name: 'search', arguments: '{"q":"x"}' },
    ])
    expect(responsesInput(conversation).slice(2)).toEqual([
      { type: 'function_call', call_id: 'c1', name: 'search', arguments: '{"q":"x"}' },
      { type: 'function_call', call_id: 'c2', name: 'open', arguments: 'not json' },
      { type: 'function_call_output', call_id: 'c1', output: 'x is 1' },
      { type: 'function_call_output', call_id: 'c2', output: '' },
      { role: 'assistant', content: 'x is 1' },
    ])
  })

  test('Messages: tool_use blocks (input an object), one user message holding every tool_result; no system', () => {
    expect(anthropicMessages(conversation)).toEqual([
      { role: 'user', content: 'find x' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'c1', name: 'search', input: { q: 'x' } },
          // Arguments that are not a JSON object still make a valid block.
          { type: 'tool_use', id: 'c2', name: 'open', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'x is 1' },
          { type: 'tool_result', tool_use_id: 'c2', content: '' },
        ],
      },
      { role: 'assistant', content: 'x is 1' },
    ])
  })
})

describe('turnMessages: what a session turn adds', () => {
  const turn = (role: 'user' | 'tool') => ({
    role,
    content: 'result',
    contentTokens: 1,
    maxTokens: 8,
    thinkMs: 0,
    spawn: [],
  })

  test('a tool turn after a reply that called tools answers every call: its text the first, empty the rest', () => {
    expect(turnMessages(turn('tool'), conversation.slice(0, 3))).toEqual([
      { role: 'tool', content: 'result', toolCallId: 'c1' },
      { role: 'tool', content: '', toolCallId: 'c2' },
    ])
  })

  test('a tool turn after a reply without a call, and a user turn, are user messages', () => {
    expect(turnMessages(turn('tool'), conversation)).toEqual([{ role: 'user', content: 'result' }])
    expect(turnMessages(turn('user'), conversation.slice(0, 3))).toEqual([{ role: 'user', content: 'result' }])
  })
})
