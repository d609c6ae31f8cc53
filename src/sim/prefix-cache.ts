import { createHash } from 'node:crypto'

/**
 * Hashes of a prompt's full blocks, chained as vLLM V1 does: block i's hash covers block i−1's
 * hash and block i's tokens, so equal hashes mean equal prefixes up to the end of that block.
 * A trailing partial block has no hash: only full blocks are cacheable.
 *
 * @param tokens the prompt's token strings (`CompletionRequest.promptTokenTexts`).
 * @param blockTokens block size, tokens.
 */
export function hashPromptBlocks(tokens: readonly string[], blockTokens: number): string[] {
  const hashes: string[] = []
  let parent = ''
  for (let start = 0; start + blockTokens <= tokens.length; start += blockTokens) {
    // Length-prefixed, so no choice of token strings can make two different blocks hash the same input.
    let input = parent
    for (let i = start; i < start + blockTokens; i++) {
      const token = tokens[i] as string
      input += `${token.length}:${token}`
    }
    parent = createHash('sha256').update(input).digest('base64')
    hashes.push(parent)
  }
  return hashes
}

/**
 * The prefix cache of a vLLM V1 block pool, reduced to block hashes and reference counts.
 *
 * A block referenced by a running sequence is never evicted. When its last sequence ends it
 * joins the free queue (still cached), and eviction takes the least recently freed first; a
 * sequence frees its blocks last to first, as vLLM does, so a prompt's tail goes before its
 * shared head. Capacity is counted in blocks against everything running: referenced cached
 * blocks, plus the blocks running sequences hold outside the cache (partial prompt blocks,
 * generated tokens), which the caller passes to {@link evictToFit}.
 *
 * Simplification: eviction happens at admission only, not as decode steps grow sequences, and
 * when running sequences alone need more than the capacity the cache holds just their blocks
 * (the simulator never refuses or preempts a sequence for lack of KV space).
 */
export class PrefixCache {
  readonly #capacityBlocks: number
  readonly #blockTokens: number
  /** Reference count of every cached block (0: free but still cached). */
  readonly #refs = new Map<string, number>()
  /** Cached blocks with no reference, least recently freed first (a Map keeps insertion order). */
  readonly #free = new Map<string, true>()

  /**
   * @param capacityBlocks KV-cache capacity, blocks.
   * @param blockTokens block size, tokens.
   */
  constructor(capacityBlocks: number, blockTokens: number) {
    this.#capacityBlocks = capacityBlocks
    this.#blockTokens = blockTokens
  }

  /** Cached blocks, referenced or free. */
  get cachedBlocks(): number {
    return this.#refs.size
  }

  /** Cached blocks that at least one running sequence references (each counted once). */
  get referencedBlocks(): number {
    return this.#refs.size - this.#free.size
  }

  /**
   * A sequence is admitted: looks up its leading cached blocks, then references all its full
   * blocks at once (cached at allocation, so a sequence admitted right after can hit them).
   * Returns the hit, tokens: whole blocks, and never the prompt's last token, which vLLM always
   * computes, so at most floor((promptTokens − 1) / blockTokens) blocks.
   */
  acquire(hashes: readonly string[], promptTokens: number): number {
    const maxHitBlocks = Math.min(hashes.length, Math.max(0, Math.floor((promptTokens - 1) / this.#blockTokens)))
    let hitBlocks = 0
    while (hitBlocks < maxHitBlocks && this.#refs.has(hashes[hitBlocks] as string)) hitBlocks++
    for (const hash of hashes) {
      const refs = this.#refs.get(hash) ?? 0
      if (refs === 0) this.#free.delete(hash)
      this.#refs.set(hash, refs + 1)
    }
    return hitBlocks * this.#blockTokens
  }

  /** A sequence that {@link acquire}d `hashes` left the batch. */
  release(hashes: readonly string[]): void {
    for (let i = hashes.length - 1; i >= 0; i--) {
      const hash = hashes[i] as string
      const refs = this.#refs.get(hash)
      if (refs === undefined) continue
      if (refs > 1) this.#refs.set(hash, refs - 1)
      else {
        this.#refs.set(hash, 0)
        this.#free.set(hash, true)
      }
    }
  }

  /**
   * Evicts free blocks, least recently freed first, until the cache plus `otherBlocks` (blocks
   * running sequences hold outside the cache) fit the capacity, or nothing free is left.
   */
  evictToFit(otherBlocks: number): void {
    let excess = this.#refs.size + otherBlocks - this.#capacityBlocks
    for (const hash of this.#free.keys()) {
      if (excess <= 0) break
      this.#free.delete(hash)
      this.#refs.delete(hash)
      excess--
    }
  }
}
