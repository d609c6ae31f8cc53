import { OptionsError } from '../core/contract/errors.ts'
import { createRandom, deriveSeed, type Random } from '../core/platform/random.ts'

/**
 * The simulator's tokenizer rule, chosen so a workload can hit an exact prompt length:
 * text is split on whitespace; each word of up to 8 characters (Unicode code points) is one
 * token, a longer word counts ceil(length / 8). So N words of at most 8 characters, separated
 * by spaces, are exactly N tokens ({@link buildSimulatorText} builds such a text). Chat
 * requests count the text of every message, with no chat-template overhead.
 */
export const SIMULATOR_CHARS_PER_TOKEN = 8

const WORD = /\S+/gu

function codePoints(word: string): number {
  let n = 0
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i)
    // A low surrogate is the second half of a code point already counted.
    if (c < 0xdc00 || c > 0xdfff) n++
  }
  return n
}

/** Prompt tokens of a text under the simulator's rule (see {@link SIMULATOR_CHARS_PER_TOKEN}). */
export function countSimulatorTokens(text: string): number {
  let tokens = 0
  for (const match of text.matchAll(WORD)) tokens += Math.ceil(codePoints(match[0]) / SIMULATOR_CHARS_PER_TOKEN)
  return tokens
}

/**
 * The tokens of a text under the same rule, as strings: each word, a longer word cut into pieces
 * of 8 code points (the last one shorter). Always `countSimulatorTokens(text)` entries, so a
 * prefix-cache hash over them lines up with the token count.
 */
export function splitSimulatorTokens(text: string): string[] {
  const tokens: string[] = []
  for (const match of text.matchAll(WORD)) {
    const word = match[0]
    if (codePoints(word) <= SIMULATOR_CHARS_PER_TOKEN) {
      tokens.push(word)
      continue
    }
    // Array.from splits by code point, so a surrogate pair never straddles two pieces.
    const points = Array.from(word)
    for (let i = 0; i < points.length; i += SIMULATOR_CHARS_PER_TOKEN)
      tokens.push(points.slice(i, i + SIMULATOR_CHARS_PER_TOKEN).join(''))
  }
  return tokens
}

const ASCII_WORDS = [
  'the',
  'model',
  'serves',
  'tokens',
  'batch',
  'latency',
  'stream',
  'vector',
  'kernel',
  'cache',
  'decode',
  'prefill',
  'queue',
  'token',
  'server',
  'request',
  'sample',
  'tensor',
  'graph',
  'memory',
  'layer',
  'weight',
  'output',
  'input',
  'signal',
  'matrix',
  'block',
  'paged',
  'river',
  'stone',
  'light',
  'north',
  'quiet',
  'amber',
  'silver',
  'garden',
  'window',
  'paper',
  'orbit',
  'delta',
  'gamma',
  'sigma',
  'alpha',
  'beta',
  'echo',
  'pulse',
  'spark',
  'cloud',
  'a',
  'of',
  'and',
  'to',
  'in',
  'is',
  'on',
  'with',
  'fast',
  'slow',
  'warm',
  'cold',
  'bright',
  'dark',
  'open',
  'close',
] as const

// Multi-byte UTF-8 (2, 3 and 4 bytes) so clients are tested on split code points; all within 8 code points.
const MULTIBYTE_WORDS = [
  'café',
  'naïve',
  'über',
  'façade',
  'jalapeño',
  '字',
  '数据',
  '模型',
  '東京',
  'Ωmega',
  '🙂',
  'niño',
] as const

/** Share of output tokens drawn from the multi-byte words. */
const MULTIBYTE_SHARE = 1 / 16

function pick<T>(list: readonly T[], random: Random): T {
  return list[random.integer(list.length)] as T
}

/**
 * A reproducible stream of output-token texts. Each token is one space plus a word of at most 8
 * code points, so `countSimulatorTokens` of the output equals its token count.
 */
export function createTokenTextSource(seed: number): () => string {
  const random = createRandom(seed)
  return () => ' ' + (random.next() < MULTIBYTE_SHARE ? pick(MULTIBYTE_WORDS, random) : pick(ASCII_WORDS, random))
}

/** An ASCII text of exactly `tokens` simulator tokens (words joined by single spaces), reproducible from `seed`. */
export function buildSimulatorText(tokens: number, seed = 0): string {
  if (!Number.isInteger(tokens) || tokens < 0)
    throw new OptionsError(
      'tokens',
      `must be a non-negative integer, got ${tokens}`,
      'Pass the prompt length in whole tokens.',
    )
  const random = createRandom(deriveSeed(seed, 'prompt-text'))
  const words: string[] = new Array<string>(tokens)
  for (let i = 0; i < tokens; i++) words[i] = pick(ASCII_WORDS, random)
  return words.join(' ')
}
