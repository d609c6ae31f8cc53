import { OptionsError, WorkloadError } from '../contract/errors.ts'
import type { AgenticTraceWorkload } from '../contract/workload-options.ts'
import { createRandom, deriveSeed } from '../platform/random.ts'
import { readJsonObjectLines, type DatasetFileFacts } from './dataset-file.ts'
import type { SessionScript, TurnScript } from './session-script.ts'
import { TRACE_BLOCK_TOKENS } from './trace-workload.ts'
import type { WordPromptBuilder } from './word-prompt.ts'
import type { CountTokens } from './workload.ts'

const BLOCK_STREAM = 0x424c4b
const FILL_STREAM = 0x414746

const FORMAT =
  'Each line is one request: {"session_id": <id>, "input_length": <tokens of the new message>, "output_length": <tokens>, and optionally "timestamp": <ms, on the first line of a root session>, "delay": <think ms before this turn>, "role": "user" | "tool", "hash_ids": [<int>, ...], "text": "<message>", and on the first line of a sub-agent "parent_session_id": <id>, "parent_turn": <turn number of the parent that spawns it, from 1>} (docs/sessions.md).'

interface TraceTurn {
  role: 'user' | 'tool'
  inputLength: number
  outputLength: number
  delayMs: number
  hashIds: number[]
  text: string | undefined
}

interface TraceSession {
  id: string
  /** First line of the session, for messages. */
  line: number
  timestamp: number | undefined
  parent: { id: string; turn: number } | undefined
  turns: TraceTurn[]
  /** Sub-agent sessions by the parent turn (0-based) that spawns them. */
  children: Map<number, TraceSession[]>
}

/** The root sessions of an agentic trace, in start order, and how to build their scripts. */
export interface AgenticTrace {
  roots: number
  /** Start offset of each root session from the first, ms, non-decreasing. */
  startOffsetsMs: number[]
  session(index: number): SessionScript
  file: DatasetFileFacts
  facts: Record<string, unknown>
  requestedInputTokensMean: number
  requestedOutputTokensMean: number
}

const isId = (value: unknown): value is string | number =>
  (typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value))
const wholeAtLeast = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min

/**
 * Reads an agentic trace: requests grouped into sessions by `session_id` (in file order within a
 * session), root sessions ordered by `timestamp`, sub-agents attached to the parent turn that
 * spawns them. Message text is built from `hash_ids` (one block of 512 tokens per id, the same
 * words for the same id, so sessions that share ids share a prompt prefix, as in mooncake traces)
 * and padded to `input_length`; `text` is sent as written. The whole file is checked first.
 */
export async function readAgenticTrace(
  options: AgenticTraceWorkload,
  builder: WordPromptBuilder,
  countTokens: CountTokens,
  seed: number,
  ignoreEos: boolean,
): Promise<AgenticTrace> {
  const { path } = options
  if (typeof path !== 'string' || path === '')
    throw new OptionsError(
      'workload.path',
      'must be the path of an agentic trace (JSONL)',
      `Pass the path of the trace file. ${FORMAT}`,
    )
  const sessions = new Map<string, TraceSession>()
  let requests = 0
  let inputSum = 0
  let outputSum = 0
  const file = await readJsonObjectLines(path, FORMAT, (record, line, fail) => {
    const {
      session_id: sessionId,
      timestamp,
      delay = 0,
      role = 'user',
      input_length: inputLength,
      output_length: outputLength,
      hash_ids: hashIds = [],
      text: literal,
    } = record
    const { parent_session_id: parentId, parent_turn: parentTurn } = record
    if (!isId(sessionId)) fail(`"session_id" must be a non-empty string or a number, got ${JSON.stringify(sessionId)}`)
    if (!wholeAtLeast(outputLength, 1))
      fail(`"output_length" must be a whole number >= 1, got ${JSON.stringify(outputLength)}`)
    if (literal !== undefined && (typeof literal !== 'string' || literal === ''))
      fail('"text" must be a non-empty string')
    if (literal === undefined && !wholeAtLeast(inputLength, 1))
      fail(`"input_length" must be a whole number >= 1, got ${JSON.stringify(inputLength)}`)
    if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0)
      fail(`"delay" must be a number of milliseconds >= 0, got ${JSON.stringify(delay)}`)
    if (role !== 'user' && role !== 'tool') fail(`"role" must be "user" or "tool", got ${JSON.stringify(role)}`)
    if (!Array.isArray(hashIds) || !hashIds.every((id) => Number.isInteger(id)))
      fail('"hash_ids" must be an array of whole numbers')
    const id = String(sessionId)
    let session = sessions.get(id)
    if (session === undefined) {
      let parent: TraceSession['parent']
      if (parentId !== undefined) {
        if (!isId(parentId)) fail(`"parent_session_id" must be a session id, got ${JSON.stringify(parentId)}`)
        if (!sessions.has(String(parentId)))
          fail(
            `"parent_session_id" ${JSON.stringify(parentId)} names no session on an earlier line (a parent comes before its sub-agents)`,
          )
        if (!wholeAtLeast(parentTurn, 1))
          fail(
            `"parent_turn" must be the turn number (from 1) of the parent that spawns this sub-agent, got ${JSON.stringify(parentTurn)}`,
          )
        if (timestamp !== undefined) fail('a sub-agent has no "timestamp": it starts when its parent turn completes')
        parent = { id: String(parentId), turn: parentTurn as number }
      } else {
        if (parentTurn !== undefined) fail('"parent_turn" needs "parent_session_id"')
        if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp < 0)
          fail(`the first line of a root session needs "timestamp" (ms >= 0), got ${JSON.stringify(timestamp)}`)
      }
      session = { id, line, timestamp: timestamp as number | undefined, parent, turns: [], children: new Map() }
      sessions.set(id, session)
    } else if (timestamp !== undefined || parentId !== undefined) {
      fail(
        `"timestamp" and "parent_session_id" belong on the first line of session ${JSON.stringify(id)} only (line ${session.line})`,
      )
    }
    const tokens = literal === undefined ? (inputLength as number) : countTokens(literal as string)
    session.turns.push({
      role: role as 'user' | 'tool',
      inputLength: tokens,
      outputLength: outputLength as number,
      delayMs: delay as number,
      hashIds: hashIds as number[],
      text: literal as string | undefined,
    })
    requests++
    inputSum += tokens
    outputSum += outputLength as number
  })
  if (sessions.size === 0) throw new WorkloadError(`has no requests (the file is empty or blank). ${FORMAT}`, { path })

  const roots: TraceSession[] = []
  let subAgents = 0
  let maxFanOut = 0
  for (const session of sessions.values()) {
    if (session.parent === undefined) {
      roots.push(session)
      continue
    }
    const parent = sessions.get(session.parent.id) as TraceSession
    if (session.parent.turn > parent.turns.length) {
      throw new WorkloadError(
        `session ${JSON.stringify(session.id)} names "parent_turn" ${session.parent.turn}, but session ${JSON.stringify(parent.id)} has ${parent.turns.length} turns. ${FORMAT}`,
        { path, line: session.line },
      )
    }
    const siblings = parent.children.get(session.parent.turn - 1) ?? []
    siblings.push(session)
    parent.children.set(session.parent.turn - 1, siblings)
    subAgents++
    maxFanOut = Math.max(maxFanOut, siblings.length)
  }
  // Stable: roots with equal timestamps keep their file order.
  roots.sort((a, b) => (a.timestamp as number) - (b.timestamp as number))
  const first = roots[0]?.timestamp ?? 0

  const blockText = (hashId: number, tokens: number): string =>
    builder.randomWords(createRandom(deriveSeed(seed, BLOCK_STREAM, hashId)), tokens)
  const turnText = (
    session: TraceSession,
    at: number,
    turn: TraceTurn,
    salted: boolean,
  ): { content: string; tokens: number } => {
    if (turn.text !== undefined)
      return {
        content: salted ? builder.join(turn.text) : turn.text,
        tokens: turn.inputLength + (salted ? builder.saltTokens : 0),
      }
    const parts: string[] = []
    let left = turn.inputLength
    for (const hashId of turn.hashIds) {
      if (left <= 0) break
      const tokens = Math.min(TRACE_BLOCK_TOKENS, left)
      parts.push(blockText(hashId, tokens))
      left -= tokens
    }
    if (left > 0) parts.push(builder.randomWords(createRandom(deriveSeed(seed, FILL_STREAM, session.id, at)), left))
    const content = salted ? builder.join(...parts) : parts.join(' ')
    return { content, tokens: turn.inputLength + (salted ? builder.saltTokens : 0) }
  }
  // The run's salt opens each root session's first message: sessions of this run share hashed blocks after it, never with an earlier run.
  const scriptOf = (session: TraceSession, root: boolean): SessionScript => ({
    id: session.id,
    system: undefined,
    systemTokens: 0,
    ignoreEos,
    turns: session.turns.map((turn, at): TurnScript => {
      const text = turnText(session, at, turn, root && at === 0)
      return {
        role: turn.role,
        content: text.content,
        contentTokens: text.tokens,
        maxTokens: turn.outputLength,
        thinkMs: turn.delayMs,
        spawn: (session.children.get(at) ?? []).map((child) => scriptOf(child, false)),
      }
    }),
  })

  return {
    roots: roots.length,
    startOffsetsMs: roots.map((root) => (root.timestamp as number) - first),
    session: (index) => scriptOf(roots[((index % roots.length) + roots.length) % roots.length] as TraceSession, true),
    file,
    facts: {
      sessions: sessions.size,
      rootSessions: roots.length,
      subAgents,
      maxFanOut,
      requests,
      blockTokens: TRACE_BLOCK_TOKENS,
      spanMs: (roots[roots.length - 1]?.timestamp ?? first) - first,
    },
    requestedInputTokensMean: inputSum / requests,
    requestedOutputTokensMean: outputSum / requests,
  }
}
