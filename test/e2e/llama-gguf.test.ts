// The GGUF reader/writer and the tiny-model generator of scripts/llama/, without llama.cpp: a
// small vocabulary GGUF is written here, the model generated from it, and both read back.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { GgmlType, GgufValueType, type GgufValue } from '../../scripts/llama/gguf-format.ts'
import { parseGguf, readGguf } from '../../scripts/llama/gguf-reader.ts'
import { encodeGguf } from '../../scripts/llama/gguf-writer.ts'
import { toFloat16Bits, writeTinyLlamaModel } from '../../scripts/llama/tiny-model.ts'

const dir = mkdtempSync(join(tmpdir(), 'llama-gguf-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// unk, bos, eos, two byte tokens, then ordinary pieces (token_type: 2 unknown, 3 control, 6 byte, 1 normal).
const TOKENS = ['<unk>', '<s>', '</s>', '<0x00>', '<0xFF>', '▁the', '▁a', 'é', '▁日本', 'ing']
const TYPES = [2, 3, 3, 6, 6, 1, 1, 1, 1, 1]

function writeVocab(path: string): void {
  const metadata = new Map<string, GgufValue>([
    ['general.architecture', { type: GgufValueType.STRING, value: 'llama' }],
    ['llama.context_length', { type: GgufValueType.UINT32, value: 4096 }],
    ['tokenizer.ggml.model', { type: GgufValueType.STRING, value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: GgufValueType.ARRAY, itemType: GgufValueType.STRING, value: TOKENS }],
    [
      'tokenizer.ggml.scores',
      { type: GgufValueType.ARRAY, itemType: GgufValueType.FLOAT32, value: TOKENS.map((_, i) => -i) },
    ],
    ['tokenizer.ggml.token_type', { type: GgufValueType.ARRAY, itemType: GgufValueType.INT32, value: TYPES }],
    ['tokenizer.ggml.bos_token_id', { type: GgufValueType.UINT32, value: 1 }],
    ['tokenizer.ggml.add_bos_token', { type: GgufValueType.BOOL, value: true }],
    ['tokenizer.big', { type: GgufValueType.UINT64, value: 2n ** 40n + 3n }],
  ])
  writeFileSync(path, encodeGguf(metadata, []))
}

function f16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1
  const exponent = (bits >> 10) & 0x1f
  const mantissa = bits & 0x3ff
  if (exponent === 0) return sign * mantissa * 2 ** -24
  if (exponent === 31) return mantissa ? Number.NaN : sign * Infinity
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15)
}

describe('GGUF writer and reader', () => {
  test('metadata of every type and tensors survive a round trip, tensor data aligned to 32 bytes', () => {
    const metadata = new Map<string, GgufValue>([
      ['a.u8', { type: GgufValueType.UINT8, value: 255 }],
      ['a.i8', { type: GgufValueType.INT8, value: -128 }],
      ['a.u16', { type: GgufValueType.UINT16, value: 65535 }],
      ['a.i16', { type: GgufValueType.INT16, value: -32768 }],
      ['a.i32', { type: GgufValueType.INT32, value: -5 }],
      ['a.f64', { type: GgufValueType.FLOAT64, value: 0.1 }],
      ['a.i64', { type: GgufValueType.INT64, value: -(2n ** 62n) }],
      ['a.bool', { type: GgufValueType.BOOL, value: false }],
      ['a.text', { type: GgufValueType.STRING, value: 'naïve ✓' }],
    ])
    const data = new Float32Array([1, -2, 3.5])
    const bytes = encodeGguf(metadata, [
      { name: 'x', dims: [3], type: GgmlType.F32, data: Buffer.from(data.buffer) },
      { name: 'y', dims: [2, 1], type: GgmlType.F16, data: Buffer.from(new Uint16Array([0x3c00, 0xc000]).buffer) },
    ])
    const file = parseGguf(bytes)
    expect(file.version).toBe(3)
    expect([...file.metadata]).toEqual([...metadata])
    expect(file.tensors.map((t) => [t.name, t.dims, t.type, t.offset])).toEqual([
      ['x', [3], GgmlType.F32, 0n],
      ['y', [2, 1], GgmlType.F16, 32n],
    ])
    expect(file.dataOffset % 32).toBe(0)
    expect(bytes.readFloatLE(file.dataOffset + 4)).toBe(-2)
    expect(bytes.readUInt16LE(file.dataOffset + 32 + 2)).toBe(0xc000)
  })

  test('rejects a file that is not GGUF, and a truncated one, with a message', () => {
    expect(() => parseGguf(Buffer.from('not a gguf file at all'))).toThrow(/not a GGUF file/)
    const whole = encodeGguf(new Map([['k', { type: GgufValueType.STRING, value: 'value' }]]), [])
    expect(() => parseGguf(whole.subarray(0, 40))).toThrow(/truncated/)
  })

  test('refuses tensor data that does not match the shape', () => {
    expect(() => encodeGguf(new Map(), [{ name: 'w', dims: [4], type: GgmlType.F32, data: Buffer.alloc(12) }])).toThrow(
      /w: 12 bytes .* needs 16/,
    )
  })

  test('float16 conversion: exact values, rounding, subnormals, overflow', () => {
    expect(toFloat16Bits(1)).toBe(0x3c00)
    expect(toFloat16Bits(-2)).toBe(0xc000)
    expect(toFloat16Bits(0)).toBe(0)
    expect(toFloat16Bits(65504)).toBe(0x7bff)
    expect(toFloat16Bits(1e6)).toBe(0x7c00)
    expect(toFloat16Bits(-1000)).toBe(0xe3d0)
    expect(toFloat16Bits(2 ** -24)).toBe(0x0001)
    expect(toFloat16Bits(1e-9)).toBe(0)
    for (const x of [0.1, -0.7531, 3.14159, 1e-5, 123.456]) {
      expect(Math.abs(f16ToNumber(toFloat16Bits(x)) - x)).toBeLessThanOrEqual(Math.abs(x) * 2 ** -11 + 2 ** -25)
    }
  })
})

describe('tiny llama model generator', () => {
  const vocabPath = join(dir, 'vocab.gguf')
  const modelPath = join(dir, 'model.gguf')
  writeVocab(vocabPath)
  const summary = writeTinyLlamaModel({
    vocabPath,
    outputPath: modelPath,
    embeddingLength: 16,
    blockCount: 2,
    headCount: 2,
    feedForwardLength: 24,
    seed: 7,
  })
  const model = readGguf(modelPath)
  const tensor = (name: string) => {
    const t = model.tensors.find((x) => x.name === name)
    if (!t) throw new Error(`no tensor ${name}`)
    return t
  }
  const f16At = (name: string, index: number) =>
    f16ToNumber(model.bytes.readUInt16LE(model.dataOffset + Number(tensor(name).offset) + index * 2))
  const f32At = (name: string, index: number) =>
    model.bytes.readFloatLE(model.dataOffset + Number(tensor(name).offset) + index * 4)

  test('llama hyperparameters, and the tokenizer copied from the vocabulary file unchanged', () => {
    expect(model.metadata.get('general.architecture')?.value).toBe('llama')
    expect(model.metadata.get('llama.embedding_length')?.value).toBe(16)
    expect(model.metadata.get('llama.block_count')?.value).toBe(2)
    expect(model.metadata.get('llama.attention.head_count')?.value).toBe(2)
    expect(model.metadata.get('llama.rope.dimension_count')?.value).toBe(8)
    expect(model.metadata.get('llama.vocab_size')?.value).toBe(TOKENS.length)
    expect(model.metadata.get('tokenizer.ggml.tokens')?.value).toEqual(TOKENS)
    expect(model.metadata.get('tokenizer.ggml.token_type')).toEqual({
      type: GgufValueType.ARRAY,
      itemType: GgufValueType.INT32,
      value: TYPES,
    })
    expect(model.metadata.get('tokenizer.big')).toEqual({ type: GgufValueType.UINT64, value: 2n ** 40n + 3n })
    // The vocabulary file's own hyperparameters (a 7B's) must not leak into the tiny model.
    expect(model.metadata.get('llama.context_length')?.value).toBe(2048)
    expect(summary).toMatchObject({ vocabularySize: TOKENS.length, suppressedTokens: 5, tensorCount: 3 + 2 * 9 })
  })

  test('tensor shapes and types are those llama.cpp loads for the llama architecture', () => {
    expect(tensor('token_embd.weight')).toMatchObject({ dims: [16, TOKENS.length], type: GgmlType.F16 })
    expect(tensor('output.weight')).toMatchObject({ dims: [16, TOKENS.length], type: GgmlType.F16 })
    expect(tensor('output_norm.weight')).toMatchObject({ dims: [16], type: GgmlType.F32 })
    expect(tensor('blk.1.attn_k.weight')).toMatchObject({ dims: [16, 16], type: GgmlType.F32 })
    expect(tensor('blk.1.ffn_gate.weight')).toMatchObject({ dims: [16, 24], type: GgmlType.F32 })
    expect(tensor('blk.1.ffn_down.weight')).toMatchObject({ dims: [24, 16], type: GgmlType.F32 })
    expect(model.bytes.length).toBe(summary.bytes)
  })

  test('the bias channel is constant in every embedding, untouched by the blocks, and suppresses exactly the non-text tokens', () => {
    const channel = 15
    for (let t = 0; t < TOKENS.length; t++) {
      expect(f16At('token_embd.weight', t * 16 + channel)).toBe(1)
      expect(f16At('output.weight', t * 16 + channel)).toBe(TYPES[t] === 1 ? 0 : -1000)
    }
    for (const name of ['blk.0.attn_output.weight', 'blk.1.attn_output.weight']) {
      for (let i = 0; i < 16; i++) expect(f32At(name, channel * 16 + i)).toBe(0)
    }
    for (let i = 0; i < 24; i++) expect(f32At('blk.1.ffn_down.weight', channel * 24 + i)).toBe(0)
    // Other rows are random, not zero.
    expect(f32At('blk.1.attn_output.weight', 0)).not.toBe(0)
  })

  test('the same seed writes the same bytes; another seed other weights', () => {
    const again = join(dir, 'again.gguf')
    const other = join(dir, 'other.gguf')
    writeTinyLlamaModel({
      vocabPath,
      outputPath: again,
      embeddingLength: 16,
      blockCount: 2,
      headCount: 2,
      feedForwardLength: 24,
      seed: 7,
    })
    writeTinyLlamaModel({
      vocabPath,
      outputPath: other,
      embeddingLength: 16,
      blockCount: 2,
      headCount: 2,
      feedForwardLength: 24,
      seed: 8,
    })
    expect(readGguf(again).bytes.equals(model.bytes)).toBe(true)
    expect(readGguf(other).bytes.equals(model.bytes)).toBe(false)
  })
})
