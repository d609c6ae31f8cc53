import { readFileSync } from 'node:fs'
import { GgufValueType } from './gguf-format.ts'
import {
  TOKEN_TYPE_CONTROL,
  TOKEN_TYPE_USER_DEFINED,
  writeTinyLlamaModel,
  type OutputShape,
  type TinyLlamaSummary,
  type Vocabulary,
} from './tiny-model.ts'

/** Where the tool model's parts come from: both files of llama.cpp's source tree. */
export interface TinyToolModelOptions {
  /** A vocab-only GGUF, `models/ggml-vocab-llama-spm.gguf`. */
  vocabPath: string
  /** Hermes 2 Pro's tool-use template, `models/templates/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja`. */
  templatePath: string
  /** Where the model is written (atomically). */
  outputPath: string
  /** Seed of the random weights. Default 1. */
  seed?: number
}

/** The tool model's template, relative to the root of llama.cpp's source tree. */
export const TOOL_TEMPLATE_FILE = 'models/templates/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja'

/**
 * Tokens the Hermes 2 Pro format needs whole: ChatML's turn markers (control tokens, so `<|im_end|>`
 * is llama.cpp's end of turn) and the call markers (user-defined, so they stream as text).
 */
export const TOOL_MODEL_ADDED_TOKENS = [
  { piece: '<|im_start|>', type: TOKEN_TYPE_CONTROL },
  { piece: '<|im_end|>', type: TOKEN_TYPE_CONTROL },
  { piece: '<tool_call>', type: TOKEN_TYPE_USER_DEFINED },
  { piece: '</tool_call>', type: TOKEN_TYPE_USER_DEFINED },
] as const

/** Logit of a token a cue calls for: far above the random part (max about 7 over the vocabulary). */
const CUED_LOGIT = 30
/**
 * Logit of `}` after a token ending in `}` (below {@link CUED_LOGIT}: `</tool_call>` wins where allowed),
 * and of `"` after a token ending in `:`.
 */
const CLOSE_LOGIT = 20
/**
 * Constant logits of the pieces that end a JSON string: inside one, where the grammar allows almost any
 * piece, `"}` (the last value: the arguments close with it) or `",` (a value before another) ends it
 * after a few tokens; a bare `"` is the last resort, as a `"` followed by `}},` would open a second call.
 */
const STRING_END_LOGITS = { '"}': 8, '",': 6, '"': 3 } as const

/**
 * Writes the tiny llama model (same shape and seed) with a vocabulary and chat template for tool calls:
 * the 32,000 SentencePiece tokens plus {@link TOOL_MODEL_ADDED_TOKENS}, Hermes 2 Pro's template (which
 * llama.cpp's differential parser reads as `<tool_call>` JSON calls), and no space prefix, so the
 * generation prompt `<|im_start|>assistant\n` tokenizes to pieces the tool-call grammar accepts.
 *
 * Its weights stay random except where a call needs them (see {@link toolCallShape}).
 */
export function writeTinyToolModel(options: TinyToolModelOptions): TinyLlamaSummary {
  const template = readFileSync(options.templatePath, 'utf8')
  if (!template.includes('<tool_call>'))
    throw new Error(`${options.templatePath} is not a Hermes-style tool template (no <tool_call>)`)
  return writeTinyLlamaModel({
    vocabPath: options.vocabPath,
    outputPath: options.outputPath,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    addedTokens: TOOL_MODEL_ADDED_TOKENS,
    metadata: new Map([
      ['general.name', { type: GgufValueType.STRING, value: 'vitest-llm-bench tiny tool llama (random weights)' }],
      ['tokenizer.chat_template', { type: GgufValueType.STRING, value: template }],
      // SentencePiece would put a space before the text after each control token: "<|im_start|>▁assistant".
      ['tokenizer.ggml.add_space_prefix', { type: GgufValueType.BOOL, value: false }],
    ]),
    shapeOutput: toolCallShape,
  })
}

/**
 * Where the random output is overruled so that a call, once the grammar holds the reply to one, also
 * ends: at the start of a reply (after the prompt's last `\n`) `<tool_call>` comes first, then `\n`;
 * a value opens with `"` after a colon and closes soon (`"}` or `",`); after a token ending in `}`
 * comes `</tool_call>` where the call may end, else `}` (so the call object closes rather than a second
 * call opening with `,`); after `</tool_call>`, `<|im_end|>`. The grammar masks every cue where it does not fit, so a cue never
 * breaks the JSON; without a grammar (no tools) the reply opens with `<tool_call>` as text.
 */
export function toolCallShape(vocabulary: Vocabulary): OutputShape {
  const endsWith = (end: string): number[] =>
    vocabulary.pieces.flatMap((piece, id) => (piece.endsWith(end) && vocabulary.types[id] === 1 ? [id] : []))
  const closesBrace = endsWith('}')
  const newline = vocabulary.id('<0x0A>')
  return {
    logits: Object.entries(STRING_END_LOGITS).map(([piece, logit]) => ({ token: vocabulary.id(piece), logit })),
    cues: [
      { after: [newline], token: vocabulary.id('<tool_call>'), logit: CUED_LOGIT },
      // The grammar lets free text go on after `<tool_call>` unless a newline follows: the format is `<tool_call>\n{`.
      { after: [vocabulary.id('<tool_call>')], token: newline, logit: CUED_LOGIT },
      // A value opens with a bare `"`, not with `"}` (an empty string) or with `}` as its first character.
      { after: endsWith(':'), token: vocabulary.id('"'), logit: CLOSE_LOGIT },
      { after: closesBrace, token: vocabulary.id('</tool_call>'), logit: CUED_LOGIT },
      { after: closesBrace, token: vocabulary.id('}'), logit: CLOSE_LOGIT },
      { after: [vocabulary.id('</tool_call>')], token: vocabulary.id('<|im_end|>'), logit: CUED_LOGIT },
    ],
  }
}
