import type { BenchmarkResult } from '../src/core/contract/result.ts'
import { formatSeconds, formatShare, formatWithUnit } from './format-figures.ts'

/** Turn numbers listed by name in one line; the rest are summarised by the last one shown. */
const TURNS_SHOWN = 6

/**
 * One line on the sessions of a session workload, for the console and Markdown: how many
 * completed, their length, and TTFT p50 by turn number (a prefix cache shows as later turns
 * faster than the first). Undefined for other workloads.
 */
export function sessionsLine(result: BenchmarkResult): string | undefined {
  const sessions = result.sessions
  if (sessions === undefined) return undefined
  const parts = [`${sessions.completed}/${sessions.started} sessions completed`]
  if (sessions.subSessions > 0) parts.push(`${sessions.subSessions} sub-agents`)
  if (sessions.completed > 0)
    parts.push(
      `${formatWithUnit(sessions.turns.mean, 'turns')} each`,
      `duration p50 ${formatSeconds(sessions.durationMs.p50)}`,
    )
  if (sessions.goodput) parts.push(`goodput ${formatShare(sessions.goodput.share)} of sessions`)
  const shown = sessions.byTurn.filter((turn) => turn.ttftMs.count > 0).slice(0, TURNS_SHOWN)
  if (shown.length > 0) {
    const more = sessions.byTurn.length > shown.length ? ' …' : ''
    parts.push(
      `TTFT p50 by turn ${shown.map((turn) => `${turn.turn}${turn.andLater ? '+' : ''}: ${formatWithUnit(turn.ttftMs.p50, 'ms')}`).join(', ')}${more}`,
    )
  }
  return parts.join(' · ')
}
