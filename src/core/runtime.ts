/** Which JavaScript runtime runs this code. The one place that asks. */
export type RuntimeName = 'node' | 'bun' | 'deno' | 'unknown'

export interface RuntimeInfo {
  name: RuntimeName
  version: string
}

export function detectRuntime(): RuntimeInfo {
  const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } }
  if (g.Bun) return { name: 'bun', version: g.Bun.version }
  if (g.Deno) return { name: 'deno', version: g.Deno.version.deno }
  if (typeof process !== 'undefined' && process.versions?.node) return { name: 'node', version: process.versions.node }
  return { name: 'unknown', version: '' }
}
