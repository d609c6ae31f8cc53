// The command line's help says what a user needs from the shell: `-t` one way everywhere, each command's exit
// status, the LLM_BENCH_* variables the package reads, and simulator flags named as its options.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { cliCommands, cliUsage } from '../../src/cli.ts'
import { parseCliFlags } from '../../src/cli/cli-command.ts'
import { simulatorOptionsFromFlags } from '../../src/cli/simulator-command.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourcesUnder(path) : path.endsWith('.ts') ? [path] : []
  })
}

/** Set by `ab` for its own arms: no user sets them. */
const INTERNAL = new Set(['LLM_BENCH_ARM', 'LLM_BENCH_ARM_DIR', 'LLM_BENCH_ARM_MODE'])

describe('help', () => {
  test('-t is described one way by every command that has it', () => {
    const withName = Object.entries(cliCommands).filter(([, command]) => command.flags.name?.short === 't')
    expect(withName.map(([name]) => name).sort()).toEqual(['ab', 'bisect', 'diff', 'history'])
    expect(new Set(withName.map(([, command]) => command.flags.name?.description)).size).toBe(1)
  })

  test("every command's help gives its exit status, and the general help the codes they share", () => {
    for (const name of Object.keys(cliCommands)) expect(cliUsage(name)).toMatch(/\nExit status: .*\b0\b/)
    expect(cliUsage()).toMatch(/\nExit status: 0 .*; 1 .*; 2 .*usage/)
  })

  test('the general help lists every LLM_BENCH_ variable the package reads', () => {
    const names = new Set(
      sourcesUnder(join(root, 'src')).flatMap((file) => readFileSync(file, 'utf8').match(/LLM_BENCH_[A-Z_]+/g) ?? []),
    )
    const usage = cliUsage()
    const missing = [...names].filter((name) => !INTERNAL.has(name) && !usage.includes(`  ${name} `))
    expect(missing).toEqual([])
  })
})

describe('the simulator on the command line', () => {
  test('each flag is named as the option it sets; the older names still work', () => {
    const sim = cliCommands.sim!
    const named = simulatorOptionsFromFlags(
      parseCliFlags('sim', sim, [
        '--speed-factor=2',
        '--max-running-sequences=4',
        '--prefill-base-ms=3',
        '--decode-base-ms=2',
        '--decode-ms-per-sequence=0.5',
        '--default-max-tokens=10',
        '--drop-connection-rate=0.1',
        '--buffer-mode=json',
      ]),
    )
    expect(named).toMatchObject({
      speedFactor: 2,
      maxRunningSequences: 4,
      prefillBaseMs: 3,
      decodeBaseMs: 2,
      decodeMsPerSequence: 0.5,
      defaultMaxTokens: 10,
      faults: { dropConnectionRate: 0.1 },
      bufferMode: 'json',
    })
    const old = simulatorOptionsFromFlags(
      parseCliFlags('sim', sim, ['--speed', '2', '--max-seqs', '4', '--drop-rate=0.1', '--buffer=json']),
    )
    expect(old).toMatchObject({ speedFactor: 2, maxRunningSequences: 4, faults: { dropConnectionRate: 0.1 } })
    expect(old.bufferMode).toBe('json')
    expect(cliUsage('sim')).toMatch(/--speed-factor <number> \(also --speed\)/)
  })

  test('docs/simulator.md gives every fault option with its flag', () => {
    const doc = readFileSync(join(root, 'docs', 'simulator.md'), 'utf8')
    for (const [option, flag] of [
      ['httpErrorRate', 'http-error-rate'],
      ['httpErrorStatus', 'http-error-status'],
      ['dropConnectionRate', 'drop-connection-rate'],
      ['errorEventRate', 'error-event-rate'],
      ['stallRate', 'stall-rate'],
      ['stallMs', 'stall-ms'],
    ])
      expect(doc).toMatch(new RegExp(`\\| \`faults\\.${option}\` \\| \`--${flag}\` \\|`))
  })
})
