/** Relative dataset paths resolve from RunContext.baseDir (a bench passes its file's folder), in worker threads too. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runBenchmark } from '../../src/core/run.ts'
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts'

describe('workload file paths', () => {
  let sim: RunningSimulator
  beforeAll(async () => {
    sim = await startSimulator({ speedFactor: 0 })
  })
  afterAll(async () => {
    await sim.close()
  })

  it("resolves a relative dataset path from RunContext.baseDir (a bench file's folder), in worker threads too", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'llm-dataset-'))
    try {
      await mkdir(join(dir, 'data'))
      await writeFile(
        join(dir, 'data', 'chat.jsonl'),
        '{"prompt":"hello there","max_tokens":4}\n{"prompt":"another prompt","max_tokens":4}\n',
      )
      const options = {
        target: { baseUrl: sim.url },
        workload: { kind: 'jsonl' as const, path: 'data/chat.jsonl' },
        load: { concurrency: 2, requests: 4 },
      }
      for (const workers of [1, 2]) {
        const result = await runBenchmark({ ...options, workers }, { skipGpu: true, baseDir: dir })
        expect(result.counts).toEqual({ total: 4, completed: 4, failed: 0 })
        // The result keeps the path as written: a baseline does not depend on where the repository lies.
        expect(result.config.workload).toMatchObject({ path: 'data/chat.jsonl' })
      }
      // Without a baseDir it resolves from the working directory (the repository), where there is no such file.
      await expect(runBenchmark(options, { skipGpu: true })).rejects.toThrow(/data\/chat\.jsonl.*file not found/s)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
