/**
 * What differs in the software under test between two runs measured side by side (the arms of
 * `ab`, the variants of `bench.llm.compare`): the server, its version and model as they answered,
 * and how it was launched (command, arguments, the environment the launch set).
 */
import type { BenchmarkResult, EnvironmentInfo } from '../contract/result.ts'
import { diffSoftware, fingerprintOf } from './fingerprint.ts'

type Launch = NonNullable<EnvironmentInfo['server']['launch']>

/** How a run's server was launched, as a baseline entry keeps it: redacted, the chosen port written `{port}`. */
export interface StoredLaunch {
  /** The program. */
  command: string
  /** Its arguments, the port the run chose written `{port}`. */
  args: string[]
  /** Environment variables the launch spec set, secrets as `***`. */
  env?: Record<string, string>
}

/** The launch of `result`'s server with its port written `{port}`; undefined for a connected server. */
export function launchOf(result: BenchmarkResult): StoredLaunch | undefined {
  const launch = result.environment.server.launch
  if (launch === undefined) return undefined
  return {
    command: launch.command,
    args: argsOf(launch, portOf(result)),
    ...(launch.env && Object.keys(launch.env).length > 0 ? { env: { ...launch.env } } : {}),
  }
}

/** The port a run's server listened on, from the base URL it was measured at; undefined when not known. */
function portOf(result: BenchmarkResult): string | undefined {
  const target = result.config.target as { baseUrl?: unknown } | undefined
  if (typeof target?.baseUrl !== 'string') return undefined
  try {
    return new URL(target.baseUrl).port || undefined
  } catch {
    return undefined
  }
}

/** Launch arguments with the chosen port written `{port}`: two launches of one spec differ only there. */
function argsOf(launch: Launch, port: string | undefined): string[] {
  if (port === undefined) return launch.args
  return launch.args.map((arg) =>
    arg === port
      ? '{port}'
      : arg.endsWith(`:${port}`) || arg.endsWith(`=${port}`)
        ? `${arg.slice(0, -port.length)}{port}`
        : arg,
  )
}

/** The longest common subsequence of two token lists, as index pairs (both increasing). */
function commonTokens(a: readonly string[], b: readonly string[]): Array<[number, number]> {
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const row = lengths[i] as number[]
      row[j] = a[i] === b[j] ? (lengths[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(lengths[i + 1]?.[j] ?? 0, row[j + 1] ?? 0)
    }
  }
  const pairs: Array<[number, number]> = []
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) pairs.push([i++, j++])
    else if ((lengths[i + 1]?.[j] ?? 0) >= (lengths[i]?.[j + 1] ?? 0)) i++
    else j++
  }
  return pairs
}

/**
 * The argument lists' differences, one per run of changed tokens: `added -ub 1`, `removed --metrics`,
 * `-np 4 -> -np 8` (a changed value is shown with the flag before it).
 */
function diffArgs(before: readonly string[], after: readonly string[]): string[] {
  const changes: string[] = []
  const anchors = [...commonTokens(before, after), [before.length, after.length] as [number, number]]
  let [i, j] = [0, 0]
  for (const [nextI, nextJ] of anchors) {
    const removed = before.slice(i, nextI)
    const added = after.slice(j, nextJ)
    if (removed.length > 0 || added.length > 0) {
      const flag =
        i > 0 && before[i - 1]?.startsWith('-') && !(removed[0] ?? added[0] ?? '').startsWith('-')
          ? `${before[i - 1]} `
          : ''
      if (removed.length === 0) changes.push(`added ${flag}${added.join(' ')}`)
      else if (added.length === 0) changes.push(`removed ${flag}${removed.join(' ')}`)
      else changes.push(`${flag}${removed.join(' ')} -> ${flag}${added.join(' ')}`)
    }
    ;[i, j] = [nextI + 1, nextJ + 1]
  }
  return changes
}

/** What differs between two records of named values, one entry per name: `added a=1`, `removed b`, `c 1 -> 2`. */
function diffValues(
  before: Readonly<Record<string, string | number | boolean>>,
  after: Readonly<Record<string, string | number | boolean>>,
): string[] {
  const changes: string[] = []
  for (const name of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const [was, is] = [before[name], after[name]]
    if (was === is) continue
    if (was === undefined) changes.push(`added ${name}=${String(is)}`)
    else if (is === undefined) changes.push(`removed ${name}`)
    else changes.push(`${name} ${String(was)} -> ${String(is)}`)
  }
  return changes
}

/**
 * What changed from `before` to `after` in the software under test, one human-readable change per
 * entry: `llama.cpp args: added -ub 1`, `vllm 0.10.1 -> 0.11.0`, `model a -> b`,
 * `vllm launch: env added VLLM_USE_V1=1`. Empty when both ran the same server the same way. The
 * chosen port is not a change; a secret reads `***` on both sides (launches are redacted).
 */
export function softwareChanges(before: BenchmarkResult, after: BenchmarkResult): string[] {
  const name = after.environment.server.name ?? after.environment.server.startedAs ?? 'server'
  return [
    ...diffSoftware(fingerprintOf(before.environment), fingerprintOf(after.environment)),
    ...launchChanges(name, launchOf(before), launchOf(after)),
    ...simulatorChanges(name, before.environment.server.simulator, after.environment.server.simulator),
  ]
}

type SimulatorSpec = NonNullable<EnvironmentInfo['server']['simulator']>

/**
 * How the built-in simulator's options changed, option by option (`speedFactor 1 -> 1.3`); nothing where either
 * run does not say (a result written before the environment kept them).
 */
function simulatorChanges(name: string, was: SimulatorSpec | undefined, is: SimulatorSpec | undefined): string[] {
  if (was === undefined || is === undefined) return []
  const changes = diffValues(was, is)
  return changes.length === 0 ? [] : [`${name} options: ${changes.join('; ')}`]
}

/** How `name`'s launch changed: its command, arguments and environment, or launched against connected. */
export function launchChanges(name: string, was: StoredLaunch | undefined, is: StoredLaunch | undefined): string[] {
  if (was === undefined || is === undefined) {
    if (was === is) return []
    return [
      was === undefined
        ? `${name}: launched, where before it was connected to`
        : `${name}: connected to, where before it was launched`,
    ]
  }
  const changes: string[] = []
  if (was.command !== is.command) changes.push(`${name} command ${was.command} -> ${is.command}`)
  const args = diffArgs(was.args, is.args)
  if (args.length > 0) changes.push(`${name} args: ${args.join('; ')}`)
  const env = diffValues(was.env ?? {}, is.env ?? {}).map((change) => `env ${change}`)
  if (env.length > 0) changes.push(`${name} launch: ${env.join('; ')}`)
  return changes
}
