import { OptionsError, WorkloadError } from '../contract/errors.ts'
import { createRandom, deriveSeed } from '../platform/random.ts'
import type { PreparedRequest } from '../contract/request-record.ts'
import type { TraceWorkload } from '../contract/workload-options.ts'
import { readJsonObjectLines } from './dataset-file.ts'
import { estimateTokens } from './estimate-tokens.ts'
import { newRunSalt } from './run-salt.ts'
import { ignoreEosOf, promptRequest } from './to-prepared-request.ts'
import { WordPromptBuilder } from './word-prompt.ts'
import type { Workload, WorkloadContext } from './workload.ts'

/** Tokens behind one hash id in mooncake traces. */
export const TRACE_BLOCK_TOKENS = 512
const BLOCK_STREAM = 0x424c4b
const FILL_STREAM = 0x46494c

const FORMAT =
  'Each line must be a mooncake trace record: {"timestamp": <ms>, "input_length": <tokens>, "output_length": <tokens>, "hash_ids": [<int>, ...]}, sorted by timestamp.'

interface TraceRecord {
  timestamp: number
  inputLength: number
  outputLength: number
  hashIds: number[]
}

/**
 * Replay of a mooncake-format trace (JSONL). Each hash id stands for one block of 512 tokens,
 * built deterministically from the id (and the seed), so records that share leading hash ids
 * share a prompt prefix, as in the traced service; the prompt is cut or padded to `input_length`
 * and `max_tokens` = `output_length` with `ignore_eos`. Offsets are the timestamps minus the
 * first one. The run's salt opens every prompt, which keeps the sharing within the run but not
 * with earlier runs (see the synthetic workload).
 */
export async function createTraceWorkload(options: TraceWorkload, context: WorkloadContext): Promise<Workload> {
  const { path } = options
  if (typeof path !== 'string' || path === '') {
    throw new OptionsError(
      'workload.path',
      'must be the path of a mooncake trace (JSONL)',
      'Pass the path of the trace file.',
    )
  }
  const ignoreEos = ignoreEosOf(options)
  const countTokens = context.countTokens ?? estimateTokens
  const records: TraceRecord[] = []
  let previous = -Infinity
  const facts = await readJsonObjectLines(path, FORMAT, (value, _line, fail) => {
    const { timestamp, input_length: inputLength, output_length: outputLength, hash_ids: hashIds = [] } = value
    if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp < 0)
      fail(`"timestamp" must be a number of milliseconds >= 0, got ${JSON.stringify(timestamp)}`)
    if ((timestamp as number) < previous)
      fail(`"timestamp" ${String(timestamp)} is earlier than the line before (${previous})`)
    if (typeof inputLength !== 'number' || !Number.isInteger(inputLength) || inputLength < 1)
      fail(`"input_length" must be a whole number >= 1, got ${JSON.stringify(inputLength)}`)
    if (typeof outputLength !== 'number' || !Number.isInteger(outputLength) || outputLength < 1)
      fail(`"output_length" must be a whole number >= 1, got ${JSON.stringify(outputLength)}`)
    if (!Array.isArray(hashIds) || !hashIds.every((id) => Number.isInteger(id)))
      fail('"hash_ids" must be an array of whole numbers')
    previous = timestamp as number
    records.push({
      timestamp: timestamp as number,
      inputLength: inputLength as number,
      outputLength: outputLength as number,
      hashIds: hashIds as number[],
    })
  })
  if (records.length === 0) throw new WorkloadError(`has no records (the file is empty or blank). ${FORMAT}`, { path })

  const salt = context.salt ?? newRunSalt()
  const builder = new WordPromptBuilder(countTokens, salt)
  const first = records[0]?.timestamp ?? 0
  const blockText = (hashId: number, tokens: number): string =>
    builder.randomWords(createRandom(deriveSeed(context.seed, BLOCK_STREAM, hashId)), tokens)

  return {
    size: records.length,
    timestampsMs: records.map((record) => record.timestamp - first),
    next(index: number): PreparedRequest {
      const at = ((index % records.length) + records.length) % records.length
      const record = records[at] as TraceRecord
      // The salt's tokens come out of the last block so the prompt keeps `input_length` tokens.
      const uniqueTokens = Math.max(1, record.inputLength - builder.saltTokens)
      let left = uniqueTokens
      const parts: string[] = []
      for (const hashId of record.hashIds) {
        if (left <= 0) break
        const tokens = Math.min(TRACE_BLOCK_TOKENS, left)
        parts.push(blockText(hashId, tokens))
        left -= tokens
      }
      if (left > 0) parts.push(builder.randomWords(createRandom(deriveSeed(context.seed, FILL_STREAM, at)), left))
      return {
        ...promptRequest(context.api, builder.join(...parts)),
        maxTokens: record.outputLength,
        ignoreEos,
        expectedInputTokens: builder.saltTokens + uniqueTokens,
        timestampMs: record.timestamp - first,
      }
    },
    describe: () => ({
      kind: 'trace',
      path,
      sha256: facts.sha256,
      bytes: facts.bytes,
      seed: context.seed,
      salt,
      records: records.length,
      spanMs: (records[records.length - 1]?.timestamp ?? first) - first,
      blockTokens: TRACE_BLOCK_TOKENS,
      requestedInputTokensMean: records.reduce((sum, r) => sum + r.inputLength, 0) / records.length,
      requestedOutputTokensMean: records.reduce((sum, r) => sum + r.outputLength, 0) / records.length,
    }),
  }
}
