import type { ApiKind } from '../contract/api-kinds.ts'
import type { ConversationMessage, PreparedRequest } from '../contract/request-record.ts'
import type { Workload } from './workload.ts'
import { takesMessages } from '../contract/api-kinds.ts'

/** One turn of a session as the workload scripts it; the history before it is added when it is sent. */
export interface TurnScript {
  /**
   * `user`: a user message; `tool`: a tool's result fed back to the model, sent as the answer to the tool calls the
   * previous reply made (as a user message when it made none: see docs/sessions.md).
   */
  readonly role: 'user' | 'tool'
  /** The new message. */
  readonly content: string
  /** Tokens of `content` as the workload counted or planned them. */
  readonly contentTokens: number
  /** `max_tokens` of the reply; undefined: the server's default. */
  readonly maxTokens: number | undefined
  /** Wait after the previous turn (and its sub-agents) ended, before this one is sent, ms. */
  readonly thinkMs: number
  /** Sub-agent sessions started together when this turn's reply is complete; the next turn waits for all of them. */
  readonly spawn: readonly SessionScript[]
}

/** A session: an optional system prompt and its turns, sent one at a time. */
export interface SessionScript {
  /** The session's id (the trace's `session_id`, or `s<index>` for generated and dataset sessions). */
  readonly id: string
  /** System prompt sent first in every turn; undefined: none. */
  readonly system: string | undefined
  /** Tokens of `system`, as the workload counted them (0 without one). */
  readonly systemTokens: number
  /** Send `ignore_eos` and `min_tokens = max_tokens` on every turn. */
  readonly ignoreEos: boolean
  readonly turns: readonly TurnScript[]
}

/**
 * A workload whose unit is a session. `next(index)` is the first turn of session `index` alone
 * (the streaming probe and the warm-up send it); `session(index)` the whole script.
 */
export interface SessionWorkload extends Workload {
  readonly unit: 'session'
  /** The script of root session `index` (deterministic given the seed; datasets cycle, warm-up indices are negative). */
  session(index: number): SessionScript
}

/** True when `workload` runs sessions. */
export function isSessionWorkload(workload: Workload): workload is SessionWorkload {
  return (workload as Partial<SessionWorkload>).unit === 'session'
}

/**
 * The request for a turn: the history (system prompt, earlier messages and the model's actual
 * replies) and the new message. An API that takes a conversation gets them as messages (the full history each
 * turn, as a client without server-side state sends them); completions joins their texts with
 * blank lines into one `prompt`, so the history is a prefix of every later prompt either way.
 */
export function turnRequest(
  api: ApiKind,
  script: SessionScript,
  history: readonly ConversationMessage[],
  turn: TurnScript,
  historyTokens: number,
): PreparedRequest {
  const messages = [...history, ...turnMessages(turn, history)]
  const request: PreparedRequest = takesMessages(api)
    ? { messages: messages.map((m) => ({ ...m })) }
    : { prompt: messages.map((m) => m.content).join('\n\n') }
  request.expectedInputTokens = historyTokens + turn.contentTokens
  request.keepOutputText = true
  if (turn.maxTokens !== undefined) request.maxTokens = turn.maxTokens
  if (script.ignoreEos) request.ignoreEos = true
  return request
}

/** The first turn of `script` with nothing before it but the system prompt (probe and warm-up). */
export function firstTurnRequest(api: ApiKind, script: SessionScript): PreparedRequest {
  const first = script.turns[0]
  if (first === undefined) throw new Error(`session ${script.id} has no turns`)
  const request = turnRequest(api, script, systemHistory(script), first, script.systemTokens)
  delete request.keepOutputText
  return request
}

/**
 * The messages a turn adds to the conversation: a user message; for a `tool` turn after a reply that
 * called tools, one `tool` message per call, since every call must be answered (the turn's text
 * answers the first, an empty result the others). A `tool` turn after a reply without a call goes
 * as a user message: there is no call to answer.
 */
export function turnMessages(turn: TurnScript, history: readonly ConversationMessage[]): ConversationMessage[] {
  const calls = turn.role === 'tool' ? history.at(-1)?.toolCalls : undefined
  if (calls === undefined || calls.length === 0) return [{ role: 'user', content: turn.content }]
  return calls.map((call, i) => ({ role: 'tool', content: i === 0 ? turn.content : '', toolCallId: call.id }))
}

/** The history a session starts with: its system prompt, if any. */
export function systemHistory(script: SessionScript): ConversationMessage[] {
  return script.system === undefined ? [] : [{ role: 'system', content: script.system }]
}
