// The part of `bun:test` the adapter uses. Bun's own types (bun-types) are not a dependency of this
// package; these declarations let it typecheck under Node's types, and are not emitted.
declare module 'bun:test' {
  interface BunTestFn {
    (name: string, fn: () => Promise<void>, timeoutMs?: number): void
    skip(name: string, fn: () => Promise<void>, timeoutMs?: number): void
    only(name: string, fn: () => Promise<void>, timeoutMs?: number): void
  }
  export const test: BunTestFn
}
