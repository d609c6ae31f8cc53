/**
 * `vitest bench -u <path>` on Vitest 5: its `-u [type]` takes the path as the update type, so no
 * file filter is left and every bench of the project would be re-recorded. This finds that case
 * and words the command that does what was meant.
 */

/** Update types Vitest accepts after `-u` (and the booleans its CLI parser may pass through). */
const UPDATE_TYPES = new Set(['all', 'new', 'none', 'true', 'false'])

/** Quotes an argument for a shell command line where it needs it. */
function shellWord(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`
}

/**
 * The error for an update type that is not one (`update`: the resolved `config.update`), naming the
 * command to run instead: the same arguments with the path before `-u`. Undefined when the update
 * type is a real one or absent.
 *
 * @param argv The command line after the runtime and script (`process.argv.slice(2)`).
 */
export function updateArgumentError(update: unknown, argv: readonly string[]): string | undefined {
  if (typeof update !== 'string' || UPDATE_TYPES.has(update)) return undefined
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if ((arg === '-u' || arg === '--update') && argv[i + 1] === update) {
      i++
      continue
    }
    if (arg === `--update=${update}` || arg === `-u=${update}`) continue
    rest.push(arg)
  }
  const command = rest[0] === 'bench' ? ['bench', update, ...rest.slice(1)] : [...rest, update]
  return (
    `\`-u ${update}\`: Vitest 5 reads the word after -u as the update type (all, new or none), not as a file filter, ` +
    `so this would re-record the baselines of every bench. To update the baselines of ${update} only, put the path before -u:\n\n` +
    `  npx vitest ${[...command, '-u'].map(shellWord).join(' ')}\n`
  )
}
