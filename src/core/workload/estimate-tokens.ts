// The GPT-2 pre-tokenizer pattern less its whitespace pieces: BPE never merges across these
// pieces, so their count is a lower bound on the tokens of GPT-style tokenizers, and exact for
// the common English words synthetic prompts are built from.
const PRE_TOKEN = /'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+/gu

/** Estimated tokens of `text`: its GPT-2 pre-tokens (words, numbers, runs of punctuation). */
export function estimateTokens(text: string): number {
  return text.match(PRE_TOKEN)?.length ?? 0
}
