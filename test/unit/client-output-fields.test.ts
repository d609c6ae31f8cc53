/** The "carries output" rule has one definition, OUTPUT_FIELDS: the parser's predicates agree with it field by field. */
import { describe, expect, test } from 'vitest'
import { OUTPUT_FIELDS } from '../../src/core/client/output-fields.ts'
import {
  choiceCarriesNonReasoningOutput,
  choiceCarriesOutput,
  choiceCarriesToolCall,
  completionChoiceCarriesOutput,
  completionChoiceCarriesToolCall,
  completionNonReasoningTextOf,
  nonReasoningTextOf,
} from '../../src/core/client/sse-event.ts'

/** A choice whose only string is `value` at the table's `place` and `field` (`inner` is `delta` when streamed, `message` when whole). */
function choiceWith(
  place: 'choice' | 'delta',
  field: string,
  value: string,
  inner: 'delta' | 'message',
): Record<string, unknown> {
  return place === 'choice'
    ? { index: 0, [field]: value, [inner]: { role: 'assistant' } }
    : { index: 0, [inner]: { role: 'assistant', [field]: value } }
}

/** Fields servers send beside the output that must never count (OpenAI, vLLM, SGLang chunks). */
const NOT_OUTPUT = [
  'role',
  'refusal',
  'tool_calls',
  'function_call',
  'finish_reason',
  'logprobs',
  'name',
  'stop_reason',
  'matched_stop',
]

describe('OUTPUT_FIELDS is the rule', () => {
  test('the table is text, then delta.content, delta.reasoning_content and delta.reasoning; the last two are reasoning', () => {
    expect(OUTPUT_FIELDS.map(({ place, field }) => `${place}.${field}`)).toEqual([
      'choice.text',
      'delta.content',
      'delta.reasoning_content',
      'delta.reasoning',
    ])
    expect(OUTPUT_FIELDS.filter((f) => f.reasoning).map(({ field }) => field)).toEqual([
      'reasoning_content',
      'reasoning',
    ])
  })

  test('the answer (TTFO, output text) is the fields not marked reasoning, streamed and whole', () => {
    for (const { place, field, reasoning } of OUTPUT_FIELDS) {
      expect(choiceCarriesNonReasoningOutput(choiceWith(place, field, 'x', 'delta')), `${place}.${field}`).toBe(
        !reasoning,
      )
      expect(choiceCarriesNonReasoningOutput(choiceWith(place, field, '', 'delta')), `${place}.${field} empty`).toBe(
        false,
      )
      expect(nonReasoningTextOf(choiceWith(place, field, 'x', 'delta')), `${place}.${field}`).toBe(reasoning ? '' : 'x')
      expect(completionNonReasoningTextOf(choiceWith(place, field, 'x', 'message')), `${place}.${field}`).toBe(
        reasoning ? '' : 'x',
      )
    }
    for (const field of NOT_OUTPUT)
      expect(choiceCarriesNonReasoningOutput(choiceWith('delta', field, 'x', 'delta')), `delta.${field}`).toBe(false)
    expect(nonReasoningTextOf({ index: 0, delta: { content: 'a', reasoning_content: 'r' } })).toBe('a')
  })

  test.each([
    ['streamed', 'delta', choiceCarriesOutput],
    ['whole', 'message', completionChoiceCarriesOutput],
  ] as const)(
    '%s: every field of the table carries output when non-empty, and no other field does',
    (_kind, inner, carries) => {
      for (const { place, field } of OUTPUT_FIELDS) {
        expect(carries(choiceWith(place, field, 'x', inner)), `${place}.${field}`).toBe(true)
        expect(carries(choiceWith(place, field, '', inner)), `${place}.${field} empty`).toBe(false)
      }
      for (const field of NOT_OUTPUT) {
        expect(carries(choiceWith('delta', field, 'x', inner)), `delta.${field}`).toBe(false)
        expect(carries(choiceWith('choice', field, 'x', inner)), `choice.${field}`).toBe(false)
      }
      // A delta field outside its holder does not count (a streamed chunk's `message`, a whole response's `delta`).
      const other = inner === 'delta' ? 'message' : 'delta'
      expect(carries({ index: 0, [other]: { content: 'x' } })).toBe(false)
    },
  )
})

describe('a tool call is output, and not reasoning', () => {
  const call = (fn: Record<string, unknown>) => [{ index: 0, id: 'call_1', type: 'function', function: fn }]
  test.each([
    ['streamed', 'delta', choiceCarriesOutput, choiceCarriesToolCall],
    ['whole', 'message', completionChoiceCarriesOutput, completionChoiceCarriesToolCall],
  ] as const)(
    '%s: a call with a name or arguments counts; an empty or malformed one does not',
    (_k, inner, carries, isCall) => {
      for (const fn of [{ name: 'get_weather', arguments: '' }, { arguments: '{"city":' }]) {
        const choice = { index: 0, [inner]: { role: 'assistant', content: null, tool_calls: call(fn) } }
        expect(carries(choice), JSON.stringify(fn)).toBe(true)
        expect(isCall(choice), JSON.stringify(fn)).toBe(true)
      }
      for (const toolCalls of [[], call({ arguments: '' }), [{ index: 0 }], 'x', [null]]) {
        const choice = { index: 0, [inner]: { role: 'assistant', tool_calls: toolCalls } }
        expect(carries(choice), JSON.stringify(toolCalls)).toBe(false)
        expect(isCall(choice), JSON.stringify(toolCalls)).toBe(false)
      }
    },
  )

  test('TTFO counts it: it is the answer, not thinking; the output text leaves it out', () => {
    const choice = { index: 0, delta: { tool_calls: call({ arguments: '{}' }) } }
    expect(choiceCarriesNonReasoningOutput(choice)).toBe(true)
    expect(nonReasoningTextOf(choice)).toBe('')
  })
})
