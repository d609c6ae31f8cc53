import type { CompletionRequest } from './request.ts'
import { createRandom, deriveSeed } from '../core/platform/random.ts'

/** What a request will produce, fixed at arrival. */
export interface OutputPlan {
  /** Output length in tokens. */
  completionTokens: number
  finishReason: 'length' | 'stop'
  /** Seed of the output text, from the request's content and the simulator's seed. */
  textSeed: number
}

/**
 * Output length rule (documented on `SimulatorOptions.defaultMaxTokens`): exactly `max_tokens` with
 * `ignore_eos`, else uniform in [ceil(max_tokens / 2), max_tokens], at least `min_tokens`.
 * Same request and seed, same plan: a real model at temperature 0 also repeats itself.
 */
export function planOutput(request: CompletionRequest, seed: number): OutputPlan {
  const contentSeed = deriveSeed(seed, 'content', request.contentKey)
  const { maxTokens, minTokens } = request
  let completionTokens = maxTokens
  if (!request.ignoreEos) {
    const low = Math.ceil(maxTokens / 2)
    const draw = low + Math.floor(createRandom(contentSeed).next() * (maxTokens - low + 1))
    completionTokens = Math.min(maxTokens, Math.max(minTokens, draw))
  }
  return {
    completionTokens,
    finishReason: completionTokens === maxTokens ? 'length' : 'stop',
    textSeed: deriveSeed(contentSeed, 'text'),
  }
}
