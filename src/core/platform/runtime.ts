/**
 * Which JavaScript runtime runs this code, and what it lacks. The one place that asks: the rest of
 * the core calls the functions here (or the adapters in `runtime-*.ts`) instead of testing for Bun
 * or Deno itself.
 */
import { Pool } from 'undici'

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

/**
 * How the client speaks HTTP: `undici` (a `Pool` driven through its dispatch handler API, one
 * connection per request in flight) or `fetch` (the runtime's own `fetch`, body read from its
 * `ReadableStream`). Both hand every body chunk to the same handler, so timestamps are taken the
 * same way: when a parsed event reaches the client.
 */
export type HttpTransportName = 'undici' | 'fetch'

/** Environment variable that overrides {@link defaultHttpTransport}: `undici` or `fetch`. */
export const HTTP_TRANSPORT_ENV = 'LLM_BENCH_HTTP_TRANSPORT'

/**
 * Whether the imported `undici` has a working dispatcher. Bun resolves `undici` to a built-in stub
 * whose `Pool` has `request()` only (no `dispatch`, no `close`), so it is tested by feature, not by
 * runtime name: a Bun that ships the real undici gets it.
 */
export function undiciDispatchWorks(): boolean {
  const proto = (Pool as unknown as { prototype?: Record<string, unknown> }).prototype
  return typeof proto?.dispatch === 'function' && typeof proto.close === 'function'
}

function transportFromEnvironment(): string | undefined {
  if (typeof process === 'undefined' || process.env === undefined) return undefined
  const value = process.env[HTTP_TRANSPORT_ENV]
  return value === undefined || value === '' ? undefined : value
}

/**
 * The transport this runtime uses: `undici` where its dispatcher works (Node, Deno), else `fetch`
 * (Bun). `LLM_BENCH_HTTP_TRANSPORT=fetch` forces fetch anywhere (to compare the two); forcing
 * `undici` where it does not work falls back to fetch rather than failing every request.
 */
export function defaultHttpTransport(): HttpTransportName {
  const forced = transportFromEnvironment()
  if (forced === 'fetch') return 'fetch'
  return undiciDispatchWorks() ? 'undici' : 'fetch'
}
