/** The runtime is part of a baseline's fingerprint: a Node baseline never silently judges a Bun or Deno run. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { diffMachine, fingerprintOf } from '../../src/core/baseline/index.ts'
import { collectEnvironment } from '../../src/core/telemetry/index.ts'
import { detectRuntime } from '../../src/core/platform/runtime.ts'
import type { BenchmarkResult, EnvironmentInfo } from '../../src/core/contract/result.ts'
import { judgeBench } from '../../src/bench/bench-judgement.ts'
import { DEFAULT_PARSED_POLICY } from '../../src/core/verdict/index.ts'
import { environment, lognormalSamples, makeResult, seededRandom } from '../helpers/baseline-fixtures.ts'

function on(runtime: EnvironmentInfo['runtime']): EnvironmentInfo {
  return { ...environment(), runtime }
}

function resultOn(runtime: EnvironmentInfo['runtime']): BenchmarkResult {
  const random = seededRandom(3)
  return makeResult({
    ttftMs: lognormalSamples(random, 200, 80, 0.2),
    tpotMs: lognormalSamples(random, 200, 12, 0.1),
    environment: on(runtime),
  })
}

describe('fingerprint', () => {
  test('carries the runtime name and version of the environment', () => {
    expect(fingerprintOf(on({ name: 'bun', version: '1.4.5' }))).toMatchObject({
      runtimeName: 'bun',
      runtimeVersion: '1.4.5',
    })
    expect(fingerprintOf(on({ name: 'deno', version: '2.9.6' }))).toMatchObject({
      runtimeName: 'deno',
      runtimeVersion: '2.9.6',
    })
  })

  test('another runtime is a change; another minor or patch release of the same one is not', () => {
    const node = fingerprintOf(on({ name: 'node', version: '24.1.0' }))
    expect(diffMachine(node, fingerprintOf(on({ name: 'bun', version: '1.4.5' })))).toEqual([
      'runtime node 24.1.0 -> bun 1.4.5',
    ])
    expect(diffMachine(node, fingerprintOf(on({ name: 'deno', version: '2.9.6' })))).toEqual([
      'runtime node 24.1.0 -> deno 2.9.6',
    ])
    expect(diffMachine(node, fingerprintOf(on({ name: 'node', version: '26.0.0' })))).toEqual([
      'runtime node 24.1.0 -> node 26.0.0',
    ])
    expect(diffMachine(node, fingerprintOf(on({ name: 'node', version: '24.21.0' })))).toEqual([])
  })

  test('the environment a run collects names the runtime running it', async () => {
    const env = await collectEnvironment({ skipGpu: true })
    expect(env.runtime).toEqual(detectRuntime())
    expect(fingerprintOf(env).runtimeName).toBe(detectRuntime().name)
  })
})

describe('judging a run against a baseline recorded under another runtime', () => {
  async function benchFile(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'llm-runtime-fp-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    return join(dir, 'chat.bench.ts')
  }
  const judge = (file: string, result: BenchmarkResult, update: 'new' | 'none' | 'all', ci: boolean) =>
    judgeBench({ name: 'chat', file, result, slo: undefined, policy: DEFAULT_PARSED_POLICY, provided: { update, ci } })

  test.each([
    { name: 'bun', version: '1.4.5' },
    { name: 'deno', version: '2.9.6' },
  ] as const)(
    'a Node baseline fails a $name run with the runtime change named, instead of comparing',
    async (runtime) => {
      const file = await benchFile()
      expect((await judge(file, resultOn({ name: 'node', version: '24.21.0' }), 'new', false)).baselineState).toBe(
        'written',
      )
      // The same figures: only the runtime differs, and that alone must stop the comparison.
      const other = await judge(file, resultOn(runtime), 'none', true)
      expect(other.baselineState).toBe('mismatch')
      expect(other.verdict).toBeUndefined()
      expect(other.failure).toContain(`runtime node 24.21.0 -> ${runtime.name} ${runtime.version}`)
      // The same runtime compares (and passes: same figures).
      const again = await judge(file, resultOn({ name: 'node', version: '24.22.1' }), 'none', true)
      expect(again.baselineState).toBe('compare')
      expect(again.failure).toBeUndefined()
      // An update records the other runtime's baseline beside Node's: each is judged against its own.
      expect((await judge(file, resultOn(runtime), 'all', false)).baselineState).toBe('written')
      expect((await judge(file, resultOn(runtime), 'none', true)).baselineState).toBe('compare')
      expect((await judge(file, resultOn({ name: 'node', version: '24.21.0' }), 'none', true)).baselineState).toBe(
        'compare',
      )
    },
  )
})
