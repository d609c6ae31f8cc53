// A server upgrade is judged, not refused: the simulator reports /version 0.10.1 when the baseline
// is recorded, 0.11.0 afterwards; unchanged timing is compared and passes, twice as slow fails, and
// both name the change. Another GPU (the machine) is still refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { runBench } from '../../src/bench/run-bench.ts'
import { BaselineMismatchError } from '../../src/core/contract/errors.ts'
import { startSimulator } from '../../src/sim/index.ts'
import { AA_SIMULATOR } from '../helpers/aa-experiment.ts'
import { disturbanceNamed } from '../helpers/busy-machine.ts'
import { expectRecorded } from '../helpers/busy-machine.ts'

const dir = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-upgrade-'))
const file = path.join(dir, 'upgrade.bench.ts')
const baselineFile = path.join(dir, '__llm_baselines__', 'upgrade.bench.ts.json')

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/**
 * One bench run against a simulator reporting `version`, with every modeled delay times `speedFactor`;
 * measured again (at most 4 times) while the machine was disturbed (steal, other processes), as a user
 * would re-run it: a disturbed run is only a provisional baseline and judged inconclusive by design.
 */
async function benchOn(version: string, speedFactor: number, update: 'all' | 'none' = 'none', model?: string) {
  let outcome = await benchOnce(version, speedFactor, update, model)
  for (let attempt = 1; attempt < 4 && (outcome.result.client.selfCheck?.disturbed.length ?? 0) > 0; attempt++) {
    outcome = await benchOnce(version, speedFactor, update, model)
  }
  return outcome
}

async function benchOnce(version: string, speedFactor: number, update: 'all' | 'none', model?: string) {
  const sim = await startSimulator({ ...AA_SIMULATOR, version, speedFactor, ...(model ? { model } : {}) })
  try {
    return await runBench({
      name: model ? 'quantization' : 'upgrade',
      file,
      options: {
        target: { baseUrl: sim.url },
        workload: { kind: 'synthetic', inputTokens: { mean: 64 }, outputTokens: { mean: 4 } },
        load: { concurrency: 1, requests: 40 },
        warmup: { requests: 4 },
        seed: 11,
        baseline: { ttftMs: { p50: '+10%' } },
      },
      // Recorded with -u, compared without writing: a recording the machine disturbed stays provisional.
      provided: { update, ci: false },
    })
  } finally {
    await sim.close()
  }
}

describe('a server upgrade against a stored baseline', () => {
  test('compared and named: unchanged timing does not fail, twice as slow fails; a GPU change is refused', async () => {
    const recorded = await benchOn('0.10.1', 1, 'all')
    expectRecorded(recorded.judgement, recorded.result)
    expect(recorded.result.environment.server).toMatchObject({ name: 'vitest-llm-bench-sim', version: '0.10.1' })

    const same = await benchOn('0.11.0', 1)
    expect(same.judgement.baselineState).toBe('compare')
    expect(same.judgement.verdict?.changed).toEqual(['vitest-llm-bench-sim 0.10.1 -> 0.11.0'])
    expect(same.judgement.verdict?.status).not.toBe('fail')
    expect(same.judgement.failure).toBeUndefined()

    const slower = await benchOn('0.11.0', 2)
    expect(slower.judgement.baselineState).toBe('compare')
    // On a machine disturbed for every try the verdict cannot fail; it must say why.
    if (
      disturbanceNamed(
        [
          ...(slower.judgement.verdict?.notes ?? []),
          ...(slower.judgement.verdict?.checks ?? []).map((c) => c.reason ?? ''),
        ].join('\n'),
      ) === undefined
    ) {
      expect(slower.judgement.verdict?.status).toBe('fail')
      expect(slower.judgement.failure).toContain('Baseline comparison: vitest-llm-bench-sim 0.10.1 -> 0.11.0: FAIL')
      expect(slower.judgement.failure).toMatch(
        /- vitest-llm-bench-sim 0\.10\.1 -> 0\.11\.0: ttftMs p50 is [\d.]+ ms, baseline [\d.]+ ms: ratio/,
      )
    }

    // The stored entry as if recorded on an H200: a machine change, refused before any comparison.
    const stored = JSON.parse(readFileSync(baselineFile, 'utf8')) as {
      entries: Record<string, { fingerprint: Record<string, unknown> }>
    }
    const entry = stored.entries.upgrade
    if (entry === undefined) throw new Error('the baseline entry was not written')
    entry.fingerprint = { ...entry.fingerprint, gpuModel: 'NVIDIA H200', gpuCount: 1 }
    writeFileSync(baselineFile, JSON.stringify(stored))
    // Found before the load: the bench fails with the mismatch, nothing measured.
    const moved = await benchOn('0.11.0', 1).catch((error: unknown) => error)
    expect(moved).toBeInstanceOf(BaselineMismatchError)
    expect((moved as Error).message).toContain('recorded on another machine: GPU NVIDIA H200 -> none')
  }, 300_000)

  test('another model (a quantization) is software under test: compared and named, not another workload', async () => {
    const recorded = await benchOn('0.11.0', 1, 'all', 'llama-8b-fp16')
    // Written, or updated by a re-run after a disturbed one (provisional on a busy machine, named).
    if (recorded.judgement.baselineState !== 'updated') expectRecorded(recorded.judgement, recorded.result)
    const quantized = await benchOn('0.11.0', 1, 'none', 'llama-8b-awq')
    expect(quantized.judgement.baselineState).toBe('compare')
    expect(quantized.judgement.verdict?.changed).toEqual(['model llama-8b-fp16 -> llama-8b-awq'])
    expect(quantized.judgement.verdict?.status).not.toBe('fail')
    expect(quantized.judgement.failure).toBeUndefined()
  }, 300_000)
})
