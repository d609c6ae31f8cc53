import { OptionsError } from '../contract/errors.ts'
import type { ApiKind, PreparedRequest } from '../contract/types.ts'

/** A single-turn request: `messages` with one user turn for chat, `prompt` for completions. */
export function promptRequest(api: ApiKind, text: string): PreparedRequest {
  return api === 'chat' ? { messages: [{ role: 'user', content: text }] } : { prompt: text }
}

/**
 * `ignoreEos` of a dataset or prompts workload: false unless set (the model may stop early, as a
 * `vllm bench serve` dataset run without `--ignore-eos`); `fallback` true for generated lengths
 * (synthetic, trace), which are the point of those workloads.
 */
export function ignoreEosOf(options: { ignoreEos?: unknown }, fallback = false): boolean {
  const value = options.ignoreEos
  if (value !== undefined && typeof value !== 'boolean') {
    throw new OptionsError('workload.ignoreEos', `must be true or false, got ${JSON.stringify(value)}`, `Leave it out for ${String(fallback)}.`)
  }
  return value ?? fallback
}
