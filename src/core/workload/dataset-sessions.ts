import { OptionsError, WorkloadError } from '../contract/errors.ts'
import type { JsonlSessionSource, ShareGptSessionSource } from '../contract/workload-options.ts'
import { createRandom, deriveSeed } from '../platform/random.ts'
import { readJsonArrayElements, readJsonObjectLines, type DatasetFileFacts } from './dataset-file.ts'
import type { CountTokens } from './workload.ts'

const SHUFFLE_STREAM = 0x534853

/** A turn read from a dataset: the message, its reply length and, where the file gives it, its think time. */
export interface DatasetTurn {
  content: string
  contentTokens: number
  /** `max_tokens`; undefined: the server's default. */
  maxTokens: number | undefined
  /** Think time before this turn from the file, ms; undefined: the workload's `thinkTimeMs`. */
  thinkMs: number | undefined
}

/** A session read from a dataset. */
export interface DatasetSession {
  system: string | undefined
  turns: DatasetTurn[]
}

/** The sessions of a file, with what reading it found. */
export interface DatasetSessions {
  sessions: DatasetSession[]
  file: DatasetFileFacts
  facts: Record<string, unknown>
}

const HUMAN = new Set(['human', 'user'])
const ASSISTANT = new Set(['gpt', 'assistant', 'chatgpt', 'bard', 'bing'])
const SYSTEM = new Set(['system'])

/**
 * Every human turn of every ShareGPT conversation, in order (vLLM's sampler keeps only the first):
 * a human turn followed by a reply is a turn whose `max_tokens` is the reply's length (or
 * `outputTokens`); the dataset's replies themselves are never sent, the model's own are. Sessions
 * are shuffled with the seed. A conversation without a human turn and reply is skipped, counted.
 */
export async function readShareGptSessions(
  source: ShareGptSessionSource,
  countTokens: CountTokens,
  seed: number,
): Promise<DatasetSessions> {
  const { path, outputTokens, maxTurns } = source
  if (typeof path !== 'string' || path === '')
    throw new OptionsError(
      'workload.source.path',
      'must be the path of a ShareGPT JSON file',
      'Pass the path of a multi-turn ShareGPT file.',
    )
  if (outputTokens !== undefined && (!Number.isInteger(outputTokens) || outputTokens < 1)) {
    throw new OptionsError(
      'workload.source.outputTokens',
      `must be a whole number of tokens >= 1, got ${String(outputTokens)}`,
      "Leave it out to use each reply's length.",
    )
  }
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1)) {
    throw new OptionsError(
      'workload.source.maxTurns',
      `must be a whole number >= 1, got ${String(maxTurns)}`,
      'Leave it out to keep every turn.',
    )
  }
  const sessions: DatasetSession[] = []
  let entries = 0
  let skipped = 0
  let cutTurns = 0
  const file = await readJsonArrayElements(path, (entry, index, line) => {
    entries++
    const conversations = (entry as { conversations?: unknown } | null)?.conversations
    if (!Array.isArray(conversations)) return void skipped++
    let system: string | undefined
    const turns: DatasetTurn[] = []
    for (let i = 0; i < conversations.length; i++) {
      const { from, value } = (conversations[i] ?? {}) as { from?: unknown; value?: unknown }
      if (typeof value !== 'string') {
        throw new WorkloadError(
          `entry ${index} has a turn whose \`value\` is not a string. Each turn must be {"from": "human" | "gpt", "value": "<text>"}.`,
          { path, line },
        )
      }
      const role = String(from)
      if (SYSTEM.has(role) && turns.length === 0) system = value
      if (!HUMAN.has(role) || value === '') continue
      const reply = conversations[i + 1] as { from?: unknown; value?: unknown } | undefined
      const replied = reply !== undefined && ASSISTANT.has(String(reply.from)) && typeof reply.value === 'string'
      if (!replied && outputTokens === undefined) break
      const replyTokens = outputTokens ?? Math.max(1, countTokens(reply?.value as string))
      turns.push({ content: value, contentTokens: countTokens(value), maxTokens: replyTokens, thinkMs: undefined })
    }
    if (turns.length === 0) return void skipped++
    if (maxTurns !== undefined && turns.length > maxTurns) cutTurns += turns.splice(maxTurns).length
    sessions.push({ system, turns })
  })
  if (sessions.length === 0) {
    throw new WorkloadError(
      `no usable conversation among ${entries} entries. A usable entry has {"conversations": [{"from": "human", "value": "..."}, {"from": "gpt", "value": "..."}, ...]}.`,
      {
        path,
      },
    )
  }
  createRandom(deriveSeed(seed, SHUFFLE_STREAM)).shuffle(sessions)
  return {
    sessions,
    file,
    facts: { entries, skipped, turnsCut: cutTurns, outputTokens: outputTokens ?? null, maxTurns: maxTurns ?? null },
  }
}

const JSONL_FORMAT =
  'Each line must be one session: {"system"?: "<text>", "turns": [{"user": "<text>", "max_tokens"?: <whole number >= 1>, "think_ms"?: <ms >= 0>}, ...]}.'

/** One session per line (see {@link JsonlSessionSource}); the whole file is checked before anything is sent. */
export async function readJsonlSessions(
  source: JsonlSessionSource,
  countTokens: CountTokens,
): Promise<DatasetSessions> {
  const { path } = source
  if (typeof path !== 'string' || path === '')
    throw new OptionsError(
      'workload.source.path',
      'must be the path of a JSONL session file',
      `Pass a file with one session per line. ${JSONL_FORMAT}`,
    )
  const sessions: DatasetSession[] = []
  const file = await readJsonObjectLines(path, JSONL_FORMAT, (value, _line, fail) => {
    const { system, turns } = value
    if (system !== undefined && (typeof system !== 'string' || system === ''))
      fail('"system" must be a non-empty string')
    if (!Array.isArray(turns) || turns.length === 0) fail('"turns" must be a non-empty array')
    const read = (turns as unknown[]).map((turn, i): DatasetTurn => {
      const {
        user,
        max_tokens: maxTokens,
        think_ms: thinkMs,
      } = (turn ?? {}) as { user?: unknown; max_tokens?: unknown; think_ms?: unknown }
      if (typeof user !== 'string' || user === '') fail(`"turns"[${i}].user must be a non-empty string`)
      if (maxTokens !== undefined && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1))
        fail(`"turns"[${i}].max_tokens must be a whole number >= 1`)
      if (thinkMs !== undefined && (typeof thinkMs !== 'number' || !Number.isFinite(thinkMs) || thinkMs < 0))
        fail(`"turns"[${i}].think_ms must be a number of milliseconds >= 0`)
      return {
        content: user as string,
        contentTokens: countTokens(user as string),
        maxTokens: maxTokens as number | undefined,
        thinkMs: thinkMs as number | undefined,
      }
    })
    sessions.push({ system: system as string | undefined, turns: read })
  })
  if (sessions.length === 0)
    throw new WorkloadError(`has no sessions (the file is empty or blank). ${JSONL_FORMAT}`, { path })
  return { sessions, file, facts: {} }
}
