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
}

/** What was written. */
export interface TinyLlamaSummary {
  bytes: number
  tensorCount: number
  vocabularySize: number
  /** Tokens the model never emits: byte-fallback, control, unknown and unused tokens. */
  suppressedTokens: number
}

/** GGUF `token_type` of an ordinary text piece; every other type is kept out of the output. */
const TOKEN_TYPE_NORMAL = 1

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
  const tokenTypes = vocab.metadata.get('tokenizer.ggml.token_type')?.value
  if (!Array.isArray(tokenTypes))
    throw new Error(
      `${options.vocabPath} has no tokenizer.ggml.token_type: use a vocab GGUF such as models/ggml-vocab-llama-spm.gguf`,
    )
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

  const BIAS_CHANNEL = nEmbd - 1
  const SUPPRESS_LOGIT = -1000
  const ones = (n: number): Float32Array => new Float32Array(n).fill(1)
  const gaussian = (n: number, std: number): Float32Array => {
    const a = new Float32Array(n)
    for (let i = 0; i < n; i++) a[i] = random() * std
    return a
  }
  const zeroRow = (matrix: Float32Array, rowLength: number, row: number): Float32Array => {
    matrix.fill(0, row * rowLength, (row + 1) * rowLength)
    return matrix
  }

  // Rows of a ggml matrix {ne0, ne1} are ne1 rows of ne0 values: token_embd row t is token t's vector.
  const tokenEmbedding = gaussian(nEmbd * nVocab, 1)
  const output = gaussian(nEmbd * nVocab, 0.2)
  let suppressed = 0
  for (let t = 0; t < nVocab; t++) {
    tokenEmbedding[t * nEmbd + BIAS_CHANNEL] = 1
    const normal = tokenTypes[t] === TOKEN_TYPE_NORMAL
    output[t * nEmbd + BIAS_CHANNEL] = normal ? 0 : SUPPRESS_LOGIT
    if (!normal) suppressed++
  }
  if (suppressed === nVocab) throw new Error(`${options.vocabPath} has no ordinary (token_type 1) tokens`)

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
      // Row BIAS_CHANNEL of each block's last projection is zero, so the constant survives every block.
      tensor(`${blk}.attn_output.weight`, [nEmbd, nEmbd], zeroRow(gaussian(nEmbd * nEmbd, std), nEmbd, BIAS_CHANNEL)),
      tensor(`${blk}.ffn_norm.weight`, [nEmbd], ones(nEmbd)),
      tensor(`${blk}.ffn_gate.weight`, [nEmbd, nFf], gaussian(nEmbd * nFf, std)),
      tensor(`${blk}.ffn_up.weight`, [nEmbd, nFf], gaussian(nEmbd * nFf, std)),
      tensor(`${blk}.ffn_down.weight`, [nFf, nEmbd], zeroRow(gaussian(nFf * nEmbd, std), nFf, BIAS_CHANNEL)),
    )
  }

  const bytes = encodeGguf(metadata, tensors)
  const tmp = `${options.outputPath}.tmp-${process.pid}`
  writeFileSync(tmp, bytes)
  renameSync(tmp, options.outputPath)
  return { bytes: bytes.length, tensorCount: tensors.length, vocabularySize: nVocab, suppressedTokens: suppressed }
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
