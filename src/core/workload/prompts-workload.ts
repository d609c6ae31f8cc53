import { OptionsError } from '../contract/errors.ts'
import type { PreparedRequest } from '../contract/request-record.ts'
import type { PromptsWorkload } from '../contract/workload-options.ts'
import { estimateTokens } from './estimate-tokens.ts'
import { ignoreEosOf, promptRequest } from './to-prepared-request.ts'
import type { Workload, WorkloadContext } from './workload.ts'

/** Default `max_tokens` of a prompts workload. */
export const DEFAULT_PROMPTS_MAX_TOKENS = 128

/** Prompts given in code, sent round-robin, verbatim. */
export function createPromptsWorkload(options: PromptsWorkload, context: WorkloadContext): Workload {
  const { prompts, maxTokens = DEFAULT_PROMPTS_MAX_TOKENS } = options
  const ignoreEos = ignoreEosOf(options)
  if (!Array.isArray(prompts) || prompts.length === 0) {
    throw new OptionsError(
      'workload.prompts',
      Array.isArray(prompts) ? 'is empty' : `must be an array of strings, got ${String(prompts)}`,
      'Give at least one prompt, e.g. `prompts: ["Tell me a story."]`.',
    )
  }
  prompts.forEach((prompt, i) => {
    if (typeof prompt !== 'string' || prompt === '') {
      throw new OptionsError(
        `workload.prompts[${i}]`,
        `must be a non-empty string, got ${JSON.stringify(prompt)}`,
        'Remove it or give the prompt text.',
      )
    }
  })
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new OptionsError(
      'workload.maxTokens',
      `must be a whole number of tokens >= 1, got ${String(maxTokens)}`,
      `Leave it out for ${DEFAULT_PROMPTS_MAX_TOKENS}.`,
    )
  }
  const countTokens = context.countTokens ?? estimateTokens
  const lengths = prompts.map((prompt) => countTokens(prompt))
  return {
    size: prompts.length,
    next(index: number): PreparedRequest {
      const at = ((index % prompts.length) + prompts.length) % prompts.length
      return {
        ...promptRequest(context.api, prompts[at] as string),
        maxTokens,
        expectedInputTokens: lengths[at] as number,
        ...(ignoreEos ? { ignoreEos } : {}),
      }
    },
    describe: () => ({
      kind: 'prompts',
      seed: context.seed,
      salt: null,
      prompts: prompts.length,
      requestedInputTokensMean: lengths.reduce((a, b) => a + b, 0) / lengths.length,
      requestedOutputTokensMean: maxTokens,
      ignoreEos,
    }),
  }
}
