import { describe, expect, test } from 'vitest'
import { withArg, withServerArg } from '../../src/core/server/server-arg.ts'
import { llamaCpp } from '../../src/core/server/index.ts'

describe('withArg', () => {
  test('replaces the value after the flag, or after flag=, every time it appears', () => {
    expect(withArg(['-m', 'a.gguf', '-np', '4', '-c', '4096'], '-np', '2')).toEqual([
      '-m',
      'a.gguf',
      '-np',
      '2',
      '-c',
      '4096',
    ])
    expect(withArg(['--max-num-seqs=64', '--x'], '--max-num-seqs', '16')).toEqual(['--max-num-seqs=16', '--x'])
    expect(withArg(['-np', '1', '-np', '2'], '-np', '8')).toEqual(['-np', '8', '-np', '8'])
  })

  test('appends the pair when the flag is absent, or when it ends the list without a value', () => {
    expect(withArg(['-m', 'a.gguf'], '-ub', '16')).toEqual(['-m', 'a.gguf', '-ub', '16'])
    expect(withArg(['-ub'], '-ub', '16')).toEqual(['-ub', '-ub', '16'])
    // A flag that only starts like the swept one is another flag.
    expect(withArg(['-npx', '3'], '-np', '1')).toEqual(['-npx', '3', '-np', '1'])
  })

  test('withServerArg keeps the rest of the launch spec', () => {
    const spec = llamaCpp({ modelPath: 'm.gguf', args: ['-np', '4'], env: { A: '1' } })
    const next = withServerArg(spec, '-np', 2)
    expect(next.args.slice(-2)).toEqual(['-np', '2'])
    expect({ ...next, args: spec.args }).toEqual(spec)
    expect(spec.args.slice(-2)).toEqual(['-np', '4'])
  })
})
