import { describe, expect, test } from 'vitest'
import {
  baselineEntryFrom,
  formatBaselineFile,
  parseBaselineFile,
  softwareChanges,
  type BaselineEntry,
} from '../../src/core/baseline/index.ts'
import { compare } from '../helpers/compare-given.ts'
import { acquireTarget } from '../../src/bench/bench-target.ts'
import { simulator } from '../../src/bench/bench-options.ts'
import { SIMULATOR_SERVER_NAME } from '../../src/core/contract/simulator-name.ts'
import type { SimulatorOptions } from '../../src/sim/options.ts'
import { BASELINE_SCHEMA_VERSION } from '../../src/core/baseline/baseline-file.ts'
import type { BenchmarkResult, EnvironmentInfo } from '../../src/core/contract/result.ts'
import {
  DEFAULT_CONFIG,
  environment,
  lognormalSamples,
  makeResult,
  seededRandom,
} from '../helpers/baseline-fixtures.ts'

type Launch = NonNullable<EnvironmentInfo['server']['launch']>

/** A run of llama-server launched with `args` (`{port}` replaced by `port`), measured at that port. */
function launched(
  args: string[],
  port: number,
  more: { env?: Record<string, string>; version?: string; command?: string } = {},
): BenchmarkResult {
  const base = environment({ serverVersion: more.version ?? 'b6500' })
  const launch: Launch = {
    command: more.command ?? '/opt/llama/llama-server',
    args: args.map((arg) => arg.replace('{port}', String(port))),
    ...(more.env ? { env: more.env } : {}),
  }
  const env: EnvironmentInfo = {
    ...base,
    server: { ...base.server, name: 'llama.cpp', startedAs: 'llama.cpp', launch },
  }
  const target = { ...(DEFAULT_CONFIG.target as object), baseUrl: `http://127.0.0.1:${port}` }
  return makeResult({ environment: env, config: { ...DEFAULT_CONFIG, target } })
}

const BASE = ['-m', 'model.gguf', '--host', '127.0.0.1', '--port', '{port}', '-t', '2', '-np', '4', '-c', '4096']

describe('softwareChanges', () => {
  test('the same launch on another port is no change', () => {
    expect(softwareChanges(launched(BASE, 41001), launched(BASE, 52002))).toEqual([])
  })

  test('an added flag is named with its value; a changed value with its flag', () => {
    expect(softwareChanges(launched(BASE, 41001), launched([...BASE, '-ub', '1'], 52002))).toEqual([
      'llama.cpp args: added -ub 1',
    ])
    const eight = BASE.map((arg, i) => (BASE[i - 1] === '-np' ? '8' : arg))
    expect(softwareChanges(launched(BASE, 41001), launched(eight, 52002))).toEqual(['llama.cpp args: -np 4 -> -np 8'])
    const without = BASE.filter((_, i) => i < BASE.length - 2)
    expect(softwareChanges(launched(BASE, 41001), launched(without, 52002))).toEqual([
      'llama.cpp args: removed -c 4096',
    ])
  })

  test('the launch environment, the command and the version the server reported', () => {
    const changes = softwareChanges(
      launched(BASE, 41001, { env: { A: '1', B: 'x' } }),
      launched(BASE, 52002, { env: { B: 'y', C: '2' }, version: 'b6600', command: '/opt/llama-new/llama-server' }),
    )
    expect(changes).toEqual([
      'llama.cpp b6500 -> b6600',
      'llama.cpp command /opt/llama/llama-server -> /opt/llama-new/llama-server',
      'llama.cpp launch: env removed A; env B x -> y; env added C=2',
    ])
  })

  test('a launched server against one connected to', () => {
    const connected = makeResult({
      environment: {
        ...environment({ serverVersion: 'b6500' }),
        server: { name: 'llama.cpp', version: 'b6500', model: 'meta-llama/Llama-3.1-8B-Instruct' },
      },
    })
    expect(softwareChanges(connected, launched(BASE, 41001))).toEqual([
      'llama.cpp: launched, where before it was connected to',
    ])
  })
})

describe('a stored baseline keeps the launch', () => {
  test('a verdict against it names a changed flag; the port is no change; an older entry without one names none', () => {
    const random = seededRandom(3)
    const samples = () => lognormalSamples(random, 300, 80, 0.2)
    const withSamples = (result: BenchmarkResult): BenchmarkResult =>
      makeResult({ ttftMs: samples(), environment: result.environment, config: result.config })
    const recorded = withSamples(launched(BASE, 41001))
    const entry = baselineEntryFrom(recorded)
    expect(entry.launch).toEqual({ command: '/opt/llama/llama-server', args: BASE })
    // Through the file, as a later run reads it.
    const text = formatBaselineFile({ schemaVersion: BASELINE_SCHEMA_VERSION, entries: { b: entry } })
    const stored = parseBaselineFile(text, 'b.json').entries.b as BaselineEntry
    const policy = { ttftMs: { p50: '+10%' as const } }
    expect(compare(stored, withSamples(launched([...BASE, '-ub', '1'], 52002)), policy).changed).toEqual([
      'llama.cpp args: added -ub 1',
    ])
    expect(compare(stored, withSamples(launched(BASE, 52002)), policy).changed).toBeUndefined()
    const { launch: _launch, ...older } = stored
    expect(compare(older, withSamples(launched([...BASE, '-ub', '1'], 52002)), policy).changed).toBeUndefined()
    expect(() => parseBaselineFile(text.replace('"args": [', '"args": [7, '), 'b.json')).toThrow(
      'b.json: entries["b"].launch.args must be an array of strings',
    )
  })
})

describe('the built-in simulator', () => {
  /** The environment's server of a bench on `simulator(options)`, as the bench's target hands it to the run. */
  async function simulatorServer(options: SimulatorOptions): Promise<EnvironmentInfo['server']> {
    const acquired = await acquireTarget(simulator(options), undefined, undefined)
    await acquired.release()
    return acquired.context.server ?? {}
  }
  const on = (server: EnvironmentInfo['server']): BenchmarkResult =>
    makeResult({ environment: { ...environment(), server: { ...server, name: SIMULATOR_SERVER_NAME } } })

  test('a change of its options is named, option by option; the same options on another port are no change', async () => {
    const [was, is] = [
      await simulatorServer({}),
      await simulatorServer({ speedFactor: 1.3, faults: { stallRate: 0.1 } }),
    ]
    expect(softwareChanges(on(was), on(is))).toEqual([
      `${SIMULATOR_SERVER_NAME} options: faults.stallRate 0 -> 0.1; speedFactor 1 -> 1.3`,
    ])
    expect(softwareChanges(on(was), on(await simulatorServer({})))).toEqual([])
    // Its API key is a secret: a change is named, its value never.
    const keyed = await simulatorServer({ apiKey: 'sk-secret-value' })
    expect(JSON.stringify(keyed)).not.toContain('sk-secret-value')
    expect(softwareChanges(on(was), on(keyed))).toEqual([`${SIMULATOR_SERVER_NAME} options: added apiKey=***`])
  })
})
