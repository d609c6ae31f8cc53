import { relative, sep } from 'node:path'
import { benchNamesOf, type NamedTask } from './bench-name.ts'
import { VITEST_LINE } from './supported-vitest.ts'

/** Quotes a word for a POSIX shell: single quotes, with any single quote closed, escaped and reopened. */
function quoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`
}

/** Escapes the characters a regular expression gives meaning to. */
function literalPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The command that re-records one bench's baseline, e.g.
 * `npx vitest bench benches/chat.bench.ts -t '^chat > steady closed loop, 8 streams$' -u`:
 * the file relative to `cwd` (where `npx vitest` runs) and a `-t` pattern that matches this
 * bench's full name as the Vitest line matches `-t`: Vitest 5 against its describe names and
 * name joined by ` > `, Vitest 4 against the file's name, describe names and name joined by spaces.
 * A bare `vitest bench -u` would re-record every bench of the project.
 */
export function benchUpdateCommand(task: NamedTask, cwd: string = process.cwd(), line: 4 | 5 = VITEST_LINE): string {
  const names = benchNamesOf(task).map(literalPattern)
  const pattern = line === 5 ? `^${names.join(' > ')}$` : `${names.join(' ')}$`
  const file = relative(cwd, task.file.filepath).split(sep).join('/')
  return `npx vitest bench ${file.includes(' ') ? quoted(file) : file} -t ${quoted(pattern)} -u`
}
