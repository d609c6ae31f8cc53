/** A bench that measured and then failed keeps its numbers: in the error, and for the reports. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { baselinePathFor } from '../../src/core/baseline/index.ts'
import { BaselineFileError } from '../../src/core/contract/errors.ts'
import { simulator } from '../../src/bench/bench-options.ts'
import { FailedAfterMeasuringError, runBench } from '../../src/bench/run-bench.ts'

const dir = mkdtempSync(path.join(os.tmpdir(), 'llm-after-measuring-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a baseline file broken while the load ran: the error names the file and carries what was measured', async () => {
  const file = path.join(dir, 'chat.bench.ts')
  const baseline = baselinePathFor(file)
  let broken = false
  const error = await runBench({
    name: 'breaks mid-run',
    file,
    options: {
      server: simulator({ speedFactor: 0 }),
      workload: { kind: 'synthetic', inputTokens: { mean: 8 }, outputTokens: { mean: 4 } },
      load: { concurrency: 1, requests: 20 },
      trials: { record: 1 },
    },
    provided: { update: 'new', ci: false },
    onProgress: () => {
      // Someone (a checkout, another tool) leaves a half-written file while the bench measures.
      if (broken) return
      broken = true
      mkdirSync(path.dirname(baseline), { recursive: true })
      writeFileSync(baseline, '{ "entries": ')
    },
  }).catch((e: unknown) => e)
  expect(broken).toBe(true)
  expect(error).toBeInstanceOf(FailedAfterMeasuringError)
  const failure = error as FailedAfterMeasuringError
  expect(failure.cause).toBeInstanceOf(BaselineFileError)
  expect(failure.name).toBe('BaselineFileError')
  expect(failure.message).toContain(baseline)
  expect(failure.message).toMatch(
    /\nThe load itself ran and is in the reports: breaks mid-run: 20\/20 completed, TTFT p99 \d+(\.\d+)? ms, \d+ output tok\/s\.$/,
  )
  expect(failure.result.counts).toEqual({ total: 20, completed: 20, failed: 0 })
})
