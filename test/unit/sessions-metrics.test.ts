import { describe, expect, it } from 'vitest'
import { SessionsAccumulator, TURN_ENTRIES } from '../../src/core/metrics/sessions-accumulator.ts'
import { mergeSessions } from '../../src/core/trials/merge-sessions.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { createRandom } from '../../src/core/platform/random.ts'
import { failedRecord, okRecord } from '../helpers/metrics-fixtures.ts'

/** Turn `turn` of session `session`: sent at `sentAt`, first token `ttft` ms later, ended `e2e` ms later. */
const turn = (
  session: number,
  turnNumber: number,
  sentAt: number,
  ttft: number,
  e2e: number,
  inputTokens = 100,
): RequestRecord =>
  okRecord({
    sentAt,
    firstTokenAt: sentAt + ttft,
    endAt: sentAt + e2e,
    chunkTimes: [sentAt + ttft, sentAt + e2e],
    outputTokens: 2,
    inputTokens,
    sessionTurn: { session, turn: turnNumber, depth: 0 },
  })

describe('SessionsAccumulator', () => {
  it('TTFT, E2E and input tokens by turn number; durations and turns of completed sessions; failed sessions counted apart', () => {
    const acc = new SessionsAccumulator({ ttftMs: 50 })
    // Session 0: turn 1 TTFT 80, turn 2 TTFT 20 (cached history), 500 ms think between.
    const s0 = [turn(0, 1, 0, 80, 100, 100), turn(0, 2, 600, 20, 40, 230)]
    // Session 1: turn 1 TTFT 90, turn 2 fails.
    const failed = { ...failedRecord(3, 'http', 'boom'), sessionTurn: { session: 1, turn: 2, depth: 0 } }
    const s1 = [turn(1, 1, 10, 90, 120), failed]
    for (const record of [...s0, ...s1]) acc.addTurn(record)
    acc.sessionEnded({ ok: true, turns: 2, subSessions: 0, firstSentAt: 0, lastEndAt: 640, records: s0 })
    acc.sessionEnded({ ok: false, turns: 2, subSessions: 1, firstSentAt: 10, lastEndAt: 5000, records: s1 })
    const result = acc.finish(2000)
    expect(result).toMatchObject({ started: 2, completed: 1, failed: 1, subSessions: 1, sessionsPerSec: 0.5 })
    expect(result.durationMs).toMatchObject({ count: 1, min: 640, max: 640 })
    expect(result.turns.mean).toBe(2)
    // Session goodput: session 0 missed the 50 ms TTFT limit on turn 1; the failed session is not judged.
    expect(result.goodput).toEqual({ goodSessions: 0, share: 0 })
    expect(result.byTurn.map((t) => [t.turn, t.requests, t.failed, t.ttftMs.count])).toEqual([
      [1, 2, 0, 2],
      [2, 2, 1, 1],
    ])
    expect(result.byTurn[0]?.ttftMs.mean).toBe(85)
    expect(result.byTurn[1]?.ttftMs.p50).toBe(20)
    expect(result.byTurn[1]?.inputTokens.mean).toBe(230)
    expect(result.histograms.ttftUsByTurn).toHaveLength(2)
  })

  it(`turns beyond ${TURN_ENTRIES} share the last entry, marked andLater`, () => {
    const acc = new SessionsAccumulator()
    for (let t = 1; t <= TURN_ENTRIES + 5; t++) acc.addTurn(turn(0, t, t * 100, 10, 20))
    const result = acc.finish(1000)
    expect(result.byTurn).toHaveLength(TURN_ENTRIES)
    expect(result.byTurn[TURN_ENTRIES - 1]).toMatchObject({ turn: TURN_ENTRIES, andLater: true, requests: 6 })
    expect(result.byTurn[0]?.andLater).toBe(false)
  })
})

describe('mergeSessions', () => {
  it('trials merge as one run: counts add, percentiles by turn from the summed histograms equal one accumulator fed everything', () => {
    const random = createRandom(11)
    const trials = [new SessionsAccumulator(), new SessionsAccumulator(), new SessionsAccumulator()]
    const whole = new SessionsAccumulator()
    for (let session = 0; session < 60; session++) {
      const trial = trials[session % 3] as SessionsAccumulator
      const records = [1, 2, 3].map((t) =>
        turn(session, t, session * 1000 + t * 200, 5 + random.next() * 200, 250 + random.next() * 100),
      )
      for (const record of records) {
        trial.addTurn(record)
        whole.addTurn(record)
      }
      const ended = {
        ok: true,
        turns: 3,
        subSessions: 0,
        firstSentAt: records[0]?.sentAt,
        lastEndAt: records[2]?.endAt,
        records,
      }
      trial.sessionEnded(ended)
      whole.sessionEnded(ended)
    }
    const results = trials.map((t) => ({ sessions: t.finish(1000) }) as BenchmarkResult)
    const merged = mergeSessions(results, 3000)
    const expected = whole.finish(3000)
    expect(merged?.started).toBe(60)
    expect(merged?.completed).toBe(60)
    expect(merged?.sessionsPerSec).toBe(20)
    for (let i = 0; i < 3; i++) {
      for (const key of ['count', 'p50', 'p90', 'p99', 'min', 'max'] as const)
        expect(merged?.byTurn[i]?.ttftMs[key]).toBe(expected.byTurn[i]?.ttftMs[key])
      expect(merged?.byTurn[i]?.ttftMs.mean).toBeCloseTo(expected.byTurn[i]?.ttftMs.mean ?? 0, 9)
      expect(merged?.byTurn[i]?.requests).toBe(60)
    }
    expect(merged?.durationMs.p99).toBe(expected.durationMs.p99)
  })

  it('is undefined when a trial ran no sessions', () => {
    expect(
      mergeSessions([{ sessions: new SessionsAccumulator().finish(1) } as BenchmarkResult, {} as BenchmarkResult], 1),
    ).toBeUndefined()
  })
})

describe('sessionsLine', () => {
  it('says how many sessions completed, their length, and TTFT p50 by turn; nothing for other workloads', async () => {
    const { sessionsLine } = await import('../../reporters/sessions-facts.ts')
    const acc = new SessionsAccumulator({ ttftMs: 100 })
    const records = [turn(0, 1, 0, 80, 100), turn(0, 2, 600, 20, 40)]
    for (const record of records) acc.addTurn(record)
    acc.sessionEnded({ ok: true, turns: 2, subSessions: 0, firstSentAt: 0, lastEndAt: 640, records })
    const line = sessionsLine({ sessions: acc.finish(1000) } as BenchmarkResult)
    expect(line).toBe(
      '1/1 sessions completed · 2 turns each · duration p50 0.6 s · goodput 100% of sessions · TTFT p50 by turn 1: 80 ms, 2: 20 ms',
    )
    expect(sessionsLine({} as BenchmarkResult)).toBeUndefined()
  })
})
