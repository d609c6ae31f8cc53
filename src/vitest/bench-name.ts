import type { RunnerTestCase } from 'vitest'

/** The parts of a Vitest task that name it. */
export type NamedTask = Readonly<Pick<RunnerTestCase, 'name' | 'suite' | 'file'>>

/**
 * The key of a bench's baseline entry: its describe path and name joined with ` > `, e.g.
 * `chat > long prompts > p99 under load`, as Vitest's `TestCase.fullName` spells it (so the
 * obsolete-entry check can compare the two).
 */
export function benchNameOf(task: NamedTask): string {
  return benchNamesOf(task).join(' > ')
}

/** A bench's describe names, outermost first, then its own name. */
export function benchNamesOf(task: NamedTask): string[] {
  const names: string[] = [task.name]
  let suite = task.suite
  while (suite && suite !== (task.file as unknown) && suite.name) {
    names.unshift(suite.name)
    suite = suite.suite
  }
  return names
}
