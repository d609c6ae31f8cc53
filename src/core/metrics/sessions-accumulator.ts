import type { GoodputLimits } from '../contract/options.ts'
import type { RequestRecord } from '../contract/request-record.ts'
import type { SessionsResult, TurnMetrics } from '../contract/result.ts'
import { Distribution } from './distribution.ts'
import { meetsGoodputLimits } from './goodput.ts'
import { LATENCY_HIGHEST_TRACKABLE_US, LATENCY_UNITS_PER_MS, TOKENS_HIGHEST_TRACKABLE } from './histogram.ts'
import { endToEndMs, timeToFirstTokenMs } from './request-latency.ts'

/** Turn numbers with an entry of their own; later turns share the last entry. */
export const TURN_ENTRIES = 32

/** How a root session ended (the session runner's outcome, as far as metrics need it). */
export interface EndedSession {
  ok: boolean
  turns: number
  subSessions: number
  firstSentAt: number | undefined
  lastEndAt: number | undefined
  records: readonly RequestRecord[]
}

class TurnAccumulator {
  requests = 0
  failed = 0
  readonly ttftMs = new Distribution(LATENCY_UNITS_PER_MS, LATENCY_HIGHEST_TRACKABLE_US)
  readonly e2eMs = new Distribution(LATENCY_UNITS_PER_MS, LATENCY_HIGHEST_TRACKABLE_US)
  readonly inputTokens = new Distribution(1, TOKENS_HIGHEST_TRACKABLE)
}

const clamp = (value: number): number => (Number.isFinite(value) && value > 0 ? value : 0)

/**
 * Per turn number and per session figures of a session workload. The turns themselves also go to
 * the {@link MetricsAccumulator} like any request; this adds what only sessions have: TTFT by turn
 * number (with a prefix cache, a later turn finds its history cached), session durations, turns
 * per session and session goodput.
 */
export class SessionsAccumulator {
  private readonly turns: TurnAccumulator[] = []
  private readonly durationMs = new Distribution(LATENCY_UNITS_PER_MS, LATENCY_HIGHEST_TRACKABLE_US)
  private readonly turnsPerSession = new Distribution(1, TOKENS_HIGHEST_TRACKABLE)
  private started = 0
  private completed = 0
  private subSessions = 0
  private goodSessions = 0
  private readonly goodput: GoodputLimits | undefined

  constructor(goodput?: GoodputLimits) {
    this.goodput = goodput
  }

  /** Adds one measured turn (ok or failed), by its `sessionTurn.turn`. */
  addTurn(record: RequestRecord): void {
    const number = record.sessionTurn?.turn ?? 1
    const at = Math.min(number, TURN_ENTRIES) - 1
    while (this.turns.length <= at) this.turns.push(new TurnAccumulator())
    const turn = this.turns[at] as TurnAccumulator
    turn.requests++
    if (!record.ok) {
      turn.failed++
      return
    }
    turn.e2eMs.record(clamp(endToEndMs(record)))
    turn.inputTokens.record(Math.max(0, Math.round(record.inputTokens)))
    const ttft = record.streamed ? timeToFirstTokenMs(record) : undefined
    if (ttft !== undefined) turn.ttftMs.record(clamp(ttft))
  }

  /** Adds a measured root session that ended (completed, failed or cancelled). */
  sessionEnded(session: EndedSession): void {
    this.started++
    this.subSessions += session.subSessions
    if (!session.ok || session.firstSentAt === undefined || session.lastEndAt === undefined) return
    this.completed++
    this.durationMs.record(clamp(session.lastEndAt - session.firstSentAt))
    this.turnsPerSession.record(session.turns)
    const limits = this.goodput
    if (limits !== undefined && session.records.every((record) => meetsGoodputLimits(record, limits)))
      this.goodSessions++
  }

  /** The figures over the measured `durationMs` (ms). */
  finish(durationMs: number): SessionsResult {
    const byTurn: TurnMetrics[] = this.turns.map((turn, i) => ({
      turn: i + 1,
      andLater: i + 1 === TURN_ENTRIES,
      requests: turn.requests,
      failed: turn.failed,
      ttftMs: turn.ttftMs.summary(),
      e2eMs: turn.e2eMs.summary(),
      inputTokens: turn.inputTokens.summary(),
    }))
    return {
      started: this.started,
      completed: this.completed,
      failed: this.started - this.completed,
      subSessions: this.subSessions,
      sessionsPerSec: durationMs > 0 ? (this.completed * 1000) / durationMs : 0,
      durationMs: this.durationMs.summary(),
      turns: this.turnsPerSession.summary(),
      ...(this.goodput
        ? {
            goodput: {
              goodSessions: this.goodSessions,
              share: this.completed > 0 ? this.goodSessions / this.completed : 0,
            },
          }
        : {}),
      byTurn,
      histograms: {
        ...(this.durationMs.count > 0 ? { durationUs: this.durationMs.encodedHistogram() } : {}),
        ttftUsByTurn: this.turns.map((turn) => turn.ttftMs.encodedHistogram() ?? null),
        e2eUsByTurn: this.turns.map((turn) => turn.e2eMs.encodedHistogram() ?? null),
      },
    }
  }
}
