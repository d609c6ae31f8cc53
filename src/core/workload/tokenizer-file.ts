import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Tokenizer as HfTokenizer } from '@huggingface/tokenizers'
import { WorkloadError } from '../contract/errors.ts'
import type { CountTokens } from './workload.ts'

/**
 * A token counter from a local HuggingFace `tokenizer.json` (with the `tokenizer_config.json`
 * beside it, when present), via `@huggingface/tokenizers`: pure JavaScript, no download, no
 * native code. Special tokens are not counted: the server adds its own (BOS, chat template).
 */
export async function loadTokenizerCounter(path: string): Promise<CountTokens> {
  let json: unknown
  try {
    json = JSON.parse(await readFile(path, 'utf8'))
  } catch (error) {
    const code = (error as { code?: string }).code
    const problem =
      code === 'ENOENT'
        ? 'not found'
        : error instanceof SyntaxError
          ? `is not valid JSON (${error.message})`
          : `cannot be read (${(error as Error).message})`
    throw new WorkloadError(
      `tokenizer file ${problem}. Point \`workload.tokenizer\` at the model's tokenizer.json (e.g. from its HuggingFace repository), or leave it out to estimate token counts.`,
      {
        path,
      },
    )
  }
  let config: unknown = {}
  try {
    config = JSON.parse(await readFile(join(dirname(path), 'tokenizer_config.json'), 'utf8'))
  } catch {
    // Optional: tokenizer.json alone is enough to count tokens.
  }
  let Tokenizer: typeof HfTokenizer
  try {
    ;({ Tokenizer } = await import('@huggingface/tokenizers'))
  } catch (error) {
    throw new WorkloadError(
      `\`workload.tokenizer\` needs the package @huggingface/tokenizers, which could not be loaded (${(error as Error).message}). Install it with \`npm install @huggingface/tokenizers\`.`,
      { path },
    )
  }
  let tokenizer: HfTokenizer
  try {
    tokenizer = new Tokenizer(json as object, config as object)
    tokenizer.encode('probe', { add_special_tokens: false })
  } catch (error) {
    throw new WorkloadError(
      `not a tokenizer.json that @huggingface/tokenizers can load (${(error as Error).message}). Use the tokenizer.json of the served model.`,
      { path },
    )
  }
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length
}
