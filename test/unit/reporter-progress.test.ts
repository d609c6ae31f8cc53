import { describe, expect, test } from 'vitest'
import { forwardProgress } from '../../src/vitest/bench-progress.ts'
import { isBenchProgressArtifact, PROGRESS_ARTIFACT_TYPE } from '../../reporters/progress-artifact.ts'

describe('forwardProgress (worker side of the live progress line)', () => {
  test('records one progress artifact per interval on the running test, with the recent TTFT median', async ({
    task,
  }) => {
    const forwarder = forwardProgress(task, 60_000)
    forwarder.onProgress({ done: 1, total: 10, elapsedMs: 100, outputTokens: 32, ttftMs: 40 })
    await forwarder.settle()
    // Within the interval: nothing more is sent, but TTFTs still count towards the median.
    forwarder.onProgress({ done: 2, total: 10, elapsedMs: 200, outputTokens: 64, ttftMs: 60 })
    forwarder.onProgress({ done: 3, total: 10, elapsedMs: 300, outputTokens: 96 })
    await forwarder.settle()
    const progress = task.artifacts.filter(isBenchProgressArtifact)
    expect(progress).toHaveLength(1)
    expect(progress[0]).toMatchObject({
      type: PROGRESS_ARTIFACT_TYPE,
      done: 1,
      total: 10,
      elapsedMs: 100,
      outputTokens: 32,
      ttftP50Ms: 40,
    })
  })

  test('sends again after the interval, and never for the last request', async ({ task }) => {
    const forwarder = forwardProgress(task, 0)
    for (const [done, ttftMs] of [
      [1, 30],
      [2, 50],
      [3, 10],
    ] as const) {
      forwarder.onProgress({ done, total: 4, elapsedMs: done * 100, outputTokens: done * 8, ttftMs })
      await forwarder.settle()
    }
    forwarder.onProgress({ done: 4, total: 4, elapsedMs: 400, outputTokens: 32, ttftMs: 20 })
    await forwarder.settle()
    const progress = task.artifacts.filter(isBenchProgressArtifact)
    expect(progress.map((artifact) => [artifact.done, artifact.ttftP50Ms])).toEqual([
      [1, 30],
      [2, 30],
      [3, 30],
    ])
  })

  test('a new trial or sweep point is sent at once, inside the interval, with its own TTFT median', async ({
    task,
  }) => {
    const forwarder = forwardProgress(task, 60_000)
    forwarder.onProgress({ done: 1, total: 10, elapsedMs: 100, outputTokens: 32, ttftMs: 400 }, 'trial 1')
    await forwarder.settle()
    forwarder.onProgress({ done: 2, total: 10, elapsedMs: 200, outputTokens: 64, ttftMs: 500 }, 'trial 1')
    await forwarder.settle()
    forwarder.onProgress({ done: 1, total: 10, elapsedMs: 90, outputTokens: 32, ttftMs: 20 }, 'trial 2')
    await forwarder.settle()
    const progress = task.artifacts.filter(isBenchProgressArtifact)
    expect(progress.map((artifact) => [artifact.stage, artifact.done, artifact.ttftP50Ms])).toEqual([
      ['trial 1', 1, 400],
      ['trial 2', 1, 20],
    ])
  })
})
