/** JSON error positions on every runtime: V8 names them in its messages, JavaScriptCore (Bun) does not. */
import { describe, expect, test } from 'vitest'
import { describeJsonError, jsonErrorPosition } from '../../src/core/platform/runtime-json.ts'

function parseError(text: string): unknown {
  try {
    JSON.parse(text)
  } catch (error) {
    return error
  }
  throw new Error(`${text} parsed`)
}

/** The message Bun gives: no position anywhere. */
const bunStyle = (message: string): Error => new SyntaxError(`JSON Parse error: ${message}`)

describe('jsonErrorPosition', () => {
  test.each([
    { text: '{"a":1,\n"b":}', offset: 12, line: 2, column: 5 },
    { text: '[1,\n2,\n\n]', offset: 8, line: 4, column: 1 },
    { text: '{"a"\n:1 x', offset: 8, line: 2, column: 4 },
    { text: '{', offset: 1, line: 1, column: 2 },
    { text: '{"s": "tab\there"}', offset: 10, line: 1, column: 11 },
    { text: '[tru]', offset: 1, line: 1, column: 2 },
    { text: '{"s": "a\\q"}', offset: 8, line: 1, column: 9 },
    { text: '{"s": "open', offset: 11, line: 1, column: 12 },
    { text: '{"n": 01}', offset: 7, line: 1, column: 8 },
    { text: '{"ok": true} trailing', offset: 13, line: 1, column: 14 },
  ])('found by scanning when the message names none: $text', ({ text, offset, line, column }) => {
    expect(jsonErrorPosition(text, bunStyle('Unexpected token'))).toEqual({ offset, line, column })
  })

  test("the runtime's own position wins when its message names one", () => {
    expect(
      jsonErrorPosition(
        '{"a"\n:1 x',
        new SyntaxError("Expected ',' or '}' after property value in JSON at position 7"),
      ),
    ).toEqual({ offset: 7, line: 2, column: 3 })
  })

  test('the error this runtime throws gives a line on the broken line', () => {
    const text = '[\n{"a": 1},\n{"b": 2,},\n{"c": 3}\n]'
    const position = jsonErrorPosition(text, parseError(text))
    expect(position?.line).toBe(3)
  })

  test('valid JSON: no position (the error came from elsewhere)', () => {
    expect(jsonErrorPosition('{"a": [1, 2.5e3, "x\\u00e9", null, false]}', bunStyle('x'))).toBeUndefined()
  })
})

describe('describeJsonError', () => {
  test('adds the position, worded as V8 words it, to a message without one', () => {
    expect(describeJsonError('{"a":1,\n"b":}', bunStyle("Unexpected token '}'"))).toBe(
      "JSON Parse error: Unexpected token '}' in JSON at position 12 (line 2 column 5)",
    )
  })

  test("this runtime's own JSON.parse error ends up with a position", () => {
    const text = '{"a": 1,\n  "b": }'
    expect(describeJsonError(text, parseError(text))).toMatch(/position \d+/)
  })
})
