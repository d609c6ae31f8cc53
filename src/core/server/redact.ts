// One rule for what counts as a secret, shared with the redaction of the result's config.
import { isSecretName, REDACTED, redactUrlCredentials } from '../platform/redact.ts'

/** Values shorter than this are not searched for in free text: they would match everywhere. */
const MIN_SECRET_LENGTH = 4

/**
 * Command-line arguments with secret values replaced: `--api-key sk-1` and `--api-key=sk-1` become
 * `--api-key ***` and `--api-key=***`, and `user:password@` in URLs becomes `***@`.
 */
export function redactArgs(args: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const withValue = /^(--?[A-Za-z][\w.-]*)=/.exec(arg)
    if (withValue && isSecretName(withValue[1]!)) {
      out.push(`${withValue[1]}=${REDACTED}`)
      continue
    }
    out.push(redactUrlCredentials(arg))
    const next = args[i + 1]
    if (/^--?[A-Za-z][\w.-]*$/.test(arg) && isSecretName(arg) && next !== undefined && !next.startsWith('--')) {
      out.push(REDACTED)
      i++
    }
  }
  return out
}

/** Environment variables with the values of secret-named ones replaced. */
export function redactEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    out[name] = isSecretName(name) ? REDACTED : redactUrlCredentials(value)
  }
  return out
}

/** The secret values found in arguments and environment variables (to scrub free text with). */
export function secretValues(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): string[] {
  const found = new Set<string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const withValue = /^(--?[A-Za-z][\w.-]*)=(.*)$/s.exec(arg)
    if (withValue && isSecretName(withValue[1]!)) found.add(withValue[2]!)
    const next = args[i + 1]
    if (/^--?[A-Za-z][\w.-]*$/.test(arg) && isSecretName(arg) && next !== undefined && !next.startsWith('--'))
      found.add(next)
  }
  for (const [name, value] of Object.entries(env)) if (value !== undefined && isSecretName(name)) found.add(value)
  return [...found].filter((value) => value.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length)
}

/** Text with every occurrence of the given secret values replaced. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED)
  return redactUrlCredentials(out)
}
