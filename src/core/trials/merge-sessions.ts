import type { BenchmarkResult, MetricSummary, SessionsResult, TurnMetrics } from '../contract/result.ts'
import { mergedLatency, pooled } from './pooled-summary.ts'

/** Counts and pooled statistics of a count-valued summary; its percentiles are the last trial's (as token counts elsewhere). */
function pooledCount(parts: readonly MetricSummary[], last: MetricSummary): MetricSummary {
  return { ...last, ...pooled(parts) }
}

/**
 * The sessions of several trials as one run: counts add, session durations and TTFT and E2E by
 * turn merge through their histograms (exact percentiles), turns per session and input tokens by
 * turn pool their statistics. Undefined unless every trial ran sessions.
 */
export function mergeSessions(results: readonly BenchmarkResult[], durationMs: number): SessionsResult | undefined {
  const parts = results.map((r) => r.sessions)
  if (parts.length === 0 || parts.some((p) => p === undefined)) return undefined
  const all = parts as SessionsResult[]
  const last = all[all.length - 1] as SessionsResult
  const sum = (pick: (s: SessionsResult) => number): number => all.reduce((total, s) => total + pick(s), 0)
  const completed = sum((s) => s.completed)
  const duration = mergedLatency(
    all.map((s) => s.durationMs),
    all.map((s) => s.histograms.durationUs),
  )
  const turnCount = Math.max(...all.map((s) => s.byTurn.length))
  const byTurn: TurnMetrics[] = []
  const ttftUsByTurn: Array<string | null> = []
  const e2eUsByTurn: Array<string | null> = []
  for (let i = 0; i < turnCount; i++) {
    const present = all.filter((s) => s.byTurn[i] !== undefined)
    const turns = present.map((s) => s.byTurn[i] as TurnMetrics)
    const ttft = mergedLatency(
      turns.map((t) => t.ttftMs),
      present.map((s) => s.histograms.ttftUsByTurn[i] ?? undefined),
    )
    const e2e = mergedLatency(
      turns.map((t) => t.e2eMs),
      present.map((s) => s.histograms.e2eUsByTurn[i] ?? undefined),
    )
    const latest = turns[turns.length - 1] as TurnMetrics
    byTurn.push({
      turn: latest.turn,
      andLater: latest.andLater,
      requests: turns.reduce((n, t) => n + t.requests, 0),
      failed: turns.reduce((n, t) => n + t.failed, 0),
      ttftMs: ttft.summary,
      e2eMs: e2e.summary,
      inputTokens: pooledCount(
        turns.map((t) => t.inputTokens),
        latest.inputTokens,
      ),
    })
    ttftUsByTurn.push(ttft.histogram ?? null)
    e2eUsByTurn.push(e2e.histogram ?? null)
  }
  const goodSessions = sum((s) => s.goodput?.goodSessions ?? 0)
  return {
    started: sum((s) => s.started),
    completed,
    failed: sum((s) => s.failed),
    subSessions: sum((s) => s.subSessions),
    sessionsPerSec: durationMs > 0 ? (completed * 1000) / durationMs : 0,
    durationMs: duration.summary,
    turns: pooledCount(
      all.map((s) => s.turns),
      last.turns,
    ),
    ...(last.goodput ? { goodput: { goodSessions, share: completed > 0 ? goodSessions / completed : 0 } } : {}),
    byTurn,
    histograms: { ...(duration.histogram ? { durationUs: duration.histogram } : {}), ttftUsByTurn, e2eUsByTurn },
  }
}
