import type { ApiKind } from '../contract/api-kinds.ts'
import type { ConversationMessage, PreparedRequest, RequestRecord, SessionTurnRef } from '../contract/request-record.ts'
import { systemHistory, turnMessages, turnRequest, type SessionScript } from '../workload/index.ts'

/** What running a session needs: how to send one turn. */
export interface SessionTurnSender {
  readonly api: ApiKind
  /**
   * Sends one turn and resolves with its record (ok or failed, never rejecting for a failed
   * request). `plannedAt` is the planned send time of a root session's first turn in an open loop.
   */
  send(
    request: PreparedRequest,
    ref: SessionTurnRef,
    plannedAt: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<RequestRecord>
}

/** How one session (with its sub-agents) went. */
export interface SessionOutcome {
  /** Every turn completed, sub-agents' included. */
  ok: boolean
  /** Turns sent, sub-agents' included. */
  turns: number
  /** Sub-agent sessions started (at any depth). */
  subSessions: number
  /** Send time of the first turn (`performance.now()`), undefined when nothing was sent. */
  firstSentAt: number | undefined
  /** End of the last turn to end, undefined when nothing was sent. */
  lastEndAt: number | undefined
  /** Records of the turns, in the order they ended. */
  records: RequestRecord[]
}

/** Waits `ms` milliseconds; resolves early (false) when `signal` aborts. */
function thinkFor(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(signal?.aborted !== true)
  if (signal?.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Runs a session one turn at a time: each turn waits its think time, then sends the system prompt,
 * every earlier message with the model's actual reply, and the new message. A turn with sub-agents
 * starts them together once its reply is complete, and the next turn waits for all of them. A
 * failed turn (or sub-agent) ends the session: what follows depends on a reply that never came.
 */
export async function runSession(
  script: SessionScript,
  root: number,
  depth: number,
  sender: SessionTurnSender,
  signal: AbortSignal | undefined,
  plannedAt: number | undefined = undefined,
): Promise<SessionOutcome> {
  const outcome: SessionOutcome = {
    ok: true,
    turns: 0,
    subSessions: 0,
    firstSentAt: undefined,
    lastEndAt: undefined,
    records: [],
  }
  const history: ConversationMessage[] = systemHistory(script)
  let historyTokens = script.systemTokens
  for (let i = 0; i < script.turns.length; i++) {
    const turn = script.turns[i] as (typeof script.turns)[number]
    if (!(await thinkFor(turn.thinkMs, signal))) {
      outcome.ok = false
      break
    }
    const request = turnRequest(sender.api, script, history, turn, historyTokens)
    const record = await sender.send(
      request,
      { session: root, turn: i + 1, depth },
      i === 0 ? plannedAt : undefined,
      signal,
    )
    const reply = record.outputText ?? ''
    const toolCalls = record.toolCalls
    // The text and the calls served the history; they do not belong in recorded results.
    delete record.outputText
    delete record.toolCalls
    outcome.turns++
    outcome.records.push(record)
    outcome.firstSentAt ??= record.sentAt
    outcome.lastEndAt = Math.max(outcome.lastEndAt ?? record.endAt, record.endAt)
    if (!record.ok) {
      outcome.ok = false
      break
    }
    history.push(...turnMessages(turn, history), {
      role: 'assistant',
      content: reply,
      ...(toolCalls !== undefined ? { toolCalls } : {}),
    })
    // The server's prompt count already holds the history; without usage, the workload's count.
    historyTokens =
      (record.usageReported ? record.inputTokens : historyTokens + turn.contentTokens) + record.outputTokens
    if (turn.spawn.length > 0) {
      const children = await Promise.all(turn.spawn.map((child) => runSession(child, root, depth + 1, sender, signal)))
      for (const child of children) {
        outcome.turns += child.turns
        outcome.subSessions += 1 + child.subSessions
        outcome.records.push(...child.records)
        if (child.lastEndAt !== undefined) outcome.lastEndAt = Math.max(outcome.lastEndAt, child.lastEndAt)
        if (!child.ok) outcome.ok = false
      }
      if (!outcome.ok) break
    }
  }
  return outcome
}
