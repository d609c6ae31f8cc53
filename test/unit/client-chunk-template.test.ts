import { describe, expect, test } from 'vitest'
import {
  ContentChunkTemplate,
  jsonStringEnd,
  MATCH_WITH_ANSWER,
  MATCH_WITH_REASONING,
  MATCH_WITHOUT_OUTPUT,
  NO_MATCH,
} from '../../src/core/client/content-chunk-template.ts'
import { choiceCarriesOutput } from '../../src/core/client/sse-event.ts'
import type { ChunkLike } from '../../src/core/client/sse-event.ts'
import { seededRandom } from '../helpers/metrics-fixtures.ts'

const base = { id: 'chatcmpl-abc', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm' }
const chat = (content: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    ...base,
    choices: [{ index: 0, delta: { content, ...extra }, logprobs: null, finish_reason: null }],
  })

function learned(data: string): ContentChunkTemplate {
  const template = new ContentChunkTemplate()
  template.learn(data, JSON.parse(data) as ChunkLike)
  return template
}

describe('jsonStringEnd', () => {
  test('finds the closing quote past escapes, and refuses what JSON refuses', () => {
    const at = (text: string) => jsonStringEnd(text, 0)
    expect(at('abc"rest')).toBe(3)
    expect(at('a\\"b"')).toBe(4)
    expect(at('\\\\"')).toBe(2)
    expect(at('\\u00e9\\n\\t\\/\\b\\f\\r"')).toBe(18)
    expect(at('"')).toBe(0)
    expect(at('no end')).toBe(-1)
    expect(at('bad \\x escape"')).toBe(-1)
    expect(at('short \\u12"')).toBe(-1)
    expect(at('raw\nnewline"')).toBe(-1)
    expect(at('ends in a backslash \\')).toBe(-1)
  })
})

describe('ContentChunkTemplate', () => {
  test('a chunk of the learned shape with other text matches; empty text carries no output', () => {
    const template = learned(chat(' Hello'))
    expect(template.match(chat(' world'))).toBe(MATCH_WITH_ANSWER)
    expect(template.match(chat('with "quotes" and \\ and é and 🙂\n'))).toBe(MATCH_WITH_ANSWER)
    expect(template.match(chat(''))).toBe(MATCH_WITHOUT_OUTPUT)
    expect(template.learnedChunk).toEqual(JSON.parse(chat(' Hello')))
  })

  test('anything else is left to JSON.parse', () => {
    const template = learned(chat(' Hello'))
    expect(
      template.match(
        JSON.stringify({
          ...base,
          id: 'chatcmpl-other',
          choices: [{ index: 0, delta: { content: 'x' }, logprobs: null, finish_reason: null }],
        }),
      ),
    ).toBe(NO_MATCH)
    expect(
      template.match(
        JSON.stringify({
          ...base,
          choices: [{ index: 0, delta: { content: 'x' }, logprobs: null, finish_reason: 'stop' }],
        }),
      ),
    ).toBe(NO_MATCH)
    expect(template.match(JSON.stringify({ ...base, choices: [], usage: { completion_tokens: 3 } }))).toBe(NO_MATCH)
    // Text that closes the string early and adds a key is another JSON shape.
    const prefix = chat('X').split('X')[0] as string
    const suffix = chat('X').split('X')[1] as string
    expect(template.match(`${prefix}a","extra":"b${suffix}`)).toBe(NO_MATCH)
    // Invalid JSON in the slot: a raw newline, a dangling backslash that eats the closing quote.
    expect(template.match(`${prefix}line\nbreak${suffix}`)).toBe(NO_MATCH)
    expect(template.match(`${prefix}dangling\\${suffix}`)).toBe(NO_MATCH)
    expect(template.match(`${prefix}truncated`)).toBe(NO_MATCH)
    expect(new ContentChunkTemplate().match(chat('x'))).toBe(NO_MATCH)
  })

  test('completions `text` and reasoning fields are slots too', () => {
    const completion = (text: string) =>
      JSON.stringify({
        id: 'cmpl-1',
        object: 'text_completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, text, logprobs: null, finish_reason: null }],
        usage: null,
      })
    expect(learned(completion('a')).match(completion('bc'))).toBe(MATCH_WITH_ANSWER)
    expect(learned(completion('a')).match(completion(''))).toBe(MATCH_WITHOUT_OUTPUT)
    const reasoning = (r: string) =>
      JSON.stringify({ ...base, choices: [{ index: 0, delta: { reasoning_content: r, content: null } }] })
    expect(learned(reasoning('think')).match(reasoning('more'))).toBe(MATCH_WITH_REASONING)
    expect(learned(reasoning('think')).match(reasoning(''))).toBe(MATCH_WITHOUT_OUTPUT)
    const vllmReasoning = (r: string) => JSON.stringify({ ...base, choices: [{ index: 0, delta: { reasoning: r } }] })
    expect(learned(vllmReasoning('think')).match(vllmReasoning('more'))).toBe(MATCH_WITH_REASONING)
  })

  test('another field that carries reasoning makes even an empty slot carry output (reasoning only)', () => {
    // The slot is `content` (first non-empty in choiceCarriesOutput's order); the reasoning text is constant.
    const both = (content: string) => chat(content, { reasoning_content: 'r' })
    expect(learned(both('x')).match(both(''))).toBe(MATCH_WITH_REASONING)
    expect(learned(both('x')).match(both('y'))).toBe(MATCH_WITH_ANSWER)
  })

  test('a shape whose answer sits outside the slot is not learned (a match could not tell its text)', () => {
    // The first non-empty field would be `text`, but `delta.content` also carries answer text.
    const twoAnswers = (text: string) =>
      JSON.stringify({ ...base, choices: [{ index: 0, text, delta: { content: 'c' } }] })
    const template = learned(twoAnswers('a'))
    expect(template.learnedChunk).toBeUndefined()
    expect(template.match(twoAnswers('b'))).toBe(NO_MATCH)
  })

  test('answerText is the slot decoded: the raw body without escapes, JSON.parse of it with them', () => {
    const template = learned(chat('seed'))
    for (const text of [
      'plain',
      '',
      'é and 🙂 raw',
      'quote " backslash \\ newline \n tab \t',
      '\u00e9 escaped',
      'emoji \ud83d\ude42',
    ]) {
      const data = chat(text)
      expect(template.match(data)).not.toBe(NO_MATCH)
      expect(template.answerText(data), text).toBe(text)
    }
    // Written with escapes by the server (as Python's json.dumps does for non-ASCII).
    const escaped = chat('x').replace('"x"', '"caf\\u00e9 \\ud83d\\ude42 \\"q\\""')
    expect(template.match(escaped)).toBe(MATCH_WITH_ANSWER)
    expect(template.answerText(escaped)).toBe('café 🙂 "q"')
  })

  test('a first "content" key outside the first choice is not taken for the slot', () => {
    const decoy = (content: string) =>
      JSON.stringify({ meta: { content: 'decoy' }, choices: [{ index: 0, delta: { content } }] })
    const template = learned(decoy('a'))
    expect(template.learnedChunk).toBeUndefined()
    expect(template.match(decoy('b'))).toBe(NO_MATCH)
  })

  test('stops learning after shapes that never match, and learns again after a match', () => {
    const template = new ContentChunkTemplate()
    const varying = (i: number) =>
      JSON.stringify({ ...base, created: i, choices: [{ index: 0, delta: { content: 'x' } }] })
    for (let i = 0; i < 3; i++) {
      template.learn(varying(i), JSON.parse(varying(i)) as ChunkLike)
      expect(template.match(varying(i + 100))).toBe(NO_MATCH)
    }
    // A fourth shape is not learned: the third is still the template.
    template.learn(varying(7), JSON.parse(varying(7)) as ChunkLike)
    expect(template.match(varying(7))).toBe(NO_MATCH)
    expect(template.match(varying(2))).toBe(MATCH_WITH_ANSWER)
    // That match shows the shape repeats: learning is allowed again.
    template.learn(varying(7), JSON.parse(varying(7)) as ChunkLike)
    expect(template.match(varying(7))).toBe(MATCH_WITH_ANSWER)
  })

  test('a match reads exactly what JSON.parse would: same fields, same output decision', () => {
    const random = seededRandom(99)
    const alphabet = ['a', ' ', '"', '\\', 'é', '🙂', '\n', '\u0001', '\u2028', '}', ',', ':', 'u']
    const template = learned(chat('seed'))
    const learnedChunk = template.learnedChunk as ChunkLike
    let matches = 0
    for (let i = 0; i < 2000; i++) {
      let text = ''
      const length = Math.floor(random() * 6)
      for (let k = 0; k < length; k++) text += alphabet[Math.floor(random() * alphabet.length)]
      const data = chat(text)
      const outcome = template.match(data)
      expect(outcome).not.toBe(NO_MATCH)
      matches++
      const parsed = JSON.parse(data) as { choices: Array<{ delta: { content: string } }> }
      const carries = choiceCarriesOutput(parsed.choices[0])
      expect(outcome !== MATCH_WITHOUT_OUTPUT).toBe(carries)
      expect(outcome === MATCH_WITH_ANSWER).toBe(carries)
      if (carries) expect(template.answerText(data)).toBe(parsed.choices[0]!.delta.content)
      parsed.choices[0]!.delta.content = 'seed'
      expect(parsed).toEqual(learnedChunk)
    }
    expect(matches).toBe(2000)
  })
})
