import { createRandom, deriveSeed } from '../core/platform/random.ts'
import type { InputsRequest } from './inputs-request.ts'

/** Dimensions of a simulated embedding: enough to be a vector, small enough to cost nothing to send. */
export const SIMULATED_EMBEDDING_DIMENSIONS = 16

/** A unit vector fixed by the text and the seed: the same text embeds the same. */
function embeddingOf(text: string, seed: number): number[] {
  const random = createRandom(deriveSeed(seed, 'embedding', text))
  const vector = Array.from({ length: SIMULATED_EMBEDDING_DIMENSIONS }, () => random.next() * 2 - 1)
  const norm = Math.hypot(...vector) || 1
  return vector.map((value) => value / norm)
}

/** A relevance score in [0, 1) fixed by the query, the document and the seed. */
function scoreOf(query: string, document: string, seed: number): number {
  return createRandom(deriveSeed(seed, 'rerank', query, document)).next()
}

/**
 * The body vLLM answers an embeddings request with (OpenAI's shape: `data[i].embedding`, `usage`), or
 * a rerank request with (Cohere and Jina's shape: `results`, the best first, each with its document's
 * `index` and `relevance_score`; `top_n` of them when asked).
 */
export function inputsReplyBody(request: InputsRequest, id: string, model: string, seed: number): unknown {
  const usage = { prompt_tokens: request.promptTokens, total_tokens: request.promptTokens }
  if (request.api === 'embeddings') {
    return {
      id,
      object: 'list',
      created: Math.floor(Date.now() / 1000),
      model,
      data: request.texts.map((text, index) => ({ index, object: 'embedding', embedding: embeddingOf(text, seed) })),
      usage,
    }
  }
  const query = request.query ?? ''
  const results = request.texts
    .map((text, index) => ({ index, document: { text }, relevance_score: scoreOf(query, text, seed) }))
    .sort((a, b) => b.relevance_score - a.relevance_score)
  return { id, model, usage, results: results.slice(0, request.topN ?? results.length) }
}
