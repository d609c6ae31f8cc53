import { writeFileSync, renameSync } from 'node:fs'
import { GgmlType, GgufValueType, type GgufValue } from './gguf-format.ts'
import { readGguf } from './gguf-reader.ts'
import { encodeGguf, type GgufTensor } from './gguf-writer.ts'

/** Shape and seed of the generated model. Defaults give a file of about 8.5 MB with a 32000-token vocabulary. */
export interface TinyLlamaOptions {
  /** A vocab-only GGUF of llama.cpp's source tree, e.g. `models/ggml-vocab-llama-spm.gguf`. */
  vocabPath: string
  /** Where the model is written (atomically: a temporary file, then a rename). */
  outputPath: string
  /** Seed of the random weights. Default 1. */
  seed?: number
  /** Width of the residual stream. Default 64. */
  embeddingLength?: number
  /** Transformer blocks. Default 2. */
  blockCount?: number
  /** Attention heads (also the key/value heads). Default 4. */
  headCount?: number
  /** Hidden width of the feed-forward block. Default 128. */
  feedForwardLength?: number
  /** Context the model claims to be trained for, tokens. Default 2048. */
  contextLength?: number
  /** Tokens appended to the vocabulary, after its own (ids from its size on). Default none. */
  addedTokens?: readonly AddedToken[]
  /** Metadata written after the vocabulary's, replacing keys of the same name (a chat template, tokenizer flags). */
  metadata?: ReadonlyMap<string, GgufValue>
  /** Logits the output matrix gives, beyond the default suppression of every token that is not ordinary text. */
  shapeOutput?: (vocabulary: Vocabulary) => OutputShape
}

/** A token appended to a vocabulary. */
export interface AddedToken {
  /** Its text, as the tokenizer matches it whole (`<tool_call>`). */
  piece: string
  /** GGUF `token_type`: {@link TOKEN_TYPE_CONTROL} or {@link TOKEN_TYPE_USER_DEFINED}. */
  type: typeof TOKEN_TYPE_CONTROL | typeof TOKEN_TYPE_USER_DEFINED
}

/** The model's final vocabulary, added tokens included: what {@link OutputShape} entries are resolved against. */
export interface Vocabulary {
  /** Pieces by token id, as stored (SentencePiece's `▁` for a space). */
  pieces: readonly string[]
  /** GGUF `token_type` by token id. */
  types: readonly number[]
  /** Id of a piece; throws when the vocabulary lacks it. */
  id(piece: string): number
}

/**
 * Where the random output is overruled. Logits here are added to the random part (standard deviation
 * about 1.6) and scaled by the final norm like it (by about 1 +- 10 %).
 */
export interface OutputShape {
  /** A token's logit wherever it may come, instead of 0 (ordinary text) or {@link SUPPRESS_LOGIT} (any other). */
  logits?: ReadonlyArray<{ token: number; logit: number }>
  /** Logits that hold only right after given tokens, each carried by a channel of its own. */
  cues?: readonly OutputCue[]
}

/**
 * A cue: right after any token of `after`, `token`'s logit is `logit` instead of its constant one. The
 * embedding of each `after` token carries 1 on the cue's own channel of the residual stream, which no
 * block writes to and only `token`'s output row reads, so the cue looks one token back and no further.
 */
export interface OutputCue {
  after: readonly number[]
  token: number
  logit: number
}

/** What was written. */
export interface TinyLlamaSummary {
  bytes: number
  tensorCount: number
  vocabularySize: number
  /** Tokens the model never emits: byte-fallback, control, unknown and unused tokens. */
  suppressedTokens: number
}

/** GGUF `token_type` of an ordinary text piece; every other type is kept out of the output unless shaped. */
const TOKEN_TYPE_NORMAL = 1
/** GGUF `token_type` of a control token (`<s>`, `<|im_end|>`): rendered only on request, never in plain text. */
export const TOKEN_TYPE_CONTROL = 3
/** GGUF `token_type` of a user-defined token: matched whole in any text and rendered as its text. */
export const TOKEN_TYPE_USER_DEFINED = 4
/** Logit of a token that is not ordinary text (bytes, control tokens) unless {@link OutputShape} says otherwise. */
export const SUPPRESS_LOGIT = -1000

/**
 * Writes a llama-architecture GGUF with seeded random weights and the tokenizer of `vocabPath`.
 *
 * Its output is noise, but it must be noise llama-server can stream: a byte-fallback token alone
 * is not valid UTF-8 and makes the server end the stream with an error, and an end-of-text token
 * would cut the requested length short. So one channel of the residual stream (`BIAS_CHANNEL`)
 * carries a constant that no block writes to, and the output matrix turns it into a large negative
 * logit for every token that is not an ordinary text piece.
 */
export function writeTinyLlamaModel(options: TinyLlamaOptions): TinyLlamaSummary {
  const nEmbd = options.embeddingLength ?? 64
  const nLayer = options.blockCount ?? 2
  const nHead = options.headCount ?? 4
  const nFf = options.feedForwardLength ?? 128
  const nCtx = options.contextLength ?? 2048
  if (nEmbd % nHead !== 0) throw new Error(`embeddingLength ${nEmbd} must be a multiple of headCount ${nHead}`)
  const random = seededNormal(options.seed ?? 1)

  const vocab = readGguf(options.vocabPath)
  const list = (key: string): Extract<GgufValue, { type: typeof GgufValueType.ARRAY }> | undefined => {
    const entry = vocab.metadata.get(key)
    return entry?.type === GgufValueType.ARRAY ? entry : undefined
  }
  const stored = {
    pieces: list('tokenizer.ggml.tokens'),
    scores: list('tokenizer.ggml.scores'),
    types: list('tokenizer.ggml.token_type'),
  }
  if (stored.types === undefined)
    throw new Error(
      `${options.vocabPath} has no tokenizer.ggml.token_type: use a vocab GGUF such as models/ggml-vocab-llama-spm.gguf`,
    )
  const added = options.addedTokens ?? []
  const tokenTypes = [...stored.types.value.map(Number), ...added.map((token) => token.type)]
  const nVocab = tokenTypes.length

  const metadata = new Map<string, GgufValue>([
    ['general.architecture', str('llama')],
    ['general.name', str('vitest-llm-bench tiny llama (random weights)')],
    [
      'general.description',
      str(`Random weights (seed ${options.seed ?? 1}) for testing servers; its output is noise.`),
    ],
    // 1 = mostly F16: the two vocabulary-sized matrices are F16, the rest F32.
    ['general.file_type', u32(1)],
    ['llama.context_length', u32(nCtx)],
    ['llama.embedding_length', u32(nEmbd)],
    ['llama.block_count', u32(nLayer)],
    ['llama.feed_forward_length', u32(nFf)],
    ['llama.attention.head_count', u32(nHead)],
    ['llama.attention.head_count_kv', u32(nHead)],
    ['llama.rope.dimension_count', u32(nEmbd / nHead)],
    ['llama.rope.freq_base', f32(10000)],
    ['llama.attention.layer_norm_rms_epsilon', f32(1e-5)],
    ['llama.vocab_size', u32(nVocab)],
  ])
  for (const [key, value] of vocab.metadata) {
    if (key.startsWith('tokenizer.')) metadata.set(key, value)
  }
  const pieces = (stored.pieces?.value ?? []).map(String)
  if (added.length > 0) {
    if (stored.pieces === undefined || stored.scores === undefined)
      throw new Error(`${options.vocabPath} has no tokenizer.ggml.tokens and scores to add tokens to`)
    pieces.push(...added.map((token) => token.piece))
    metadata.set('tokenizer.ggml.tokens', { ...stored.pieces, value: pieces })
    metadata.set('tokenizer.ggml.scores', { ...stored.scores, value: [...stored.scores.value, ...added.map(() => 0)] })
    metadata.set('tokenizer.ggml.token_type', { ...stored.types, value: tokenTypes })
  }
  for (const [key, value] of options.metadata ?? []) metadata.set(key, value)

  const BIAS_CHANNEL = nEmbd - 1
  const ones = (n: number): Float32Array => new Float32Array(n).fill(1)
  const gaussian = (n: number, std: number): Float32Array => {
    const a = new Float32Array(n)
    for (let i = 0; i < n; i++) a[i] = random() * std
    return a
  }
  // Channels no block writes to: the bias channel, then one per cue below it.
  const reserved: number[] = [BIAS_CHANNEL]
  const zeroReservedRows = (matrix: Float32Array, rowLength: number): Float32Array => {
    for (const row of reserved) matrix.fill(0, row * rowLength, (row + 1) * rowLength)
    return matrix
  }

  // Rows of a ggml matrix {ne0, ne1} are ne1 rows of ne0 values: token_embd row t is token t's vector.
  const tokenEmbedding = gaussian(nEmbd * nVocab, 1)
  const output = gaussian(nEmbd * nVocab, 0.2)
  const constantLogit = (t: number): number => (tokenTypes[t] === TOKEN_TYPE_NORMAL ? 0 : SUPPRESS_LOGIT)
  let suppressed = 0
  for (let t = 0; t < nVocab; t++) {
    tokenEmbedding[t * nEmbd + BIAS_CHANNEL] = 1
    output[t * nEmbd + BIAS_CHANNEL] = constantLogit(t)
    if (constantLogit(t) !== 0) suppressed++
  }
  if (suppressed === nVocab) throw new Error(`${options.vocabPath} has no ordinary (token_type 1) tokens`)
  const shape = options.shapeOutput?.(vocabularyOf(pieces, tokenTypes)) ?? {}
  const checkToken = (t: number): number => {
    if (!Number.isInteger(t) || t < 0 || t >= nVocab) throw new Error(`token ${t} is not in the vocabulary`)
    return t
  }
  for (const { token, logit } of shape.logits ?? []) {
    const t = checkToken(token)
    if (constantLogit(t) !== 0 && logit > SUPPRESS_LOGIT) suppressed--
    output[t * nEmbd + BIAS_CHANNEL] = logit
  }
  const cues = shape.cues ?? []
  if (cues.length > nEmbd / 4) throw new Error(`${cues.length} cues: at most ${nEmbd / 4} fit a ${nEmbd}-wide model`)
  cues.forEach((cue, i) => {
    const channel = BIAS_CHANNEL - 1 - i
    reserved.push(channel)
    const after = new Set(cue.after.map(checkToken))
    for (let t = 0; t < nVocab; t++) {
      tokenEmbedding[t * nEmbd + channel] = after.has(t) ? 1 : 0
      output[t * nEmbd + channel] = 0
    }
    const t = checkToken(cue.token)
    output[t * nEmbd + channel] = cue.logit - output[t * nEmbd + BIAS_CHANNEL]!
  })

  const tensors: GgufTensor[] = [
    tensor('token_embd.weight', [nEmbd, nVocab], tokenEmbedding, GgmlType.F16),
    tensor('output_norm.weight', [nEmbd], ones(nEmbd)),
    tensor('output.weight', [nEmbd, nVocab], output, GgmlType.F16),
  ]
  const std = 0.02
  for (let i = 0; i < nLayer; i++) {
    const blk = `blk.${i}`
    tensors.push(
      tensor(`${blk}.attn_norm.weight`, [nEmbd], ones(nEmbd)),
      tensor(`${blk}.attn_q.weight`, [nEmbd, nEmbd], gaussian(nEmbd * nEmbd, std)),
      tensor(`${blk}.attn_k.weight`, [nEmbd, nEmbd], gaussian(nEmbd * nEmbd, std)),
      tensor(`${blk}.attn_v.weight`, [nEmbd, nEmbd], gaussian(nEmbd * nEmbd, std)),
      // The reserved rows of each block's last projection are zero, so their constants survive every block.
      tensor(`${blk}.attn_output.weight`, [nEmbd, nEmbd], zeroReservedRows(gaussian(nEmbd * nEmbd, std), nEmbd)),
      tensor(`${blk}.ffn_norm.weight`, [nEmbd], ones(nEmbd)),
      tensor(`${blk}.ffn_gate.weight`, [nEmbd, nFf], gaussian(nEmbd * nFf, std)),
      tensor(`${blk}.ffn_up.weight`, [nEmbd, nFf], gaussian(nEmbd * nFf, std)),
      tensor(`${blk}.ffn_down.weight`, [nFf, nEmbd], zeroReservedRows(gaussian(nFf * nEmbd, std), nFf)),
    )
  }

  const bytes = encodeGguf(metadata, tensors)
  const tmp = `${options.outputPath}.tmp-${process.pid}`
  writeFileSync(tmp, bytes)
  renameSync(tmp, options.outputPath)
  return { bytes: bytes.length, tensorCount: tensors.length, vocabularySize: nVocab, suppressedTokens: suppressed }
}

function vocabularyOf(pieces: readonly string[], types: readonly number[]): Vocabulary {
  const ids = new Map<string, number>()
  pieces.forEach((piece, id) => {
    if (!ids.has(piece)) ids.set(piece, id)
  })
  return {
    pieces,
    types,
    id(piece) {
      const id = ids.get(piece)
      if (id === undefined) throw new Error(`the vocabulary has no token ${JSON.stringify(piece)}`)
      return id
    },
  }
}

function tensor(name: string, dims: number[], values: Float32Array, type: GgmlType = GgmlType.F32): GgufTensor {
  if (type === GgmlType.F32)
    return { name, dims, type, data: Buffer.from(values.buffer, values.byteOffset, values.byteLength) }
  const half = new Uint16Array(values.length)
  for (let i = 0; i < values.length; i++) half[i] = toFloat16Bits(values[i]!)
  return { name, dims, type, data: Buffer.from(half.buffer) }
}

const f32Scratch = new Float32Array(1)
const u32Scratch = new Uint32Array(f32Scratch.buffer)

/** IEEE 754 binary16 bits of a number, rounded to nearest (ties away from zero; fine for random weights). */
export function toFloat16Bits(value: number): number {
  f32Scratch[0] = value
  const x = u32Scratch[0]!
  const sign = (x >>> 16) & 0x8000
  const exponent = ((x >>> 23) & 0xff) - 127 + 15
  const mantissa = x & 0x7fffff
  if (((x >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0)
  if (exponent >= 31) return sign | 0x7c00
  if (exponent <= 0) {
    if (exponent < -10) return sign
    const full = mantissa | 0x800000
    const shift = 14 - exponent
    let half = full >>> shift
    if ((full >>> (shift - 1)) & 1) half++
    return sign | half
  }
  let half = sign | (exponent << 10) | (mantissa >>> 13)
  // A carry out of the mantissa correctly bumps the exponent.
  if (mantissa & 0x1000) half++
  return half
}

/** Standard normal samples from a seeded mulberry32 stream (Box-Muller). */
function seededNormal(seed: number): () => number {
  let state = seed >>> 0
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296
  }
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform())
}

function str(value: string): GgufValue {
  return { type: GgufValueType.STRING, value }
}

function u32(value: number): GgufValue {
  return { type: GgufValueType.UINT32, value }
}

function f32(value: number): GgufValue {
  return { type: GgufValueType.FLOAT32, value }
}
