import {
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_VERSION,
  GgmlType,
  GgufValueType,
  type GgufScalar,
  type GgufValue,
} from './gguf-format.ts'

/** A tensor to write: `dims` in ggml order (`ne[0]` first), `data` already encoded in `type`. */
export interface GgufTensor {
  name: string
  dims: number[]
  type: GgmlType
  data: Buffer
}

const ELEMENT_BYTES: Record<GgmlType, number> = { [GgmlType.F32]: 4, [GgmlType.F16]: 2 }

/**
 * Encodes a GGUF v3 file: header, metadata in the given order, tensor descriptors, then each
 * tensor's data at the next multiple of the alignment (`general.alignment` or 32 bytes).
 */
export function encodeGguf(metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensor[]): Buffer {
  const alignmentEntry = metadata.get('general.alignment')
  const alignment =
    alignmentEntry && typeof alignmentEntry.value === 'number' ? alignmentEntry.value : GGUF_DEFAULT_ALIGNMENT
  const parts: Buffer[] = []
  let size = 0
  const push = (buffer: Buffer): void => {
    parts.push(buffer)
    size += buffer.length
  }
  const u32 = (v: number): void => {
    const b = Buffer.alloc(4)
    b.writeUInt32LE(v)
    push(b)
  }
  const u64 = (v: number | bigint): void => {
    const b = Buffer.alloc(8)
    b.writeBigUInt64LE(BigInt(v))
    push(b)
  }
  const string = (v: string): void => {
    const bytes = Buffer.from(v, 'utf8')
    u64(bytes.length)
    push(bytes)
  }
  const scalar = (type: number, v: GgufScalar, key: string): void => {
    const b = Buffer.alloc(8)
    switch (type) {
      case GgufValueType.UINT8:
        b.writeUInt8(asNumber(v, key))
        return push(b.subarray(0, 1))
      case GgufValueType.INT8:
        b.writeInt8(asNumber(v, key))
        return push(b.subarray(0, 1))
      case GgufValueType.UINT16:
        b.writeUInt16LE(asNumber(v, key))
        return push(b.subarray(0, 2))
      case GgufValueType.INT16:
        b.writeInt16LE(asNumber(v, key))
        return push(b.subarray(0, 2))
      case GgufValueType.UINT32:
        b.writeUInt32LE(asNumber(v, key))
        return push(b.subarray(0, 4))
      case GgufValueType.INT32:
        b.writeInt32LE(asNumber(v, key))
        return push(b.subarray(0, 4))
      case GgufValueType.FLOAT32:
        b.writeFloatLE(asNumber(v, key))
        return push(b.subarray(0, 4))
      case GgufValueType.BOOL:
        b.writeUInt8(v === true ? 1 : 0)
        return push(b.subarray(0, 1))
      case GgufValueType.STRING:
        return string(String(v))
      case GgufValueType.UINT64:
        b.writeBigUInt64LE(BigInt(v as number | bigint))
        return push(b)
      case GgufValueType.INT64:
        b.writeBigInt64LE(BigInt(v as number | bigint))
        return push(b)
      case GgufValueType.FLOAT64:
        b.writeDoubleLE(asNumber(v, key))
        return push(b)
      default:
        throw new Error(`GGUF key ${key}: value type ${type} cannot be written`)
    }
  }

  u32(GGUF_MAGIC)
  u32(GGUF_VERSION)
  u64(tensors.length)
  u64(metadata.size)
  for (const [key, entry] of metadata) {
    string(key)
    u32(entry.type)
    if (entry.type === GgufValueType.ARRAY) {
      u32(entry.itemType)
      u64(entry.value.length)
      for (const item of entry.value) scalar(entry.itemType, item, key)
    } else {
      scalar(entry.type, entry.value, key)
    }
  }

  let offset = 0
  const offsets: number[] = []
  for (const tensor of tensors) {
    const elements = tensor.dims.reduce((a, b) => a * b, 1)
    const expected = elements * ELEMENT_BYTES[tensor.type]
    if (tensor.data.length !== expected)
      throw new Error(
        `tensor ${tensor.name}: ${tensor.data.length} bytes of data, its shape ${tensor.dims.join('x')} needs ${expected}`,
      )
    offset = alignUp(offset, alignment)
    offsets.push(offset)
    offset += tensor.data.length
    string(tensor.name)
    u32(tensor.dims.length)
    for (const dim of tensor.dims) u64(dim)
    u32(tensor.type)
    u64(offsets[offsets.length - 1]!)
  }

  const dataStart = alignUp(size, alignment)
  push(Buffer.alloc(dataStart - size))
  tensors.forEach((tensor, i) => {
    push(Buffer.alloc(dataStart + offsets[i]! - size))
    push(tensor.data)
  })
  return Buffer.concat(parts, size)
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment
}

function asNumber(v: GgufScalar, key: string): number {
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  throw new Error(`GGUF key ${key}: expected a number, got ${typeof v}`)
}
