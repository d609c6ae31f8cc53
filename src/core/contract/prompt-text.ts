import type { PreparedRequest } from './request-record.ts'

/**
 * A request's text as one string: its prompt, or its conversation's contents one per line (a chat
 * workload sent to `/v1/completions`, or grouped as texts for embeddings and rerank).
 */
export function promptTextOf(request: PreparedRequest): string {
  return request.prompt ?? (request.messages ?? []).map((m) => m.content).join('\n')
}
