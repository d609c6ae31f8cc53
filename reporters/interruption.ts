/**
 * The sentence a report opens with when a signal stopped its run (`SIGINT` for Ctrl-C, `SIGTERM` for
 * a CI cancel): what it holds and what it lacks.
 */
export function interruptionNote(signal: string): string {
  return (
    `Interrupted by ${signal}: the run was stopped before it ended. This report holds the benches that ` +
    'finished before; the bench that was running and those after it are not in it, and no baseline was written for them.'
  )
}
