/** What stands in for a secret in everything this package writes. */
export const REDACTED = '***'

/** Values shorter than this are not searched for in free text: they would match everywhere. */
const MIN_SECRET_LENGTH = 4

/**
 * True when a flag, option or variable name suggests a secret: one of its words (split on
 * `-`, `_`, `.` and camelCase) ends in KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL(S),
 * AUTHORIZATION or COOKIE, or begins with SECRET or PASSW. So `--api-key`, `HF_TOKEN`, `OPENAI_API_KEY`,
 * `AWS_SECRET_ACCESS_KEY` and `apiKey` are secrets, while `--max-num-batched-tokens`, `--tokenizer`
 * and `TOKENIZERS_PARALLELISM` are not.
 */
export function isSecretName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
  return words.some((word) => /(key|token|secret|password|passwd|passphrase|credentials?|authorization|cookie)$/i.test(word) || /^(secret|passw)/i.test(word))
}

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
export function secretValues(args: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): string[] {
  const found = new Set<string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const withValue = /^(--?[A-Za-z][\w.-]*)=(.*)$/s.exec(arg)
    if (withValue && isSecretName(withValue[1]!)) found.add(withValue[2]!)
    const next = args[i + 1]
    if (/^--?[A-Za-z][\w.-]*$/.test(arg) && isSecretName(arg) && next !== undefined && !next.startsWith('--')) found.add(next)
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

function redactUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, `$1${REDACTED}@`)
}
