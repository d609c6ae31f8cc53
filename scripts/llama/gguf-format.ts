// The parts of the GGUF v3 format (llama.cpp's ggml/docs/gguf.md) this project reads and writes:
// little-endian, a header, typed key/value metadata, tensor descriptors, aligned tensor data.

/** `GGUF` read as a little-endian u32. */
export const GGUF_MAGIC = 0x46554747
export const GGUF_VERSION = 3
/** Alignment of tensor data when `general.alignment` is absent, bytes. */
export const GGUF_DEFAULT_ALIGNMENT = 32

/** Metadata value types (`gguf_type`). */
export const GgufValueType = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const
export type GgufValueType = (typeof GgufValueType)[keyof typeof GgufValueType]

/** Tensor element types this project writes (`ggml_type`). */
export const GgmlType = { F32: 0, F16: 1 } as const
export type GgmlType = (typeof GgmlType)[keyof typeof GgmlType]

/** A scalar metadata value; 64-bit integers are bigint so no value is rounded on the way through. */
export type GgufScalar = number | bigint | boolean | string

/** One metadata entry with the type it is stored as, so a copy writes it back unchanged. */
export type GgufValue =
  | { type: Exclude<GgufValueType, typeof GgufValueType.ARRAY>; value: GgufScalar }
  | {
      type: typeof GgufValueType.ARRAY
      itemType: Exclude<GgufValueType, typeof GgufValueType.ARRAY>
      value: GgufScalar[]
    }

/** A tensor descriptor: `dims` in ggml order (`ne[0]`, the contiguous dimension, first). */
export interface GgufTensorInfo {
  name: string
  dims: number[]
  type: number
  /** Offset of the data from the start of the data section, bytes. */
  offset: bigint
}
