import { createHash } from 'node:crypto'
import { redactText } from './redact.ts'
import type { ServerSpec } from './server-spec.ts'
import { normalizeBaseUrl } from '../client/target.ts'

/**
 * Identity of a launch configuration: two specs with the same key can share one server. It covers
 * what changes the server (command, arguments, environment, working directory, fixed port, host,
 * readiness URL, model) and not timeouts or the log folder. Environment values are hashed, never
 * shown. A connected server's key is its URL.
 */
export function serverKey(spec: ServerSpec): string {
  if (spec.kind === 'connect') return `connect:${redactText(normalizeBaseUrl(spec.baseUrl), [])}`
  const identity = {
    command: spec.command,
    args: spec.args,
    env: Object.fromEntries(Object.entries(spec.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    cwd: spec.cwd ?? null,
    port: spec.port ?? null,
    host: spec.host ?? null,
    baseUrl: spec.baseUrl ?? null,
    readyUrl: spec.readyUrl ?? null,
    model: spec.model ?? null,
  }
  const hash = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 16)
  return `${spec.name}:${hash}`
}

/** A server root without trailing slashes or `/v1` (the client's rule, so both agree). */
export { normalizeBaseUrl }
