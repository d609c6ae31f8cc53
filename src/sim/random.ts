/** Uniform pseudo-random numbers in [0, 1) from a seeded generator. */
export type RandomSource = () => number

/** FNV-1a over UTF-16 code units, folded with `seed`: a stable 32-bit seed from text. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ (seed >>> 0)) >>> 0
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32: small, fast and good enough to pick words and fault draws reproducibly. */
export function createRandom(seed: number): RandomSource {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A 32-bit seed from the user's seed (any finite number) and a purpose, so the streams stay independent. */
export function deriveSeed(seed: number, purpose: string): number {
  return hashString(`${purpose}:${seed}`)
}
