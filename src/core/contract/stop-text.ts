import type { StopReport } from './result.ts'

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

/**
 * A stopped load in one line, for the result's warnings, the bench's verdict and every report: when
 * it stopped, why, since when the condition held, and what was cancelled.
 */
export function stopText(stopped: StopReport): string {
  const cancelled =
    stopped.inFlightCancelled > 0
      ? `; ${stopped.inFlightCancelled} request${stopped.inFlightCancelled === 1 ? '' : 's'} in flight were cancelled`
      : ''
  return (
    `the load was stopped early by stopWhen at ${seconds(stopped.atMs)}: ${stopped.reason}, ` +
    `held since ${seconds(stopped.conditionSinceMs)}${cancelled}`
  )
}

/** `text` with its first letter in capitals (a sentence of its own). */
export function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
