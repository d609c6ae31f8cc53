import { OptionsError } from '../contract/errors.ts'
import type { InputsApi } from '../contract/api-kinds.ts'
import type { PreparedRequest } from '../contract/request-record.ts'
import type { Workload } from './workload.ts'
import { promptTextOf } from '../contract/prompt-text.ts'

/** `workload.batch` when left out: one text per `embeddings` request, one document per `rerank` request. */
export const DEFAULT_BATCH = 1

/** The largest `workload.batch`: beyond it a request is a bulk job, not a serving benchmark. */
export const MAX_BATCH = 4096

/** `workload.batch` checked, or its default. */
export function batchOf(value: unknown): number {
  if (value === undefined) return DEFAULT_BATCH
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_BATCH)
    throw new OptionsError(
      'workload.batch',
      `must be a whole number from 1 to ${MAX_BATCH}, got ${JSON.stringify(value)}`,
      `Give the texts per embeddings request (documents per rerank request), or leave it out for ${DEFAULT_BATCH}.`,
    )
  return value
}

/**
 * The workload's texts grouped into `embeddings` or `rerank` requests. Request `i` of the result takes
 * the `group` consecutive texts from `i * group` of the inner workload (warm-up's negative indices
 * too), `group` being `batch` (embeddings) or `batch + 1` (rerank: the first text is the query, the
 * others its documents). Deterministic as the inner workload is; lengths, salt and prefix are its.
 */
export function batchInputs(inner: Workload, api: InputsApi, batch: number): Workload {
  const group = api === 'rerank' ? batch + 1 : batch
  return {
    size: inner.size === undefined ? undefined : Math.ceil(inner.size / group),
    next(index: number): PreparedRequest {
      const texts: string[] = []
      const tokens: Array<number | undefined> = []
      for (let j = 0; j < group; j++) {
        const request = inner.next(index * group + j)
        texts.push(promptTextOf(request))
        tokens.push(request.expectedInputTokens)
      }
      const request: PreparedRequest =
        api === 'rerank' ? { query: texts[0] as string, inputs: texts.slice(1) } : { inputs: texts }
      if (tokens.every((count) => count !== undefined)) {
        const sum = tokens.reduce((total, count) => total + count, 0)
        // A reranker reads the query once beside each document.
        request.expectedInputTokens = api === 'rerank' ? sum + (batch - 1) * (tokens[0] as number) : sum
      }
      return request
    },
    describe() {
      const facts = { ...inner.describe() }
      // Output lengths are no part of these APIs (a synthetic workload sampled one nobody sends).
      delete facts.outputTokens
      delete facts.ignoreEos
      return {
        ...facts,
        batch,
        // Per request: every text of the group (a reranker reads the query beside each document).
        requestedInputTokensMean: facts.requestedInputTokensMean * (api === 'rerank' ? 2 * batch : batch),
        requestedOutputTokensMean: null,
      }
    },
  }
}
