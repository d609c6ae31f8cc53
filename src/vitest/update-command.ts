import { relative, sep } from 'node:path'
import { benchNamesOf, type NamedTask } from './bench-name.ts'

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
 * `npx vitest bench benches/chat.bench.ts -t 'chat steady closed loop, 8 streams$' -u`:
 * the file relative to `cwd` (where `npx vitest` runs) and a `-t` pattern that Vitest matches
 * against the bench's full name (its describe names and own name joined by spaces).
 * A bare `vitest bench -u` would re-record every bench of the project.
 */
export function benchUpdateCommand(task: NamedTask, cwd: string = process.cwd()): string {
  const names = benchNamesOf(task)
  const file = relative(cwd, task.file.filepath).split(sep).join('/')
  return `npx vitest bench ${file.includes(' ') ? quoted(file) : file} -t ${quoted(`${literalPattern(names.join(' '))}$`)} -u`
}

/** A message from the baseline store or the judge with its generic `vitest bench -u` replaced by `command`. */
export function withUpdateCommand(text: string, command: string | undefined): string {
  return command === undefined ? text : text.split('`vitest bench -u`').join(`\`${command}\``)
}
