// First, for its side effect: a Node.js too old stops here, saying which it found.
import './core/platform/supported-node.ts'
import { closestName } from './core/platform/did-you-mean.ts'
import { CliUsageError, LlmBenchError } from './core/contract/errors.ts'
import { toolVersion } from './core/telemetry/tool-version.ts'
import type { CliCommand, CliFlagValues, CliIo } from './cli/cli-command.ts'
import { parseCliFlags } from './cli/cli-command.ts'
import { watchParent } from './core/server/index.ts'
import { abCommand } from './cli/ab-command.ts'
import { bisectCommand } from './cli/bisect-command.ts'
import { diffCommand } from './cli/diff-command.ts'
import { historyCommand } from './cli/history-command.ts'
import { mergeCommand } from './cli/merge-command.ts'
import { runCommand } from './cli/run-command.ts'
import { simulatorCommand } from './cli/simulator-command.ts'
import { ENVIRONMENT_VARIABLES } from './cli/environment-variables.ts'

/** Subcommands by name. Add a command here. */
export const cliCommands: Record<string, CliCommand> = {
  run: runCommand,
  sim: simulatorCommand,
  merge: mergeCommand,
  ab: abCommand,
  bisect: bisectCommand,
  diff: diffCommand,
  history: historyCommand,
}

const PROGRAM = 'vitest-llm-bench'

/** The exit codes every command shares; each command's help says what its 1 means. */
const EXIT_STATUS = '0 done; 1 a check failed or the command could not finish; 2 a usage error (a bad flag or operand)'

/** Usage text: the command list, or one command's flags. */
export function cliUsage(commandName?: string): string {
  const command = commandName === undefined ? undefined : cliCommands[commandName]
  if (commandName !== undefined && command) {
    const lines = [
      `Usage: ${PROGRAM} ${commandName} [flags]${command.operands ? ` ${command.operands}` : ''}`,
      '',
      command.summary,
      '',
      'Flags:',
    ]
    for (const [name, flag] of Object.entries(command.flags)) {
      const value = flag.type === 'boolean' ? '' : ` <${flag.choices ? flag.choices.join('|') : flag.type}>`
      const fallback = flag.default === undefined ? '' : ` (default ${String(flag.default)})`
      const also = flag.aliases?.length ? ` (also ${flag.aliases.map((alias) => `--${alias}`).join(', ')})` : ''
      const left = `  ${flag.short ? `-${flag.short}, ` : ''}--${name}${value}${also}`
      lines.push(`${left.padEnd(34)} ${flag.description}${fallback}`)
    }
    lines.push('', `Exit status: ${command.exits}`)
    return lines.join('\n')
  }
  const lines = [`Usage: ${PROGRAM} <command> [flags]`, '', 'Commands:']
  for (const [name, c] of Object.entries(cliCommands)) lines.push(`  ${name.padEnd(12)} ${c.summary}`)
  lines.push(`  ${'help'.padEnd(12)} Show this help, or a command's flags and exit status: help <command>`)
  lines.push(`  ${'version'.padEnd(12)} Print this package's version (also --version)`)
  lines.push('', `Exit status: ${EXIT_STATUS}`, '', 'Environment:')
  for (const [name, what] of ENVIRONMENT_VARIABLES) lines.push(`  ${name.padEnd(26)} ${what}`)
  return lines.join('\n')
}

/**
 * Stops on SIGINT or SIGTERM, and when the process that started this one ends (`npx` killed by a CI cancel does not
 * pass the signal on, and would leave this process running on its own). A process started detached (its parent
 * init already) is not watched.
 */
export function processCliIo(): CliIo {
  // A reader that went away (`| head`) ends the output, not the command: a measurement still finishes, writes its
  // files and stops its servers, where an unhandled EPIPE would end the process with a stack trace.
  let readerGone = false
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
    readerGone = true
  })
  return {
    out: (line) => {
      if (!readerGone) process.stdout.write(line + '\n')
    },
    err: (line) => process.stderr.write(line + '\n'),
    stopRequested: () =>
      new Promise((resolve) => {
        const stop = (signal: string) => {
          process.off('SIGINT', stop)
          process.off('SIGTERM', stop)
          if (watch !== undefined) clearInterval(watch)
          resolve(signal)
        }
        process.on('SIGINT', stop)
        process.on('SIGTERM', stop)
        const watch = process.ppid > 1 ? watchParent(() => stop('its parent process ended')) : undefined
      }),
  }
}

const HELP_NAMES = ['help', '--help', '-h']
const VERSION_NAMES = ['version', '--version', '-v']

/** "unknown command" with the closest command named, and the usage. */
function unknownCommand(name: string): string {
  const guess = closestName(name, [...Object.keys(cliCommands), 'help', 'version'])
  return `${PROGRAM}: unknown command '${name}'.${guess ? ` Did you mean '${guess}'?` : ''}\n\n${cliUsage()}`
}

/** Runs the command line `argv` (without node and script); resolves with the exit code: 0 done, 1 failed, 2 usage error. */
export async function runCli(argv: readonly string[], io: CliIo = processCliIo()): Promise<number> {
  const [name, ...rest] = argv
  if (name !== undefined && VERSION_NAMES.includes(name)) {
    io.out(`${PROGRAM} ${toolVersion()}`)
    return 0
  }
  if (name !== undefined && HELP_NAMES.includes(name)) {
    const topic = rest[0]
    // `help help` (or `help --help`) is the general help: help is a command too.
    if (topic === undefined || HELP_NAMES.includes(topic)) {
      io.out(cliUsage())
      return 0
    }
    if (VERSION_NAMES.includes(topic)) {
      io.out(`Usage: ${PROGRAM} version (or --version, -v)\n\nPrints this package's version.`)
      return 0
    }
    if (!cliCommands[topic]) {
      io.err(unknownCommand(topic))
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
    io.err(unknownCommand(name))
    return 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(cliUsage(name))
    return 0
  }
  let flags: CliFlagValues
  const operands: string[] = []
  try {
    flags = parseCliFlags(name, command, rest, operands)
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error
    io.err(`${PROGRAM} ${name}: ${error.message}\n\n${cliUsage(name)}`)
    return 2
  }
  try {
    return await command.run(flags, io, operands)
  } catch (error) {
    // What the user can fix (a wrong operand, a missing file) is one line, not a stack.
    if (error instanceof CliUsageError) {
      io.err(`${PROGRAM} ${name}: ${error.message}\n\n${cliUsage(name)}`)
      return 2
    }
    if (error instanceof LlmBenchError) {
      io.err(`${PROGRAM} ${name}: ${error.message}`)
      return 1
    }
    throw error
  }
}
