import type { BaselineEnvironment } from '../../src/core/baseline/index.ts'

/** Baseline files in a Map: the store's logic without a disk. `exclusive` runs one critical section at a time. */
export class MemoryEnvironment implements BaselineEnvironment {
  readonly files = new Map<string, string>()
  /** Atomic writes so far. */
  writes = 0
  #held: Promise<unknown> = Promise.resolve()

  async readFile(path: string): Promise<string | null> {
    return this.files.get(path) ?? null
  }
  async writeFileAtomic(path: string, content: string): Promise<void> {
    this.writes++
    this.files.set(path, content)
  }
  async removeFile(path: string): Promise<void> {
    this.files.delete(path)
  }
  async exclusive<T>(_path: string, critical: () => Promise<T>): Promise<T> {
    const turn = this.#held.then(critical)
    this.#held = turn.catch(() => undefined)
    return turn
  }
}
