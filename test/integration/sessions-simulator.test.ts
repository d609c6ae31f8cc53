import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { runBenchmark } from '../../src/core/run.ts'
import {
  BENCHMARK_RESULT_SCHEMA,
  BENCHMARK_RESULT_SCHEMA_ID,
  JsonSchemaValidator,
} from '../../src/core/contract/json-schema/index.ts'
import type { BenchmarkOptions } from '../../src/core/contract/options.ts'
import type { BenchmarkResult } from '../../src/core/contract/result.ts'
import type { RequestRecord } from '../../src/core/contract/request-record.ts'
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/sim/index.ts'
import { skipWhenDisturbed } from '../helpers/busy-machine.ts'

const running: RunningSimulator[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()))
})

async function sim(options: SimulatorOptions): Promise<RunningSimulator> {
  const started = await startSimulator({ recordSchedule: true, ...options })
  running.push(started)
  return started
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}

// Prefill dominates TTFT (1 ms a prompt token) and decode is cheap: what caching saves is plain to see.
const SLOW_PREFILL: SimulatorOptions = {
  prefillMsPerToken: 1,
  decodeBaseMs: 2,
  decodeMsPerSequence: 0,
  blockTokens: 16,
}

function sessionsRun(url: string, extra: Partial<BenchmarkOptions> = {}): BenchmarkOptions {
  return {
    target: { baseUrl: url, model: 'sim-model' },
    workload: {
      kind: 'sessions',
      source: { kind: 'synthetic', turns: { mean: 3 }, userTokens: { mean: 96 }, outputTokens: { mean: 16 } },
    },
    load: { concurrency: 1, sessions: 4 },
    serverMetrics: false,
    recordRequests: true,
    seed: 7,
    ...extra,
  }
}

const turnsOf = (result: BenchmarkResult, turn: number): RequestRecord[] =>
  (result.requests ?? []).filter((r) => r.sessionTurn?.turn === turn)

describe('sessions against the simulator', () => {
  it('turn k re-sends the history with the actual replies: prompts grow by reply + new message, and the sim saw the same', async () => {
    const server = await sim({ ...SLOW_PREFILL, prefillMsPerToken: 0 })
    const result = await runBenchmark(sessionsRun(server.url))
    expect(result.counts).toEqual({ total: 12, completed: 12, failed: 0 })
    expect(result.sessions?.started).toBe(4)
    expect(result.sessions?.completed).toBe(4)
    expect(result.sessions?.turns.mean).toBe(3)
    expect(result.sessions?.byTurn.map((t) => [t.turn, t.requests])).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
    ])
    // Every session: turn k's prompt = turn k-1's prompt + its reply + the new message (the sim counts words).
    for (let session = 0; session < 4; session++) {
      const turns = (result.requests ?? [])
        .filter((r) => r.sessionTurn?.session === session)
        .sort((a, b) => (a.sessionTurn?.turn ?? 0) - (b.sessionTurn?.turn ?? 0))
      expect(turns).toHaveLength(3)
      for (let k = 1; k < 3; k++) {
        const before = turns[k - 1] as RequestRecord
        const now = turns[k] as RequestRecord
        // Within one token: the simulator counts words, and a reply's 16 tokens may join into 15 or split into 17 words.
        expect(Math.abs(now.inputTokens - (before.inputTokens + before.outputTokens + 96))).toBeLessThanOrEqual(1)
        // One turn at a time: a turn is sent only after the one before it ended.
        expect(now.sentAt).toBeGreaterThanOrEqual(before.endAt)
      }
    }
    // Recorded results keep no reply text.
    expect((result.requests ?? []).some((r) => r.outputText !== undefined)).toBe(false)
    // The published schema holds the session figures (as the JSON reporter writes them).
    expect(
      new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA]).validate(
        BENCHMARK_RESULT_SCHEMA_ID,
        JSON.parse(JSON.stringify(result)),
      ),
    ).toEqual([])
  })

  it('with prefix caching, turns >= 2 have lower TTFT than turn 1 by the prefill of the cached tokens; without, higher', async (ctx) => {
    // A chat as users have them: a long system prompt of its own per session, short messages and replies (JSONL sessions).
    const dir = mkdtempSync(join(tmpdir(), 'llm-bench-sessions-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const path = join(dir, 'chats.jsonl')
    const words = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}w${i}`).join(' ')
    const lines = [0, 1, 2, 3].map((s) =>
      JSON.stringify({
        system: words(`s${s}`, 256),
        turns: [1, 2, 3].map((t) => ({ user: words(`s${s}t${t}`, 32), max_tokens: 16 })),
      }),
    )
    writeFileSync(path, lines.join('\n') + '\n')
    const chat: Partial<BenchmarkOptions> = {
      workload: { kind: 'sessions', source: { kind: 'jsonl', path }, ignoreEos: true },
    }
    const cached = await sim({ ...SLOW_PREFILL, prefixCaching: true })
    const withCache = await runBenchmark(sessionsRun(cached.url, chat))
    const uncached = await sim({ ...SLOW_PREFILL, prefixCaching: false })
    const withoutCache = await runBenchmark(sessionsRun(uncached.url, chat))

    const ttft = (result: BenchmarkResult, turn: number) => result.sessions?.byTurn[turn - 1]?.ttftMs.p50 ?? NaN
    // What the simulator modelled: prefill = 1 ms x (prompt - cached) tokens, read from its own log.
    const modelled = (server: RunningSimulator, turn: number) =>
      median(
        server.schedule.filter((_, i) => i % 3 === turn - 1).map((e) => e.promptTokens - (e.cachedPromptTokens ?? 0)),
      )
    // The log is in arrival order: one user, so probe first, then sessions of 3 turns in order.
    cached.schedule.splice(0, 1)
    uncached.schedule.splice(0, 1)
    expect(cached.schedule).toHaveLength(12)
    const savedTurn2 = modelled(uncached, 2) - modelled(cached, 2)
    // Turn 2 finds turn 1's whole blocks cached (system prompt and first message: 288 of its 288 tokens).
    expect(savedTurn2).toBe(288)
    for (const turn of [2, 3]) {
      expect(ttft(withCache, turn)).toBeLessThan(ttft(withCache, 1))
      expect(ttft(withoutCache, turn)).toBeGreaterThan(ttft(withoutCache, 1))
    }
    // Turn 1 sends 288 prompt tokens, turn 2 about 336 (288 + 16 replied + 32 new), turn 3 about 384.
    expect(withoutCache.sessions?.byTurn[0]?.inputTokens.p50).toBe(288)
    expect(Math.abs((withoutCache.sessions?.byTurn[1]?.inputTokens.p50 ?? 0) - 336)).toBeLessThanOrEqual(1)
    // Measured TTFT follows the modelled prefill within 15 ms (one decode step, timers, loopback): a quiet
    // machine's bound, not asserted when either run's self-check names a disturbance.
    skipWhenDisturbed(ctx, withCache)
    skipWhenDisturbed(ctx, withoutCache)
    for (const turn of [2, 3]) {
      expect(Math.abs(ttft(withCache, turn) - modelled(cached, turn))).toBeLessThan(15)
      expect(Math.abs(ttft(withoutCache, turn) - modelled(uncached, turn))).toBeLessThan(15)
    }
  })

  it('think time separates turns; an open loop of session arrivals runs sessions side by side; session goodput counts sessions', async () => {
    const server = await sim({ prefillMsPerToken: 0, decodeBaseMs: 1, decodeMsPerSequence: 0 })
    const result = await runBenchmark(
      sessionsRun(server.url, {
        workload: {
          kind: 'sessions',
          source: { kind: 'synthetic', turns: { mean: 2 }, userTokens: { mean: 8 }, outputTokens: { mean: 4 } },
          thinkTimeMs: { mean: 120 },
        },
        load: { rate: 50, arrival: 'constant', sessions: 5 },
        goodput: { ttftMs: 10_000 },
      }),
    )
    const records = result.requests ?? []
    for (const second of turnsOf(result, 2)) {
      const first = records.find(
        (r) => r.sessionTurn?.session === second.sessionTurn?.session && r.sessionTurn?.turn === 1,
      ) as RequestRecord
      expect(second.sentAt - first.endAt).toBeGreaterThanOrEqual(119)
    }
    // Arrivals every 20 ms and sessions of >= 120 ms: several sessions overlap.
    const firstTurns = turnsOf(result, 1).map((r) => r.sentAt)
    const lastTurns = turnsOf(result, 2).map((r) => r.endAt)
    expect(Math.max(...firstTurns)).toBeLessThan(Math.min(...lastTurns))
    expect(result.sessions?.completed).toBe(5)
    expect(result.sessions?.goodput).toEqual({ goodSessions: 5, share: 1 })
    expect(result.sessions?.durationMs.min).toBeGreaterThanOrEqual(120)
  })

  it('a failed turn ends its session: later turns are not sent, and the session counts as failed', async () => {
    const server = await sim({
      prefillMsPerToken: 0,
      decodeBaseMs: 1,
      faults: { httpErrorRate: 0.3, httpErrorStatus: 500 },
      seed: 3,
    })
    const result = await runBenchmark(sessionsRun(server.url, { load: { concurrency: 2, sessions: 8 } }))
    const sessions = result.sessions
    expect(sessions).toBeDefined()
    expect(result.counts.failed).toBeGreaterThan(0)
    expect(sessions?.failed).toBeGreaterThan(0)
    expect((sessions?.completed ?? 0) + (sessions?.failed ?? 0)).toBe(8)
    for (const failure of (result.requests ?? []).filter((r) => !r.ok)) {
      const later = (result.requests ?? []).filter(
        (r) =>
          r.sessionTurn?.session === failure.sessionTurn?.session &&
          (r.sessionTurn?.turn ?? 0) > (failure.sessionTurn?.turn ?? 0),
      )
      expect(later).toEqual([])
    }
  })

  it('refuses requests for a session load, sessions for a request load, and workers', async () => {
    const base = sessionsRun('http://127.0.0.1:9')
    await expect(runBenchmark({ ...base, load: { concurrency: 1, requests: 4 } })).rejects.toThrow(
      /load\.requests.*session workload.*load\.sessions/s,
    )
    await expect(
      runBenchmark({ ...base, workload: { kind: 'prompts', prompts: ['a'] }, load: { concurrency: 1, sessions: 4 } }),
    ).rejects.toThrow(/load\.sessions.*only to session workloads/s)
    await expect(runBenchmark({ ...base, load: { concurrency: 2, sessions: 4 }, workers: 2 })).rejects.toThrow(
      /workers.*session workload/s,
    )
  })
})

describe('agentic trace replay against the simulator', () => {
  const trace = fileURLToPath(new URL('../fixtures/sessions/agentic-trace.jsonl', import.meta.url))

  it('replays the recorded trace: roots at their timestamps, tool turns after their delay, sub-agents fanned out in parallel and awaited', async () => {
    const server = await sim({ prefillMsPerToken: 0.2, decodeBaseMs: 3, decodeMsPerSequence: 0, prefixCaching: true })
    const result = await runBenchmark({
      target: { baseUrl: server.url, model: 'sim-model' },
      workload: { kind: 'agentic-trace', path: trace },
      load: {},
      serverMetrics: false,
      recordRequests: true,
    })
    const records = result.requests ?? []
    expect(result.counts).toEqual({ total: 9, completed: 9, failed: 0 })
    expect(result.sessions).toMatchObject({ started: 2, completed: 2, failed: 0, subSessions: 3 })
    expect(
      new JsonSchemaValidator([BENCHMARK_RESULT_SCHEMA]).validate(
        BENCHMARK_RESULT_SCHEMA_ID,
        JSON.parse(JSON.stringify(result)),
      ),
    ).toEqual([])
    const find = (session: number, depth: number, turn: number): RequestRecord[] =>
      records.filter(
        (r) => r.sessionTurn?.session === session && r.sessionTurn.depth === depth && r.sessionTurn.turn === turn,
      )
    const one = (session: number, depth: number, turn: number): RequestRecord => {
      const found = find(session, depth, turn)
      expect(found).toHaveLength(1)
      return found[0] as RequestRecord
    }
    // Planner (root 0): turn 1, then its tool turn 30 ms after.
    const planner1 = one(0, 0, 1)
    const planner2 = one(0, 0, 2)
    expect(planner2.sentAt - planner1.endAt).toBeGreaterThanOrEqual(29)
    // Two searches start together once the tool turn is answered, and run side by side.
    const searches = find(0, 1, 1)
    expect(searches).toHaveLength(2)
    for (const search of searches) expect(search.sentAt).toBeGreaterThanOrEqual(planner2.endAt)
    const [a, b] = searches as [RequestRecord, RequestRecord]
    expect(Math.max(a.sentAt, b.sentAt)).toBeLessThan(Math.min(a.endAt, b.endAt))
    // search-a's tool turn follows its first 10 ms later; the planner's last turn waits for both searches, then 5 ms.
    const searchA2 = one(0, 1, 2)
    expect(searchA2.sentAt - Math.min(a.endAt, b.endAt)).toBeGreaterThanOrEqual(9)
    const planner3 = one(0, 0, 3)
    expect(planner3.sentAt - Math.max(searchA2.endAt, a.endAt, b.endAt)).toBeGreaterThanOrEqual(4)
    // Coder (root 1) is planned 40 ms after the planner and never sent before its time (a busy machine may send
    // the planner's first turn late, so the sends themselves can be closer); its second turn waits for the verifier.
    const coder1 = one(1, 0, 1)
    expect(coder1.plannedAt! - planner1.plannedAt!).toBeCloseTo(40, 6)
    expect(coder1.sentAt).toBeGreaterThanOrEqual(coder1.plannedAt! - 0.5)
    const verifier = one(1, 1, 1)
    expect(verifier.sentAt).toBeGreaterThanOrEqual(coder1.endAt)
    expect(one(1, 0, 2).sentAt).toBeGreaterThanOrEqual(verifier.endAt)
    // hash_ids [1] opens both roots: the coder's first prompt finds the planner's block in the prefix cache.
    // The simulator's log entry of that request: its prompt length, arrived closest after it was sent (a busy
    // machine delays the arrival by more than a few ms).
    const coderEntry = server.schedule
      .filter((e) => e.promptTokens === coder1.inputTokens && e.arrivedAt >= coder1.sentAt - 1)
      .sort((x, y) => x.arrivedAt - y.arrivedAt)[0]
    expect(coderEntry?.cachedPromptTokens).toBeGreaterThanOrEqual(32)
  })

  it('names the line and the problem in a broken trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llm-bench-trace-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const write = (name: string, lines: object[]) => {
      const path = join(dir, name)
      writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n'))
      return path
    }
    const run = (path: string) =>
      runBenchmark({
        target: { baseUrl: 'http://127.0.0.1:9', model: 'm' },
        workload: { kind: 'agentic-trace', path },
        load: {},
        serverMetrics: false,
      })
    await expect(
      run(
        write('orphan.jsonl', [
          { session_id: 'x', parent_session_id: 'nobody', parent_turn: 1, input_length: 4, output_length: 4 },
        ]),
      ),
    ).rejects.toThrow(/orphan\.jsonl:1.*"parent_session_id" "nobody" names no session on an earlier line/s)
    await expect(run(write('no-ts.jsonl', [{ session_id: 'x', input_length: 4, output_length: 4 }]))).rejects.toThrow(
      /no-ts\.jsonl:1.*needs "timestamp"/s,
    )
    await expect(
      run(
        write('late-turn.jsonl', [
          { session_id: 'p', timestamp: 0, input_length: 4, output_length: 4 },
          { session_id: 'c', parent_session_id: 'p', parent_turn: 3, input_length: 4, output_length: 4 },
        ]),
      ),
    ).rejects.toThrow(/late-turn\.jsonl:2.*"parent_turn" 3, but session "p" has 1 turns/s)
  })
})
