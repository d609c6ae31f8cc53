// bench.llm.compare with its arms together: faults while both servers are up. A server that dies in the middle
// of a slice, and one that cannot start beside the other, end the comparison naming the arm, and leave no
// server process behind.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeEach, describe, expect, test } from 'vitest'
import { planCompare, type BenchCompareOptions } from '../../src/bench/compare-bench-options.ts'
import { runCompareBench } from '../../src/bench/compare-bench.ts'
import { vllm } from '../../src/core/server/presets.ts'
import { expectNoProcessesWith, markerPerTest, processesWith } from '../helpers/processes.ts'

const fakeVllm = fileURLToPath(new URL('../fixtures/bin/vllm', import.meta.url))
const logDir = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-together-'))
const markerOf = markerPerTest('fake/together')
let marker = ''
beforeEach(() => {
  marker = markerOf()
})
afterAll(() => rmSync(logDir, { recursive: true, force: true }))

const fake = (mode: string, env: Record<string, string> = {}) =>
  vllm({
    model: marker,
    bin: fakeVllm,
    env: { FAKE_NODE: process.execPath, FAKE_SERVER_MODE: mode, ...env },
    logDir,
    stopGraceMs: 500,
    startTimeoutMs: 30_000,
  })

function compareOf(variants: BenchCompareOptions['variants']) {
  const options: BenchCompareOptions = {
    variants,
    control: 'control',
    arms: 'together',
    workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
    load: { concurrency: 2, requests: 40 },
    pairs: { min: 2, max: 2 },
  }
  const log: string[] = []
  const run = runCompareBench({
    name: 'together',
    file: path.join(logDir, 'together.bench.ts'),
    options,
    plan: planCompare('together', options),
    log: (line) => log.push(line),
  })
  return { run, log }
}

describe('arms together: faults with both servers up', () => {
  test('a variant killed in the middle of its second slice ends the comparison, naming it; both servers are gone', async () => {
    // Slices of 10 requests, A B B A: the variant's first slice completes 10, its second dies at the 12th.
    const { run, log } = compareOf({ control: fake('ok'), variant: fake('die-after', { FAKE_SERVER_DIE_AFTER: '12' }) })
    const outcome = await run.then(
      (value) => ({ failure: value.failure, error: undefined }),
      (error: unknown) => ({ failure: undefined, error: error as Error }),
    )
    const said = outcome.error?.message ?? outcome.failure ?? ''
    // Named either way: as a server that ended (seen between slices), or as the slice it could not serve (its
    // requests refused, when the kill lands between the check and the slice).
    expect(said).toMatch(
      /^(?:together: )?variant: (?:.*was killed by SIGKILL (?:during its trial|while idle)|.*requests failed|no request completed)/,
    )
    expect(log).toContain('together: arms together: asked for (`arms: "together"`)')
    expect(log).toContain('together: pair 1, starting control')
    expect(log).toContain('together: pair 1, starting variant')
    await expectNoProcessesWith(marker)
  }, 60_000)

  test('an arm that cannot start beside the other: the error names it and what it was beside; the other is stopped', async () => {
    const { run } = compareOf({ control: fake('ok'), variant: fake('die') })
    const error = await run.then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(error?.message).toMatch(/^variant \(arms together, beside control\): /)
    // Its log ends "CUDA out of memory": the error says what to do with two servers up on one GPU.
    expect(error?.message).toContain("Its server ran out of memory with control's up beside it (arms together).")
    expect(error?.message).toContain("`arms: 'apart'` (bench.llm.compare)")
    expect(processesWith(marker)).toHaveLength(0)
  }, 60_000)
})
