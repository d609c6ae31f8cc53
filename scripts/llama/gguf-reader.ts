import { readFileSync } from 'node:fs'
import {
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GgufValueType,
  type GgufScalar,
  type GgufTensorInfo,
  type GgufValue,
} from './gguf-format.ts'

/** A parsed GGUF file: metadata in file order, tensor descriptors, and where tensor data starts. */
export interface GgufFile {
  version: number
  metadata: Map<string, GgufValue>
  tensors: GgufTensorInfo[]
  /** Byte offset of the data section in the file. */
  dataOffset: number
  /** The whole file, to read tensor data from `dataOffset + tensor.offset`. */
  bytes: Buffer
}

/** Reads a GGUF v2/v3 file (metadata and tensor descriptors; tensor data is left in `bytes`). */
export function readGguf(path: string): GgufFile {
  return parseGguf(readFileSync(path))
}

export function parseGguf(bytes: Buffer): GgufFile {
  let pos = 0
  const need = (n: number): void => {
    if (pos + n > bytes.length)
      throw new Error(`GGUF truncated: need ${n} bytes at ${pos}, the file has ${bytes.length}`)
  }
  const u32 = (): number => {
    need(4)
    const v = bytes.readUInt32LE(pos)
    pos += 4
    return v
  }
  const u64 = (): bigint => {
    need(8)
    const v = bytes.readBigUInt64LE(pos)
    pos += 8
    return v
  }
  const small = (v: bigint, what: string): number => {
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`GGUF ${what} ${v} is implausibly large: not a GGUF file?`)
    return Number(v)
  }
  const string = (): string => {
    const length = small(u64(), 'string length')
    need(length)
    const v = bytes.toString('utf8', pos, pos + length)
    pos += length
    return v
  }
  const scalar = (type: number): GgufScalar => {
    switch (type) {
      case GgufValueType.UINT8:
        need(1)
        return bytes.readUInt8(pos++)
      case GgufValueType.INT8:
        need(1)
        return bytes.readInt8(pos++)
      case GgufValueType.UINT16:
        need(2)
        pos += 2
        return bytes.readUInt16LE(pos - 2)
      case GgufValueType.INT16:
        need(2)
        pos += 2
        return bytes.readInt16LE(pos - 2)
      case GgufValueType.UINT32:
        return u32()
      case GgufValueType.INT32:
        need(4)
        pos += 4
        return bytes.readInt32LE(pos - 4)
      case GgufValueType.FLOAT32:
        need(4)
        pos += 4
        return bytes.readFloatLE(pos - 4)
      case GgufValueType.BOOL:
        need(1)
        return bytes.readUInt8(pos++) !== 0
      case GgufValueType.STRING:
        return string()
      case GgufValueType.UINT64:
        return u64()
      case GgufValueType.INT64:
        need(8)
        pos += 8
        return bytes.readBigInt64LE(pos - 8)
      case GgufValueType.FLOAT64:
        need(8)
        pos += 8
        return bytes.readDoubleLE(pos - 8)
      default:
        throw new Error(`GGUF value type ${type} at byte ${pos} is unknown: not a GGUF v3 file?`)
    }
  }

  if (u32() !== GGUF_MAGIC) throw new Error('not a GGUF file: the first four bytes are not "GGUF"')
  const version = u32()
  if (version !== 2 && version !== 3) throw new Error(`GGUF version ${version} is not supported (2 and 3 are)`)
  const tensorCount = small(u64(), 'tensor count')
  const kvCount = small(u64(), 'metadata count')

  const metadata = new Map<string, GgufValue>()
  for (let i = 0; i < kvCount; i++) {
    const key = string()
    const type = u32()
    if (type === GgufValueType.ARRAY) {
      const itemType = u32()
      if (itemType === GgufValueType.ARRAY) throw new Error(`GGUF key ${key}: nested arrays are not supported`)
      const count = small(u64(), `array length of ${key}`)
      const value: GgufScalar[] = new Array<GgufScalar>(count)
      for (let j = 0; j < count; j++) value[j] = scalar(itemType)
      metadata.set(key, { type, itemType: itemType as Exclude<GgufValueType, 9>, value })
    } else {
      metadata.set(key, { type: type as Exclude<GgufValueType, 9>, value: scalar(type) })
    }
  }

  const tensors: GgufTensorInfo[] = []
  for (let i = 0; i < tensorCount; i++) {
    const name = string()
    const nDims = u32()
    const dims: number[] = []
    for (let d = 0; d < nDims; d++) dims.push(small(u64(), `dimension of ${name}`))
    const type = u32()
    tensors.push({ name, dims, type, offset: u64() })
  }

  const alignmentEntry = metadata.get('general.alignment')
  const alignment =
    alignmentEntry && typeof alignmentEntry.value === 'number' ? alignmentEntry.value : GGUF_DEFAULT_ALIGNMENT
  const dataOffset = Math.ceil(pos / alignment) * alignment
  return { version, metadata, tensors, dataOffset, bytes }
}

/** A metadata value as a plain scalar or array (no type tags), or undefined when absent. */
export function metadataValue(file: GgufFile, key: string): GgufScalar | GgufScalar[] | undefined {
  return file.metadata.get(key)?.value
}
