import { OptionsError, WorkloadError } from '../contract/errors.ts'
import { createRandom, deriveSeed } from '../platform/random.ts'
import type { PreparedRequest } from '../contract/request-record.ts'
import type { ShareGptWorkload } from '../contract/workload-options.ts'
import { readJsonArrayElements } from './dataset-file.ts'
import { estimateTokens } from './estimate-tokens.ts'
import { ignoreEosOf, promptRequest } from './to-prepared-request.ts'
import type { Workload, WorkloadContext } from './workload.ts'

const SHUFFLE_STREAM = 0x534847

/** vLLM's `is_valid_sequence` defaults (benchmarks/datasets.py), applied to ShareGPT samples. */
export const SHAREGPT_LIMITS = { minTokens: 4, maxPromptTokens: 1024, maxTotalTokens: 2048 } as const

const HUMAN = new Set(['human', 'user'])
const ASSISTANT = new Set(['gpt', 'assistant', 'chatgpt', 'bard', 'bing'])

interface Sample {
  prompt: string
  promptTokens: number
  outputTokens: number
}

type SkipReason =
  | 'no conversations'
  | 'no human turn followed by a reply'
  | 'prompt too short'
  | 'reply too short'
  | 'prompt too long'
  | 'prompt and reply too long'

/**
 * The ShareGPT JSON file of vLLM's docs (`ShareGPT_V3_unfiltered_cleaned_split.json`): an array of
 * `{ id, conversations: [{ from: 'human' | 'gpt', value }] }`. As vLLM's ShareGPT sampler: the
 * first human turn is the prompt and the reply that follows it sets `max_tokens` (its estimated
 * length, or `outputTokens` for every request as vLLM's `--sharegpt-output-len`); samples outside
 * vLLM's limits (prompt or reply under 4 tokens, prompt over 1024, both over 2048) are dropped;
 * the rest are shuffled with the seed. Requests cycle through the samples (vLLM oversamples at
 * random instead). Prompts are sent verbatim, without a salt: a repeated run can meet its own
 * prompts in the server's prefix cache, as with vLLM. The file is streamed, entry by entry.
 */
export async function createShareGptWorkload(options: ShareGptWorkload, context: WorkloadContext): Promise<Workload> {
  const { path, outputTokens } = options
  if (typeof path !== 'string' || path === '') {
    throw new OptionsError(
      'workload.path',
      'must be the path of the ShareGPT JSON file',
      'Download ShareGPT_V3_unfiltered_cleaned_split.json and pass its path.',
    )
  }
  if (outputTokens !== undefined && (!Number.isInteger(outputTokens) || outputTokens < 1)) {
    throw new OptionsError(
      'workload.outputTokens',
      `must be a whole number of tokens >= 1, got ${String(outputTokens)}`,
      "Leave it out to use each reply's length.",
    )
  }
  const ignoreEos = ignoreEosOf(options)
  const countTokens = context.countTokens ?? estimateTokens
  const samples: Sample[] = []
  const skipped = new Map<SkipReason, number>()
  let entries = 0
  const skip = (reason: SkipReason): void => {
    skipped.set(reason, (skipped.get(reason) ?? 0) + 1)
  }

  const facts = await readJsonArrayElements(path, (entry, index, line) => {
    entries++
    const conversations = (entry as { conversations?: unknown } | null)?.conversations
    if (!Array.isArray(conversations) || conversations.length === 0) return skip('no conversations')
    const turns: unknown[] = conversations
    const humanAt = turns.findIndex((turn) => HUMAN.has(String((turn as { from?: unknown } | null)?.from)))
    const human = turns[humanAt] as { value?: unknown } | undefined
    const reply =
      humanAt === -1
        ? undefined
        : (turns.slice(humanAt + 1).find((turn) => ASSISTANT.has(String((turn as { from?: unknown } | null)?.from))) as
            { value?: unknown } | undefined)
    if (!human || (!reply && outputTokens === undefined)) return skip('no human turn followed by a reply')
    if (typeof human.value !== 'string' || (reply && typeof reply.value !== 'string')) {
      throw new WorkloadError(
        `entry ${index} has a turn whose \`value\` is not a string. Each turn must be {"from": "human" | "gpt", "value": "<text>"}.`,
        { path, line },
      )
    }
    const promptTokens = countTokens(human.value)
    const replyTokens = outputTokens ?? countTokens(reply?.value as string)
    if (promptTokens < SHAREGPT_LIMITS.minTokens) return skip('prompt too short')
    if (outputTokens === undefined && replyTokens < SHAREGPT_LIMITS.minTokens) return skip('reply too short')
    if (promptTokens > SHAREGPT_LIMITS.maxPromptTokens) return skip('prompt too long')
    if (promptTokens + replyTokens > SHAREGPT_LIMITS.maxTotalTokens) return skip('prompt and reply too long')
    samples.push({ prompt: human.value, promptTokens, outputTokens: replyTokens })
  })

  if (samples.length === 0) {
    const reasons = [...skipped].map(([reason, count]) => `${count} ${reason}`).join(', ')
    throw new WorkloadError(
      `no usable conversation among ${entries} entries (${reasons || 'the array is empty'}). A usable entry has {"conversations": [{"from": "human", "value": <prompt of ${SHAREGPT_LIMITS.minTokens}..${SHAREGPT_LIMITS.maxPromptTokens} tokens>}, {"from": "gpt", "value": <reply of at least ${SHAREGPT_LIMITS.minTokens} tokens>}]}, prompt and reply at most ${SHAREGPT_LIMITS.maxTotalTokens} tokens together.`,
      { path },
    )
  }
  createRandom(deriveSeed(context.seed, SHUFFLE_STREAM)).shuffle(samples)
  const mean = (pick: (sample: Sample) => number): number =>
    samples.reduce((sum, sample) => sum + pick(sample), 0) / samples.length

  return {
    size: samples.length,
    next(index: number): PreparedRequest {
      const sample = samples[((index % samples.length) + samples.length) % samples.length] as Sample
      return {
        ...promptRequest(context.api, sample.prompt),
        maxTokens: sample.outputTokens,
        expectedInputTokens: sample.promptTokens,
        ...(ignoreEos ? { ignoreEos } : {}),
      }
    },
    describe: () => ({
      kind: 'sharegpt',
      path,
      sha256: facts.sha256,
      bytes: facts.bytes,
      seed: context.seed,
      salt: null,
      entries,
      samples: samples.length,
      skipped: Object.fromEntries(skipped),
      limits: SHAREGPT_LIMITS,
      outputTokens: outputTokens ?? null,
      ignoreEos,
      requestedInputTokensMean: mean((sample) => sample.promptTokens),
      requestedOutputTokensMean: mean((sample) => sample.outputTokens),
      tokenCounter: context.countTokens ? 'given by the caller' : 'estimate (GPT-2 pre-tokens)',
    }),
  }
}
