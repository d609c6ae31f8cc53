/** A baseline's identity is the resolved config: a default written out or left out is the same entry. */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { simulator } from '../../src/bench/bench-options.ts'
import type { BenchLlmOptions } from '../../src/bench/bench-options.ts'
import { runBench } from '../../src/bench/run-bench.ts'
import { baselineConfigOf, hashConfig } from '../../src/core/baseline/index.ts'
import type { LoadOptions } from '../../src/core/contract/options.ts'
import type { WorkloadOptions } from '../../src/core/contract/workload-options.ts'
import { canonicalConfig } from '../../src/core/plan/index.ts'
import { expectRecorded } from '../helpers/busy-machine.ts'

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'baselines', 'identity.bench.ts.json')

function bench(workload: WorkloadOptions, load: LoadOptions): BenchLlmOptions {
  return {
    server: simulator({ seed: 3, prefillBaseMs: 6, decodeBaseMs: 3 }),
    workload,
    load,
    seed: 1,
    baseline: { tpotMs: { p50: '+20%' } },
  }
}

const hashOf = (workload: unknown, load: unknown): string =>
  hashConfig(canonicalConfig(baselineConfigOf({ workload, load })))
const synthetic = { kind: 'synthetic', inputTokens: { mean: 32 }, outputTokens: { mean: 12 } } as const

describe('canonicalConfig', () => {
  test('a default written out or left out is one identity; a value that changes the run is another', () => {
    expect(hashOf(synthetic, { rate: 10 })).toBe(
      hashOf(synthetic, { rate: 10, arrival: 'poisson', drainGraceMs: 30000 }),
    )
    expect(hashOf(synthetic, { rate: 10 })).toBe(hashOf(synthetic, { rate: 10, burstiness: 1 }))
    expect(hashOf(synthetic, { rate: 10, arrival: 'gamma' })).toBe(
      hashOf(synthetic, { rate: 10, arrival: 'gamma', burstiness: 1 }),
    )
    const spelled = {
      ...synthetic,
      inputTokens: { mean: 32, stddev: 0, min: 1 },
      ignoreEos: true,
      sharedPrefixTokens: 0,
    }
    expect(hashOf(synthetic, { concurrency: 2 })).toBe(hashOf(spelled, { concurrency: 2, drainGraceMs: 30000 }))
    const ramp = { rate: 10, rampUp: { from: 1, durationMs: 1000 } }
    expect(hashOf(synthetic, ramp)).toBe(hashOf(synthetic, { ...ramp, rampUp: { ...ramp.rampUp, curve: 'linear' } }))
    expect(hashOf({ kind: 'prompts', prompts: ['a'] }, { concurrency: 1 })).toBe(
      hashOf({ kind: 'prompts', prompts: ['a'], maxTokens: 128, ignoreEos: false }, { concurrency: 1 }),
    )
    const sessions = {
      kind: 'sessions',
      source: { kind: 'synthetic', turns: 3, userTokens: { mean: 8 }, outputTokens: { mean: 4 } },
    }
    expect(hashOf(sessions, { concurrency: 1 })).toBe(
      hashOf({ ...sessions, thinkTimeMs: { mean: 0 }, ignoreEos: true }, { concurrency: 1 }),
    )
    // A rate sweep's load has no rate: the swept axis makes it an open loop all the same.
    const sweep = (load: unknown) => hashConfig(canonicalConfig({ workload: synthetic, load, sweep: { rate: [1, 2] } }))
    expect(sweep({ requests: 10 })).toBe(sweep({ requests: 10, arrival: 'poisson' }))

    expect(hashOf(synthetic, { rate: 10 })).not.toBe(hashOf(synthetic, { rate: 10, arrival: 'constant' }))
    expect(hashOf(synthetic, { rate: 10 })).not.toBe(hashOf(synthetic, { rate: 10, drainGraceMs: 1000 }))
    expect(hashOf(synthetic, { concurrency: 2 })).not.toBe(
      hashOf({ ...synthetic, ignoreEos: false }, { concurrency: 2 }),
    )
    expect(hashOf({ kind: 'sharegpt', path: 'a.json' }, { concurrency: 2 })).not.toBe(
      hashOf({ kind: 'sharegpt', path: 'a.json', ignoreEos: true }, { concurrency: 2 }),
    )
  })

  test('is idempotent, and leaves a config it cannot read as it is', () => {
    const once = canonicalConfig({ workload: synthetic, load: { rate: 10, requests: 5 } })
    expect(canonicalConfig(once)).toEqual(once)
    expect(once.load).toEqual({ rate: 10, requests: 5, arrival: 'poisson', drainGraceMs: 30000 })
    const edited = { workload: { kind: 'synthetic', inputTokens: { mean: -1 } }, load: { concurrency: 1 } }
    expect(canonicalConfig(edited)).toBe(edited)
  })
})

describe('one baseline entry however the defaults are spelled', () => {
  test('{ rate, requests } recorded, the same with arrival and drainGraceMs written out compares; a real change is a mismatch', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-identity-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'identity.bench.ts')
    const run = (load: LoadOptions, update: 'all' | 'none') =>
      runBench({
        name: 'open',
        file,
        options: bench(synthetic, load),
        provided: { update, ci: update === 'none' },
      })
    const recorded = await run({ rate: 50, requests: 20 }, 'all')
    expectRecorded(recorded.judgement, recorded.result)
    const spelled = await run({ rate: 50, requests: 20, arrival: 'poisson', drainGraceMs: 30000 }, 'none')
    expect(spelled.judgement.baselineState).toBe('compare')
    const stored = JSON.parse(await readFile(join(dir, '__llm_baselines__', 'identity.bench.ts.json'), 'utf8')) as {
      entries: Record<string, { config?: { load?: unknown } }>
    }
    expect(Object.keys(stored.entries)).toEqual(['open'])
    // The file holds the load as it ran: the defaults are written out.
    expect(stored.entries.open?.config?.load).toEqual({
      rate: 50,
      requests: 20,
      arrival: 'poisson',
      drainGraceMs: 30000,
    })
    const constant = await run({ rate: 50, requests: 20, arrival: 'constant' }, 'none')
    expect(constant.judgement.baselineState).toBe('mismatch')
    expect(constant.judgement.failure).toContain('load.arrival "poisson" -> "constant"')
  }, 60_000)

  test('a baseline file written before defaults were written out still matches, spelled either way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-identity-old-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'identity.bench.ts')
    const path = join(dir, '__llm_baselines__', 'identity.bench.ts.json')
    // The fixture was recorded by the code before this change (raw configs, their hashes) on another
    // machine: give it this machine's fingerprint, which is not what is tested here.
    const probe = join(dir, 'probe.bench.ts')
    await runBench({
      name: 'probe',
      file: probe,
      options: bench(synthetic, { concurrency: 2, requests: 10 }),
      provided: { update: 'all', ci: false },
    })
    const here = JSON.parse(await readFile(join(dir, '__llm_baselines__', 'probe.bench.ts.json'), 'utf8')) as {
      entries: { probe: { fingerprint: unknown } }
    }
    await mkdir(join(dir, '__llm_baselines__'), { recursive: true })
    await copyFile(FIXTURE, path)
    const old = JSON.parse(await readFile(path, 'utf8')) as {
      entries: Record<string, { fingerprint: unknown; configHash: string }>
    }
    for (const entry of Object.values(old.entries)) entry.fingerprint = here.entries.probe.fingerprint
    await writeFile(path, JSON.stringify(old))
    const compared = (name: string, workload: WorkloadOptions, load: LoadOptions) =>
      runBench({ name, file, options: bench(workload, load), provided: { update: 'none', ci: true } })

    // Recorded as { rate: 50, requests: 30 }: now spelled with its defaults.
    const open = await compared(
      'open loop',
      { ...synthetic, inputTokens: { mean: 32, stddev: 0 }, ignoreEos: true },
      { rate: 50, requests: 30, arrival: 'poisson', drainGraceMs: 30000 },
    )
    expect(open.judgement.failure).toBeUndefined()
    expect(open.judgement.baselineState).toBe('compare')
    // Recorded with stddev, ignoreEos and drainGraceMs written out: now left out.
    const closed = await compared('closed loop', synthetic, { concurrency: 2, requests: 30 })
    expect(closed.judgement.baselineState).toBe('compare')
    // Comparing wrote nothing: the file is as the old code left it.
    const after = JSON.parse(await readFile(path, 'utf8')) as typeof old
    expect(Object.values(after.entries).map((entry) => entry.configHash)).toEqual(
      Object.values(old.entries).map((entry) => entry.configHash),
    )
  }, 60_000)
})
