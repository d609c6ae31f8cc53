import type { InputsApi } from '../contract/api-kinds.ts'
import type { RequestFailure } from '../contract/request-record.ts'
import { isRecord } from '../contract/is-record.ts'

/** What the one JSON body of an `embeddings` or `rerank` reply says. */
export interface InputsReply {
  /** Texts answered: embeddings given, documents scored. */
  answered: number
  /** `usage.prompt_tokens`, else `usage.total_tokens` (vLLM's rerank reports only that); undefined without usage. */
  inputTokens: number | undefined
}

function tokensOf(usage: unknown): number | undefined {
  if (!isRecord(usage)) return undefined
  for (const key of ['prompt_tokens', 'total_tokens']) {
    const value = usage[key]
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value
  }
  return undefined
}

/**
 * The answers of a reply: embeddings under `data` (OpenAI, vLLM, llama.cpp), scores under
 * `results` (Cohere and Jina's rerank shape: vLLM, llama.cpp) or as the body itself (Hugging
 * Face TEI's `/rerank`). Undefined when there is no such list.
 */
function answersOf(api: InputsApi, body: unknown): unknown[] | undefined {
  if (api === 'rerank' && Array.isArray(body)) return body
  if (!isRecord(body)) return undefined
  const list = api === 'embeddings' ? body.data : body.results
  return Array.isArray(list) ? list : undefined
}

/** True when an answer carries what was asked: an embedding (floats, or base64), or a score. */
function isAnswer(api: InputsApi, answer: unknown): boolean {
  if (!isRecord(answer)) return false
  if (api === 'embeddings') return Array.isArray(answer.embedding) || typeof answer.embedding === 'string'
  const score = answer.relevance_score ?? answer.score
  return typeof score === 'number'
}

/**
 * Reads the body of an `embeddings` or `rerank` reply to a request that carried `sent` texts.
 * A reply that answers fewer or more texts than were sent, or answers without an embedding or a
 * score, is a malformed reply (a failure: its latency would be that of less work).
 */
export function readInputsReply(api: InputsApi, body: unknown, sent: number): InputsReply | RequestFailure {
  const answers = answersOf(api, body)
  const what = api === 'embeddings' ? 'embeddings under `data`' : 'scores under `results`'
  if (answers === undefined) return { kind: 'malformed', message: `the ${api} reply has no ${what}` }
  if (answers.length !== sent)
    return {
      kind: 'malformed',
      message: `the ${api} reply answered ${answers.length} of the ${sent} ${api === 'embeddings' ? 'inputs' : 'documents'} sent`,
    }
  const bad = answers.findIndex((answer) => !isAnswer(api, answer))
  if (bad >= 0)
    return {
      kind: 'malformed',
      message: `the ${api} reply's answer ${bad} has no ${api === 'embeddings' ? 'embedding' : 'relevance_score'}`,
    }
  return { answered: answers.length, inputTokens: tokensOf(isRecord(body) ? body.usage : undefined) }
}
