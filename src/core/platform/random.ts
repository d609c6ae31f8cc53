/**
 * Seeded pseudo-random numbers (xoshiro128**, seeded through splitmix32). The same seed gives
 * the same sequence on Node, Bun and Deno: only 32-bit integer arithmetic is used.
 */
export interface Random {
  /** Uniform in [0, 1), 53 bits. */
  next(): number
  /** Uniform integer in [0, maxExclusive). */
  integer(maxExclusive: number): number
  /** Standard normal (mean 0, standard deviation 1). */
  normal(): number
  /** Exponential with the given rate (mean 1 / rate). */
  exponential(rate: number): number
  /** Gamma with the given shape and scale (mean shape * scale), Marsaglia–Tsang. */
  gamma(shape: number, scale: number): number
  /** Shuffles `items` in place (Fisher–Yates) and returns it. */
  shuffle<T>(items: T[]): T[]
}

const float64 = new Float64Array(1)
const float64Words = new Uint32Array(float64.buffer)

/** Folds any number (fractional, negative, huge) into 32 bits so that nearby seeds differ. */
function seedWord(value: number): number {
  if (Number.isInteger(value) && Math.abs(value) <= 0xffffffff) return value >>> 0
  float64[0] = value
  return Math.imul((float64Words[0] ?? 0) ^ Math.imul(float64Words[1] ?? 0, 0x9e3779b1), 0x85ebca6b) >>> 0
}

/** FNV-1a over UTF-16 code units: a stable 32-bit word from a label or a request's content. */
function textWord(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

function mix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  h = Math.imul(h, 0x846ca68b)
  h ^= h >>> 16
  return h >>> 0
}

/**
 * A seed for an independent stream, derived from a base seed and labels (stream id, request
 * index, hash id, a purpose such as `'faults'`, a request's content...). Lets `workload.next(i)`
 * be deterministic whatever the call order.
 */
export function deriveSeed(seed: number, ...parts: ReadonlyArray<number | string>): number {
  let h = mix32(seedWord(seed) ^ 0x6a09e667)
  for (const part of parts)
    h = mix32(h ^ mix32((typeof part === 'string' ? textWord(part) : seedWord(part)) + 0x9e3779b9))
  return h
}

export function createRandom(seed: number): Random {
  // splitmix32 expands the 32-bit seed into the 128-bit xoshiro state (never all zero).
  let sm = seedWord(seed)
  const splitmix = (): number => {
    sm = (sm + 0x9e3779b9) >>> 0
    return mix32(sm)
  }
  let s0 = splitmix()
  let s1 = splitmix()
  let s2 = splitmix()
  let s3 = splitmix()
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1

  const nextUint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0
    const t = s1 << 9
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = rotl(s3, 11)
    return result
  }

  const next = (): number => ((nextUint32() >>> 5) * 67108864 + (nextUint32() >>> 6)) / 9007199254740992

  const normal = (): number => {
    // Box–Muller without a cached second value, so each call consumes a fixed amount of the stream.
    const u1 = 1 - next()
    const u2 = next()
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
  }

  const gammaShapeAtLeastOne = (shape: number): number => {
    const d = shape - 1 / 3
    const c = 1 / Math.sqrt(9 * d)
    for (;;) {
      let x: number
      let v: number
      do {
        x = normal()
        v = 1 + c * x
      } while (v <= 0)
      v = v * v * v
      const u = 1 - next()
      if (u < 1 - 0.0331 * x * x * x * x) return d * v
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v
    }
  }

  return {
    next,
    integer: (maxExclusive) => Math.floor(next() * maxExclusive),
    normal,
    exponential: (rate) => -Math.log(1 - next()) / rate,
    gamma: (shape, scale) => {
      if (shape >= 1) return gammaShapeAtLeastOne(shape) * scale
      // Shape below 1: boost to shape + 1 and scale down by U^(1/shape) (Marsaglia–Tsang, section 6).
      const u = 1 - next()
      return gammaShapeAtLeastOne(shape + 1) * Math.pow(u, 1 / shape) * scale
    },
    shuffle: (items) => {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        const tmp = items[i] as (typeof items)[number]
        items[i] = items[j] as (typeof items)[number]
        items[j] = tmp
      }
      return items
    },
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0
}
