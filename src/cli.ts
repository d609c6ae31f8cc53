import { CliUsageError } from './core/errors.ts'
import { simulatorCommand } from './sim/command.ts'

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
  /** Accepted values (string flags). */
  choices?: readonly string[]
}

export type CliFlagValues = Record<string, CliFlagValue | undefined>

/** A subcommand: its flags are parsed and checked by the dispatcher before `run`. */
export interface CliCommand {
  /** One line for the command list. */
  summary: string
  flags: Record<string, CliFlag>
  /** Resolves with the exit code. */
  run(flags: CliFlagValues, io: CliIo): Promise<number>
}

/** Subcommands by name. Add a command here. */
export const cliCommands: Record<string, CliCommand> = {
  sim: simulatorCommand,
}

const PROGRAM = 'vitest-llm-bench'

function flagValue(command: string, name: string, flag: CliFlag, raw: string): CliFlagValue {
  const bad = (why: string) => new CliUsageError(`Invalid value for --${name}: ${why}.`, command)
  if (flag.type === 'boolean') {
    if (raw === 'true') return true
    if (raw === 'false') return false
    throw bad(`expected true or false, got '${raw}'`)
  }
  if (flag.type === 'string') {
    if (flag.choices && !flag.choices.includes(raw)) throw bad(`expected one of ${flag.choices.join(', ')}, got '${raw}'`)
    return raw
  }
  const n = raw.trim() === '' ? NaN : Number(raw)
  if (!Number.isFinite(n)) throw bad(`expected a number, got '${raw}'`)
  if (flag.type === 'integer' && !Number.isInteger(n)) throw bad(`expected a whole number, got '${raw}'`)
  if (flag.min !== undefined && n < flag.min) throw bad(`must be at least ${flag.min}, got ${raw}`)
  if (flag.max !== undefined && n > flag.max) throw bad(`must be at most ${flag.max}, got ${raw}`)
  return n
}

/**
 * Parses `--name value`, `--name=value` and bare `--name` for boolean flags, fills in defaults.
 * Throws {@link CliUsageError} on an unknown flag, a missing or bad value, or a stray argument.
 */
export function parseCliFlags(commandName: string, command: CliCommand, args: readonly string[]): CliFlagValues {
  const values: CliFlagValues = {}
  for (const [name, flag] of Object.entries(command.flags)) values[name] = flag.default
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (!arg.startsWith('--') || arg === '--') throw new CliUsageError(`Unexpected argument '${arg}'.`, commandName)
    const eq = arg.indexOf('=')
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
    const flag = command.flags[name]
    if (!flag) throw new CliUsageError(`Unknown flag --${name} for '${commandName}'.`, commandName)
    let raw: string
    if (eq !== -1) raw = arg.slice(eq + 1)
    else if (flag.type === 'boolean') raw = 'true'
    else {
      const next = args[i + 1]
      if (next === undefined || next.startsWith('--')) throw new CliUsageError(`Flag --${name} needs a value.`, commandName)
      raw = next
      i++
    }
    values[name] = flagValue(commandName, name, flag, raw)
  }
  return values
}

/** Usage text: the command list, or one command's flags. */
export function cliUsage(commandName?: string): string {
  const command = commandName === undefined ? undefined : cliCommands[commandName]
  if (commandName !== undefined && command) {
    const lines = [`Usage: ${PROGRAM} ${commandName} [flags]`, '', command.summary, '', 'Flags:']
    for (const [name, flag] of Object.entries(command.flags)) {
      const value = flag.type === 'boolean' ? '' : ` <${flag.choices ? flag.choices.join('|') : flag.type}>`
      const fallback = flag.default === undefined ? '' : ` (default ${String(flag.default)})`
      lines.push(`  --${name}${value}`.padEnd(34) + ` ${flag.description}${fallback}`)
    }
    return lines.join('\n')
  }
  const lines = [`Usage: ${PROGRAM} <command> [flags]`, '', 'Commands:']
  for (const [name, c] of Object.entries(cliCommands)) lines.push(`  ${name.padEnd(12)} ${c.summary}`)
  lines.push(`  ${'help'.padEnd(12)} Show this help, or a command's flags: help <command>`)
  return lines.join('\n')
}

/** Stops on SIGINT or SIGTERM. */
export function processCliIo(): CliIo {
  return {
    out: (line) => process.stdout.write(line + '\n'),
    err: (line) => process.stderr.write(line + '\n'),
    stopRequested: () =>
      new Promise((resolve) => {
        const stop = (signal: string) => {
          process.off('SIGINT', stop)
          process.off('SIGTERM', stop)
          resolve(signal)
        }
        process.on('SIGINT', stop)
        process.on('SIGTERM', stop)
      }),
  }
}

/** Runs the command line `argv` (without node and script); resolves with the exit code: 0 done, 1 failed, 2 usage error. */
export async function runCli(argv: readonly string[], io: CliIo = processCliIo()): Promise<number> {
  const [name, ...rest] = argv
  if (name === 'help' || name === '--help' || name === '-h') {
    const topic = rest[0]
    if (topic !== undefined && !cliCommands[topic]) {
      io.err(`${PROGRAM}: unknown command '${topic}'.\n\n${cliUsage()}`)
      return 2
    }
    io.out(cliUsage(topic))
    return 0
  }
  if (name === undefined) {
    io.err(`${PROGRAM}: missing command.\n\n${cliUsage()}`)
    return 2
  }
  const command = cliCommands[name]
  if (!command) {
    io.err(`${PROGRAM}: unknown command '${name}'.\n\n${cliUsage()}`)
    return 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(cliUsage(name))
    return 0
  }
  let flags: CliFlagValues
  try {
    flags = parseCliFlags(name, command, rest)
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error
    io.err(`${PROGRAM} ${name}: ${error.message}\n\n${cliUsage(name)}`)
    return 2
  }
  return command.run(flags, io)
}
