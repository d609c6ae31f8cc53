import type { CliIo } from '../../src/cli/cli-command.ts'

/** A command line's output kept in memory: every line written to stdout and stderr, and no stop ever requested. */
export function memoryIo(): CliIo & { output: string[]; errors: string[] } {
  const output: string[] = []
  const errors: string[] = []
  return {
    output,
    errors,
    out: (l) => output.push(l),
    err: (l) => errors.push(l),
    stopRequested: () => new Promise(() => undefined),
  }
}
