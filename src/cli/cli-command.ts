import { closestName } from '../core/platform/did-you-mean.ts'
import { CliUsageError } from '../core/contract/errors.ts'

/** Where a command writes, and how a long-running one learns it should stop. */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  /** Resolves with the signal name when the process is asked to stop (SIGINT, SIGTERM). */
  stopRequested(): Promise<string>
}

export type CliFlagValue = string | number | boolean

/** One `--flag` of a command. */
export interface CliFlag {
  type: 'string' | 'number' | 'integer' | 'boolean'
  description: string
  default?: CliFlagValue
  /** Smallest accepted value (number and integer flags). */
  min?: number
  /** Largest accepted value (number and integer flags). */
  max?: number
  /** The only accepted values, as written on the command line (any flag type but boolean). */
  choices?: readonly string[]
  /** One letter also accepted as `-<letter> value` (as Vitest's `-t <name>`). */
  short?: string
  /** Older names also accepted (`speed` for `speed-factor`), listed in the help; values go under the flag's name. */
  aliases?: readonly string[]
}

/** `-t <pattern>`: one flag, one description, for every command that filters benches by name. */
export const NAME_FLAG: CliFlag = {
  type: 'string',
  short: 't',
  description: 'Only benches whose full name matches this regular expression (as vitest -t)',
}

export type CliFlagValues = Record<string, CliFlagValue | undefined>

/** A subcommand: its flags are parsed and checked by the dispatcher before `run`. */
export interface CliCommand {
  /** One line for the command list. */
  summary: string
  flags: Record<string, CliFlag>
  /** What the arguments that are no flag are, for the usage line (e.g. `[bench files]`); unset: none are accepted. */
  operands?: string
  /** What each exit code means, one line for the help (`0 …; 1 …; 2 a usage error`). */
  exits: string
  /** Resolves with the exit code; `operands` are the arguments that are no flag, in order. */
  run(flags: CliFlagValues, io: CliIo, operands: readonly string[]): Promise<number>
}

function flagValue(command: string, name: string, flag: CliFlag, raw: string): CliFlagValue {
  const bad = (why: string) => new CliUsageError(`Invalid value for --${name}: ${why}.`, command)
  if (flag.type === 'boolean') {
    if (raw === 'true') return true
    if (raw === 'false') return false
    throw bad(`expected true or false, got '${raw}'`)
  }
  if (flag.type === 'string') {
    if (flag.choices && !flag.choices.includes(raw))
      throw bad(`expected one of ${flag.choices.join(', ')}, got '${raw}'`)
    return raw
  }
  const n = raw.trim() === '' ? NaN : Number(raw)
  if (!Number.isFinite(n)) throw bad(`expected a number, got '${raw}'`)
  if (flag.choices && !flag.choices.includes(String(n)))
    throw bad(`expected one of ${flag.choices.join(', ')}, got '${raw}'`)
  if (flag.type === 'integer' && !Number.isInteger(n)) throw bad(`expected a whole number, got '${raw}'`)
  if (flag.min !== undefined && n < flag.min) throw bad(`must be at least ${flag.min}, got ${raw}`)
  if (flag.max !== undefined && n > flag.max) throw bad(`must be at most ${flag.max}, got ${raw}`)
  return n
}

/**
 * Parses `--name value`, `--name=value` and bare `--name` for boolean flags, fills in defaults.
 * Throws {@link CliUsageError} on an unknown flag, a missing or bad value, or a stray argument
 * (arguments that are no flag go to `operands` when the command takes them).
 */
export function parseCliFlags(
  commandName: string,
  command: CliCommand,
  args: readonly string[],
  operands: string[] = [],
): CliFlagValues {
  const values: CliFlagValues = {}
  for (const [name, flag] of Object.entries(command.flags)) values[name] = flag.default
  for (let i = 0; i < args.length; i++) {
    let arg = args[i] as string
    const short = /^-([A-Za-z])$/.exec(arg)?.[1]
    const long =
      short === undefined ? undefined : Object.entries(command.flags).find(([, flag]) => flag.short === short)?.[0]
    if (long !== undefined) arg = `--${long}`
    if (!arg.startsWith('--') || arg === '--') {
      if (command.operands !== undefined && !arg.startsWith('-')) {
        operands.push(arg)
        continue
      }
      throw new CliUsageError(`Unexpected argument '${arg}'.`, commandName)
    }
    const eq = arg.indexOf('=')
    const given = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
    const name = Object.entries(command.flags).find(([, candidate]) => candidate.aliases?.includes(given))?.[0] ?? given
    const flag = command.flags[name]
    if (!flag) {
      const known = Object.entries(command.flags).flatMap(([key, candidate]) => [key, ...(candidate.aliases ?? [])])
      const guess = closestName(name, known)
      throw new CliUsageError(
        `Unknown flag --${name} for '${commandName}'.${guess ? ` Did you mean --${guess}?` : ''}`,
        commandName,
      )
    }
    let raw: string
    if (eq !== -1) raw = arg.slice(eq + 1)
    else if (flag.type === 'boolean') raw = 'true'
    else {
      const next = args[i + 1]
      if (next === undefined || next.startsWith('--'))
        throw new CliUsageError(`Flag --${given} needs a value.`, commandName)
      raw = next
      i++
    }
    // A bad value is named as it was given (`--max-seqs`), alias or not.
    values[name] = flagValue(commandName, given, flag, raw)
  }
  return values
}

/** The `-t` filter of a command: bench names matching the pattern as a regular expression (as Vitest's `-t`); all without one. */
export function nameFilterOf(pattern: unknown, command: string): (name: string) => boolean {
  if (typeof pattern !== 'string') return () => true
  try {
    const regex = new RegExp(pattern)
    return (name) => regex.test(name)
  } catch (error) {
    throw new CliUsageError(`Invalid value for -t: ${error instanceof Error ? error.message : String(error)}.`, command)
  }
}
