// Short texts for a row's observed column and the checks most rows share.
import type { Ran } from '../child-run.ts'

/** `exit 1 in 2.3 s`, or how it was ended. */
export function exitText(ran: Ran): string {
  if (ran.timedOut) return `TIMED OUT after ${ran.seconds.toFixed(1)} s (group killed)`
  if (ran.rc === null) return `ended by ${ran.signal ?? '?'} in ${ran.seconds.toFixed(1)} s`
  return `exit ${ran.rc} in ${ran.seconds.toFixed(1)} s`
}

/** The first line matching `pattern`, from a little before the match, cut to `width`, quoted (else `no line`). */
export function quote(output: string, pattern: RegExp, width = 120): string {
  const line = output.split('\n').find((l) => pattern.test(l))
  if (line === undefined) return `no line /${pattern.source.slice(0, 50)}/`
  const at = Math.max(0, (pattern.exec(line)?.index ?? 0) - 30)
  const text = line.trim().length < width ? line.trim() : line.slice(at).trim()
  const start = at > 0 && text !== line.trim() ? '…' : ''
  return `"${start}${text.length > width ? `${text.slice(0, width - 1)}…` : text}"`
}

/** Lines of a Node stack trace (`    at fn (file:1:2)`) in the output. */
export const hasNodeStack = (output: string): boolean => /^\s+at\s.+(:\d+:\d+\)?|native\))$/m.test(output)

/** Parts of an observed text, joined by `; `. */
export const joined = (...parts: string[]): string => parts.join('; ')

/** The length of the longest output line. */
export const longestLine = (output: string): number => Math.max(0, ...output.split('\n').map((l) => l.length))

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The time Vitest reports for one test (`× a1 123ms`), milliseconds; undefined when not printed. */
export function testMs(output: string, name: string): number | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const match = new RegExp(`[×✓↓]\\s+${escaped}\\s+(\\d+)\\s*ms`).exec(output)
  return match ? Number(match[1]) : undefined
}

/** One bench as a results.json lists it. */
export interface ReportedBench {
  name: string
  state?: string
  status?: string
  result?: { counts?: { total: number; completed: number; failed: number } }
}

/** The benches of a results.json text (none when it does not parse). */
export function reportedBenches(text: string): ReportedBench[] {
  try {
    return (JSON.parse(text) as { benches?: ReportedBench[] }).benches ?? []
  } catch {
    return []
  }
}

/** The bench named `name` in any results.json under the row's folder; undefined when none holds it. */
export function reportedBench(row: { reports(): Array<{ text: string }> }, name: string): ReportedBench | undefined {
  for (const report of row.reports()) {
    const bench = reportedBenches(report.text).find((b) => b.name === name)
    if (bench) return bench
  }
  return undefined
}
