/** The placeholder written wherever a secret was. */
export const REDACTED = '***'

// Narrow on purpose: `outputTokens` or `maxTokens` are options, not secrets.
const SECRET_NAME =
  /(api[-_]?key|private[-_]?key|^key$|[-_]key$|secret|password|passwd|authorization|cookie|credential|^token$|[-_]token$|access[-_]?token|auth[-_]?token)/i

/** True when a header, env var, flag or option name suggests its value is a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name)
}

/** `text` with every occurrence of `secret` (an API key the user gave) replaced; unchanged without a secret. */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret === undefined || secret === '' ? text : text.split(secret).join(REDACTED)
}

/** `scheme://user:password@host` with the credentials replaced by {@link REDACTED}. */
export function redactUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, `$1${REDACTED}@`)
}

/**
 * A deep copy of `value` fit to be written: secret-named fields replaced by {@link REDACTED},
 * functions and abort signals dropped (they do not serialise and say nothing about the run).
 */
export function redactConfig(value: unknown): Record<string, unknown> {
  return redact(value) as Record<string, unknown>
}

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact)
  if (typeof value === 'string') return redactUrlCredentials(value)
  if (typeof value !== 'object' || value === null) return value
  if (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) return undefined
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'function' || v === undefined) continue
    if (v instanceof AbortSignal) continue
    out[k] = isSecretName(k) && (typeof v === 'string' || typeof v === 'number') ? REDACTED : redact(v)
  }
  return out
}
