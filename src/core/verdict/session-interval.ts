/**
 * How far a new session of a bench may land from the sessions stored for it on the same machine, with
 * no change in what is measured: a prediction interval for one more session (Kalibera and Jones, ISMM
 * 2013: repeat at the level where the variance is). A recording's trials come from one stretch of
 * minutes; the machine moves further than that between sessions (docs/verdicts.md, "Between sessions").
 */
import { normalQuantile, studentTQuantile } from './special-functions.ts'

/** Sessions from which their own spread is used; with fewer, the policy's `assumedSessionSpread` is. */
export const MIN_MEASURED_SESSIONS = 3

/**
 * How many sessions' worth of evidence the assumed spread keeps once sessions are measured: the spread used is
 * the assumed and the measured pooled, (4·assumed² + (n−1)·s²) / (4 + n − 1), with 4 + n − 1 degrees of freedom.
 * Sessions added minutes apart can sit in one phase of the machine: on llama-server three sessions within ten
 * minutes spread 4.2 %, and the next unchanged run moved 1.33x (perf/llama-verdicts.ts, docs/verdicts.md).
 */
export const ASSUMED_SESSIONS_WEIGHT = 4

/** How far sessions move: measured over the stored sessions, or assumed while too few are stored. */
export interface SessionSpread {
  /** Sessions stored. */
  sessions: number
  /** Standard deviation of ln(figure) between sessions (measured and assumed pooled, once measured). */
  logStdDev: number
  /** Degrees of freedom behind it; infinite for the assumed spread alone. */
  df: number
  /** True while fewer than {@link MIN_MEASURED_SESSIONS} sessions are stored: the assumed spread. */
  assumed: boolean
}

/** The interval of current / (the sessions' geometric mean) that one more unchanged session would fall in. */
export interface SessionInterval {
  /** Geometric mean of the stored sessions' figure. */
  center: number
  ratio: number
  low: number
  high: number
  spread: SessionSpread
}

/** The spread of these session figures (each > 0); `assumed` (log sd) while too few are stored. */
export function sessionSpreadOf(figures: readonly number[], assumed: number): SessionSpread {
  const n = figures.length
  if (n < MIN_MEASURED_SESSIONS) return { sessions: n, logStdDev: assumed, df: Number.POSITIVE_INFINITY, assumed: true }
  const logs = figures.map(Math.log)
  const mean = logs.reduce((sum, v) => sum + v, 0) / n
  const squares = logs.reduce((sum, v) => sum + (v - mean) ** 2, 0)
  const df = ASSUMED_SESSIONS_WEIGHT + n - 1
  return {
    sessions: n,
    logStdDev: Math.sqrt((ASSUMED_SESSIONS_WEIGHT * assumed ** 2 + squares) / df),
    df,
    assumed: false,
  }
}

/**
 * The prediction interval for a new session's figure, as a ratio to the stored sessions' geometric mean:
 * ratio × exp(±q × s × √(1 + 1/n)), q Student's t with the pooled spread's degrees of freedom, the normal
 * quantile for the assumed spread alone (`assumed`, a log sd). Undefined without a stored session or a current figure.
 */
export function sessionInterval(
  sessions: readonly number[],
  current: number,
  confidence: number,
  assumed: number,
): SessionInterval | undefined {
  if (sessions.length === 0 || !(current > 0)) return undefined
  const spread = sessionSpreadOf(sessions, assumed)
  const n = sessions.length
  const center = Math.exp(sessions.reduce((sum, v) => sum + Math.log(v), 0) / n)
  const p = 1 - (1 - confidence) / 2
  const q = spread.assumed ? normalQuantile(p) : studentTQuantile(p, spread.df)
  const half = q * spread.logStdDev * Math.sqrt(1 + 1 / n)
  const ratio = current / center
  return { center, ratio, low: ratio * Math.exp(-half), high: ratio * Math.exp(half), spread }
}
