import { isRecord } from '../core/contract/is-record.ts'
import type { InputsApi } from '../core/contract/api-kinds.ts'
import { countSimulatorTokens } from './tokens.ts'
import type { RequestLimits, RequestProblem } from './request.ts'

/** A validated `/v1/embeddings` or `/v1/rerank` request, reduced to what the simulator needs. */
export interface InputsRequest {
  api: InputsApi
  /** Embeddings: the inputs; rerank: the documents. */
  texts: string[]
  /** Rerank: the query; undefined for embeddings. */
  query: string | undefined
  /** Rerank `top_n`: results returned, the best first; undefined: all. */
  topN: number | undefined
  /**
   * Tokens the model reads: the inputs' (embeddings), or the query's beside each document's (rerank,
   * a cross-encoder reads each pair), as `usage.prompt_tokens` reports them.
   */
  promptTokens: number
}

export type ParsedInputsRequest = { ok: true; request: InputsRequest } | { ok: false; problem: RequestProblem }

function badRequest(message: string, param: string): ParsedInputsRequest {
  return { ok: false, problem: { status: 400, type: 'BadRequestError', message, param } }
}

/** A list of texts: a string, or a non-empty list of strings (rerank documents may be `{ text }`). */
function textsOf(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value]
  if (!Array.isArray(value) || value.length === 0) return undefined
  const texts: string[] = []
  for (const item of value) {
    if (typeof item === 'string') texts.push(item)
    else if (isRecord(item) && typeof item.text === 'string') texts.push(item.text)
    else return undefined
  }
  return texts
}

/**
 * Validates an embeddings body (`input`: a string or a list of strings) or a rerank body (`query`,
 * `documents`, optional `top_n`) as vLLM does, for the fields the simulator reads: the model must be
 * the served one, every text (rerank: every query and document pair) must fit the context.
 */
export function parseInputsRequest(api: InputsApi, body: unknown, limits: RequestLimits): ParsedInputsRequest {
  if (!isRecord(body)) return badRequest('The request body must be a JSON object.', 'body')
  if (typeof body.model === 'string' && body.model !== limits.model)
    return {
      ok: false,
      problem: {
        status: 404,
        type: 'NotFoundError',
        message: `The model \`${body.model}\` does not exist.`,
        param: 'model',
      },
    }
  const field = api === 'embeddings' ? 'input' : 'documents'
  const texts = textsOf(body[field])
  if (texts === undefined) return badRequest(`${field} must be a string or a non-empty list of strings.`, field)
  let query: string | undefined
  let topN: number | undefined
  if (api === 'rerank') {
    if (typeof body.query !== 'string') return badRequest('query must be a string.', 'query')
    query = body.query
    const n = body.top_n
    if (n !== undefined && n !== null) {
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
        return badRequest(`top_n must be an integer of at least 1, got ${JSON.stringify(n)}.`, 'top_n')
      topN = n
    }
  }
  const queryTokens = query === undefined ? 0 : countSimulatorTokens(query)
  let promptTokens = 0
  for (const [i, text] of texts.entries()) {
    const tokens = queryTokens + countSimulatorTokens(text)
    if (tokens > limits.maxModelLen)
      return badRequest(
        `This model's maximum context length is ${limits.maxModelLen} tokens. However, ${field}[${i}] has ${tokens} tokens` +
          `${query === undefined ? '' : ' with the query'}. Please reduce its length.`,
        field,
      )
    promptTokens += tokens
  }
  return { ok: true, request: { api, texts, query, topN, promptTokens } }
}
