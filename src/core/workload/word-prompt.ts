import type { Random } from '../platform/random.ts'
import { COMMON_WORDS } from './common-words.ts'
import type { CountTokens } from './workload.ts'

/**
 * Builds prompts of an exact token length out of common words. The words kept are those that
 * cost exactly one token after a space under the run's counter, so N words are N tokens: no
 * tokenizer call per request, and the BPE merges of GPT-style tokenizers never cross the spaces.
 */
export class WordPromptBuilder {
  readonly words: readonly string[]
  /** Tokens of the salt at the start of a prompt (0 without salt). */
  readonly saltTokens: number
  readonly salt: string

  constructor(countTokens: CountTokens, salt: string) {
    const base = countTokens('the')
    const oneToken = COMMON_WORDS.filter((word) => countTokens(`the ${word}`) - base === 1)
    // A counter that splits every word (an unusual tokenizer) keeps the full list: lengths are then approximate.
    this.words = oneToken.length >= 32 ? oneToken : COMMON_WORDS
    this.salt = salt
    this.saltTokens = salt === '' ? 0 : countTokens(salt)
  }

  /** `count` words drawn with `random`, joined by spaces. */
  randomWords(random: Random, count: number): string {
    const out = new Array<string>(count)
    for (let i = 0; i < count; i++) out[i] = this.words[random.integer(this.words.length)] as string
    return out.join(' ')
  }

  /** Joins the salt and the parts with single spaces, skipping empty parts. */
  join(...parts: string[]): string {
    return [this.salt, ...parts].filter((part) => part !== '').join(' ')
  }
}
