import { OptionsError, WorkloadError } from '../contract/errors.ts'
import type { ApiKind } from '../contract/api-kinds.ts'
import type { JsonlWorkload } from '../contract/workload-options.ts'
import type { PreparedRequest } from '../contract/request-record.ts'
import { readDatasetLines } from './dataset-file.ts'
import { estimateTokens } from './estimate-tokens.ts'
import { ignoreEosOf, promptRequest } from './to-prepared-request.ts'
import type { CountTokens, Workload, WorkloadContext } from './workload.ts'
import { takesMessages } from '../contract/api-kinds.ts'

const FORMAT =
  'Each line must be a JSON object like {"prompt": "..."} or {"messages": [{"role": "user", "content": "..."}]}, with an optional "max_tokens": <whole number >= 1>.'

/** A problem with one line; becomes a {@link WorkloadError} with the path and line number. */
class LineProblem extends Error {}

/**
 * One JSON object per line: `{"prompt": "..."}` or `{"messages": [...]}`, optional `max_tokens`
 * (without it the server's default applies). Blank lines are skipped. The whole file is read and
 * checked before anything is sent; the first bad line fails with its number and the problem.
 * Requests follow the file's order and cycle past its end; prompts are sent verbatim.
 */
export async function createJsonlWorkload(options: JsonlWorkload, context: WorkloadContext): Promise<Workload> {
  const { path } = options
  if (typeof path !== 'string' || path === '') {
    throw new OptionsError(
      'workload.path',
      'must be the path of a JSONL file',
      'Pass the path of a file with one {"prompt": "..."} object per line.',
    )
  }
  const ignoreEos = ignoreEosOf(options)
  const countTokens = context.countTokens ?? estimateTokens
  const requests: PreparedRequest[] = []
  let inputTokens = 0
  let maxTokensSum = 0
  let withMaxTokens = 0

  const facts = await readDatasetLines(path, (text, line) => {
    if (text.trim() === '') return
    let request: PreparedRequest
    try {
      request = parseLine(text, context.api, countTokens)
    } catch (error) {
      if (error instanceof LineProblem) throw new WorkloadError(`${error.message}. ${FORMAT}`, { path, line })
      throw error
    }
    inputTokens += request.expectedInputTokens ?? 0
    if (request.maxTokens !== undefined) {
      maxTokensSum += request.maxTokens
      withMaxTokens++
    }
    requests.push(ignoreEos ? { ...request, ignoreEos } : request)
  })

  if (requests.length === 0)
    throw new WorkloadError(`has no requests (the file is empty or blank). ${FORMAT}`, { path })
  return {
    size: requests.length,
    next: (index) =>
      structuredClone(requests[((index % requests.length) + requests.length) % requests.length] as PreparedRequest),
    describe: () => ({
      kind: 'jsonl',
      path,
      sha256: facts.sha256,
      bytes: facts.bytes,
      seed: context.seed,
      salt: null,
      requests: requests.length,
      requestedInputTokensMean: inputTokens / requests.length,
      requestedOutputTokensMean: withMaxTokens > 0 ? maxTokensSum / withMaxTokens : null,
      linesWithoutMaxTokens: requests.length - withMaxTokens,
      ignoreEos,
      tokenCounter: context.countTokens ? 'given by the caller' : 'estimate (GPT-2 pre-tokens)',
    }),
  }
}

function parseLine(text: string, api: ApiKind, countTokens: CountTokens): PreparedRequest {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new LineProblem(`invalid JSON (${(error as Error).message})`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LineProblem('not a JSON object')
  const {
    prompt,
    messages,
    max_tokens: maxTokens,
  } = value as { prompt?: unknown; messages?: unknown; max_tokens?: unknown }
  let request: PreparedRequest
  if (prompt !== undefined && messages !== undefined)
    throw new LineProblem('has both "prompt" and "messages"; keep one')
  if (prompt !== undefined) {
    if (typeof prompt !== 'string' || prompt === '') throw new LineProblem('"prompt" must be a non-empty string')
    request = { ...promptRequest(api, prompt), expectedInputTokens: countTokens(prompt) }
  } else if (messages !== undefined) {
    if (!Array.isArray(messages) || messages.length === 0) throw new LineProblem('"messages" must be a non-empty array')
    const typed = messages.map((message: unknown, i) => {
      const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown }
      if (typeof role !== 'string' || typeof content !== 'string')
        throw new LineProblem(`"messages"[${i}] must be {"role": "<string>", "content": "<string>"}`)
      return { role, content }
    })
    if (!takesMessages(api))
      throw new LineProblem(
        'has "messages", but the target uses the completions API, which takes a "prompt"; set `target.api` to "chat", "responses" or "messages", or write "prompt" lines',
      )
    request = { messages: typed, expectedInputTokens: typed.reduce((sum, m) => sum + countTokens(m.content), 0) }
  } else throw new LineProblem('has neither "prompt" nor "messages"')
  if (maxTokens !== undefined) {
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)
      throw new LineProblem(`"max_tokens" must be a whole number >= 1, got ${JSON.stringify(maxTokens)}`)
    request.maxTokens = maxTokens
  }
  return request
}
