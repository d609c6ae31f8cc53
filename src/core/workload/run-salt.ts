/**
 * A fresh salt for one run: 8 hex digits from the platform's cryptographic random source
 * (Node, Bun and Deno all have `crypto.getRandomValues`), deliberately not from the seed:
 * two runs with the same seed must still get different salts.
 */
export function newRunSalt(): string {
  const bytes = new Uint8Array(4)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}
