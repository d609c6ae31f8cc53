/** Which Vitest the plugin accepts, `-u <path>` on Vitest 5, the per-bench update command, and the collection guard. */
import { describe, expect, test } from 'vitest'
import { assertBenchWillRun, VITEST4_RUNNER_MARK, vitestLine } from '../../src/vitest/vitest-support.ts'
import { updateArgumentError } from '../../src/vitest/update-argument.ts'
import { benchUpdateCommand } from '../../src/vitest/update-command.ts'
import { withUpdateCommand } from '../../src/bench/with-update-command.ts'

describe('vitestLine', () => {
  test('4.1 and later 4.x are line 4, any 5.x line 5', () => {
    expect(vitestLine('4.1.0')).toBe(4)
    expect(vitestLine('4.1.12')).toBe(4)
    expect(vitestLine('4.3.0')).toBe(4)
    expect(vitestLine('5.1.2')).toBe(5)
    expect(vitestLine('5.0.0-beta.3')).toBe(5)
  })

  test('3.x, 4.0 and an unknown major are refused, naming the version found and the supported ones', () => {
    expect(() => vitestLine('3.2.4')).toThrow(
      'vitest-llm-bench supports Vitest ^4.1.0 || ^5.0.0 (4.1 or later 4.x, or 5.x); this project has Vitest 3.2.4. Upgrade it',
    )
    expect(() => vitestLine('4.0.18')).toThrow('this project has Vitest 4.0.18')
    expect(() => vitestLine('6.0.0')).toThrow(
      'this project has Vitest 6.0.0. This Vitest is newer than the package knows',
    )
    expect(() => vitestLine('garbage')).toThrow('this project has Vitest garbage')
  })
})

describe('updateArgumentError', () => {
  test('a real update type, a boolean or none: no error', () => {
    for (const update of ['all', 'new', 'none', true, false, undefined])
      expect(updateArgumentError(update, ['bench', '-u'])).toBeUndefined()
  })

  test('a path taken as the update type names the command with the path before -u, other arguments kept', () => {
    const message = updateArgumentError('benches/chat.bench.ts', [
      'bench',
      '-u',
      'benches/chat.bench.ts',
      '-t',
      'p99 under load',
    ])
    expect(message).toContain('`-u benches/chat.bench.ts`: Vitest 5 reads the word after -u as the update type')
    expect(message).toContain("  npx vitest bench benches/chat.bench.ts -t 'p99 under load' -u\n")
    expect(updateArgumentError('x.bench.ts', ['bench', '--update=x.bench.ts'])).toContain(
      'npx vitest bench x.bench.ts -u',
    )
  })
})

describe('benchUpdateCommand', () => {
  const file = { filepath: '/proj/benches/chat.bench.ts' }
  const outer = { name: 'chat', suite: file, file }
  const task = { name: 'p99 (8 streams), $5 budget', suite: { name: 'long prompts', suite: outer, file }, file }
  const patternOf = (command: string) => new RegExp(/-t '(.*)' -u$/.exec(command)?.[1] ?? '')

  test("Vitest 5: the file relative to the project and a -t pattern for this bench's full name only", () => {
    const command = benchUpdateCommand(task as never, '/proj', 5)
    expect(command).toBe(
      "npx vitest bench benches/chat.bench.ts -t '^chat > long prompts > p99 \\(8 streams\\), \\$5 budget$' -u",
    )
    // As Vitest 5 matches -t: against describe names and name joined by ' > '.
    expect(patternOf(command).test('chat > long prompts > p99 (8 streams), $5 budget')).toBe(true)
    expect(patternOf(command).test('chat > long prompts > p99 (8 streams), $5 budget, warm')).toBe(false)
    expect(patternOf(command).test('other > chat > long prompts > p99 (8 streams), $5 budget')).toBe(false)
  })

  test('Vitest 4: the pattern for its full name (file name, describe names and name joined by spaces)', () => {
    const command = benchUpdateCommand(task as never, '/proj', 4)
    expect(patternOf(command).test('benches/chat.bench.ts chat long prompts p99 (8 streams), $5 budget')).toBe(true)
    expect(patternOf(command).test('benches/chat.bench.ts chat long prompts p99 (8 streams), $5 budget, warm')).toBe(
      false,
    )
  })

  test("a single quote in a name is quoted for the shell; messages get the command in place of 'vitest bench -u'", () => {
    expect(benchUpdateCommand({ name: "it's fast", suite: file, file } as never, '/proj', 5)).toBe(
      "npx vitest bench benches/chat.bench.ts -t '^it'\\''s fast$' -u",
    )
    expect(withUpdateCommand('No baseline. Run `vitest bench -u` locally.', 'npx vitest bench a.bench.ts -u')).toBe(
      'No baseline. Run `npx vitest bench a.bench.ts -u` locally.',
    )
  })
})

describe('assertBenchWillRun', () => {
  const worker = globalThis as { __vitest_worker__?: unknown } & Record<symbol, unknown>
  test('in Vitest 4 bench mode without the plugin runner it throws, naming the fix; with it, or in test mode, nothing', () => {
    const saved = worker.__vitest_worker__
    try {
      worker.__vitest_worker__ = { config: { mode: 'benchmark' } }
      expect(() => assertBenchWillRun('chat')).toThrow(
        "bench.llm('chat') would not run: under Vitest 4, `vitest bench` runs only Vitest's own bench() blocks, and the llmBench() plugin is not in this project's Vitest config",
      )
      worker.__vitest_worker__ = { config: { mode: 'benchmark', runner: './my-runner.ts' } }
      expect(() => assertBenchWillRun('chat')).toThrow("this project's test.runner (./my-runner.ts) runs it instead")
      worker[VITEST4_RUNNER_MARK] = true
      expect(() => assertBenchWillRun('chat')).not.toThrow()
      delete worker[VITEST4_RUNNER_MARK]
      worker.__vitest_worker__ = { config: { mode: 'test' } }
      expect(() => assertBenchWillRun('chat')).not.toThrow()
    } finally {
      worker.__vitest_worker__ = saved
      delete worker[VITEST4_RUNNER_MARK]
    }
  })
})
