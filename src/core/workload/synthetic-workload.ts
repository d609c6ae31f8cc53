import { OptionsError } from '../contract/errors.ts'
import { createRandom, deriveSeed } from '../platform/random.ts'
import type { PreparedRequest } from '../contract/request-record.ts'
import type { SyntheticWorkload } from '../contract/workload-options.ts'
import { estimateTokens } from './estimate-tokens.ts'
import { newRunSalt } from './run-salt.ts'
import { ignoreEosOf } from './to-prepared-request.ts'
import { loadTokenizerCounter } from './tokenizer-file.ts'
import { promptRequest } from './to-prepared-request.ts'
import { resolveLengthDistribution, sampleLength } from './token-lengths.ts'
import { WordPromptBuilder } from './word-prompt.ts'
import type { Workload, WorkloadContext } from './workload.ts'

const LENGTH_STREAM = 0x4c454e
const TEXT_STREAM = 0x545854
const PREFIX_STREAM = 0x505258

/** `sharedPrefixTokens` when left out: no shared prefix, tokens. */
export const DEFAULT_SHARED_PREFIX_TOKENS = 0

/**
 * Prompts of common words with normally distributed input and output lengths.
 *
 * Every prompt starts with the run's salt. vLLM's docs warn that repeated runs against one server
 * inflate throughput through automatic prefix caching: the second run finds the first run's
 * prompts (same seed, same text) in the KV cache and skips their prefill. A salt that differs per
 * run changes the first token, hence every cached block hash. With `sharedPrefixTokens`, the salt
 * comes first and the shared prefix follows, so requests within a run still share the prefix.
 *
 * Input length = sharedPrefixTokens + a sampled length (as vLLM's random dataset and AIPerf add
 * the prefix to the sampled length); the salt's tokens come out of the sampled part.
 */
export async function createSyntheticWorkload(options: SyntheticWorkload, context: WorkloadContext): Promise<Workload> {
  const input = resolveLengthDistribution('workload.inputTokens', options.inputTokens)
  const output = resolveLengthDistribution('workload.outputTokens', options.outputTokens)
  const sharedPrefixTokens = options.sharedPrefixTokens ?? DEFAULT_SHARED_PREFIX_TOKENS
  if (typeof sharedPrefixTokens !== 'number' || !Number.isInteger(sharedPrefixTokens) || sharedPrefixTokens < 0) {
    throw new OptionsError(
      'workload.sharedPrefixTokens',
      `must be a whole number of tokens >= 0, got ${String(sharedPrefixTokens)}`,
      'Use 0 (the default) for no shared prefix.',
    )
  }
  const ignoreEos = ignoreEosOf(options)
  let counterName = 'estimate (GPT-2 pre-tokens)'
  let countTokens = context.countTokens ?? estimateTokens
  if (context.countTokens) counterName = 'given by the caller'
  if (options.tokenizer !== undefined) {
    countTokens = await loadTokenizerCounter(options.tokenizer)
    counterName = `tokenizer.json (${options.tokenizer})`
  }
  const salt = context.salt ?? newRunSalt()
  const builder = new WordPromptBuilder(countTokens, salt)
  const prefix = builder.randomWords(createRandom(deriveSeed(context.seed, PREFIX_STREAM)), sharedPrefixTokens)

  return {
    size: undefined,
    next(index: number): PreparedRequest {
      const lengths = createRandom(deriveSeed(context.seed, LENGTH_STREAM, index))
      const sampledInput = sampleLength(input, lengths)
      const outputTokens = sampleLength(output, lengths)
      const uniqueWords = Math.max(1, sampledInput - builder.saltTokens)
      const text = builder.join(
        prefix,
        builder.randomWords(createRandom(deriveSeed(context.seed, TEXT_STREAM, index)), uniqueWords),
      )
      return {
        ...promptRequest(context.api, text),
        maxTokens: outputTokens,
        ignoreEos,
        expectedInputTokens: builder.saltTokens + sharedPrefixTokens + uniqueWords,
      }
    },
    describe: () => ({
      kind: 'synthetic',
      seed: context.seed,
      salt,
      saltTokens: builder.saltTokens,
      inputTokens: { ...input, max: input.max === Infinity ? null : input.max },
      outputTokens: { ...output, max: output.max === Infinity ? null : output.max },
      requestedInputTokensMean: sharedPrefixTokens + input.mean,
      requestedOutputTokensMean: output.mean,
      sharedPrefixTokens,
      ignoreEos,
      tokenCounter: counterName,
      vocabularyWords: builder.words.length,
    }),
  }
}
