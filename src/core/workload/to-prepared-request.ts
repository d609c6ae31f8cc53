import type { ApiKind, PreparedRequest } from '../types.ts'

/** A single-turn request: `messages` with one user turn for chat, `prompt` for completions. */
export function promptRequest(api: ApiKind, text: string): PreparedRequest {
  return api === 'chat' ? { messages: [{ role: 'user', content: text }] } : { prompt: text }
}
