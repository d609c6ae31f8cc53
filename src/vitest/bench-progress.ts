// A namespace import: `recordArtifact` is new in Vitest 4, and a named import of it would stop the
// package from loading on Vitest 3 before the plugin can say which Vitest it needs.
import * as vitestApi from 'vitest'
import type { RunnerTestCase } from 'vitest'
import type { Progress } from '../core/contract/options.ts'
import {
  PROGRESS_ARTIFACT_TYPE,
  STEP_ARTIFACT_TYPE,
  type BenchProgressArtifact,
} from '../../reporters/progress-artifact.ts'

/** Default interval between two progress artifacts of one bench, milliseconds. */
export const PROGRESS_INTERVAL_MS = 1000

/** Requests behind the live TTFT median: recent enough to follow the load, enough to be stable. */
const RECENT_TTFT_WINDOW = 256

/** Forwards a bench's progress to reporters, at most once per interval. */
export interface ProgressForwarder {
  /** `stage`: the trial or sweep point the progress is of (`trial 2`, `-np 4, point 3 of 4`). */
  onProgress(progress: Progress, stage?: string): void
  /** Waits for the artifact in flight, so none arrives after the test ended. */
  settle(): Promise<void>
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]
}

/**
 * Records `vitest-llm-bench:progress` artifacts on the running test (`ctx.task`), throttled to
 * one per `intervalMs` and never two in flight, so a fast run does not flood the RPC channel.
 */
export function forwardProgress(task: RunnerTestCase, intervalMs = PROGRESS_INTERVAL_MS): ProgressForwarder {
  const recent: number[] = []
  let lastSent = Number.NEGATIVE_INFINITY
  let inFlight: Promise<unknown> | undefined
  let silenceSent = false
  let lastStage: string | undefined
  return {
    onProgress(progress, stage) {
      // A new trial or point is said at once, and its TTFT median starts afresh.
      const newStage = stage !== lastStage
      if (newStage) {
        lastStage = stage
        recent.length = 0
        silenceSent = false
      }
      if (progress.ttftMs !== undefined) {
        recent.push(progress.ttftMs)
        if (recent.length > RECENT_TTFT_WINDOW) recent.shift()
      }
      const now = performance.now()
      // A server falling silent is said at once, not at the next interval.
      const newSilence = progress.silentMs !== undefined && !silenceSent
      // A safety stop is said at once too, and even while an earlier artifact is on its way (it comes once).
      const stopping = progress.stopping !== undefined || progress.soakWindow !== undefined
      if (!stopping && (inFlight !== undefined || (now - lastSent < intervalMs && !newSilence && !newStage))) return
      if (!stopping && progress.total !== undefined && progress.done >= progress.total) return
      lastSent = now
      silenceSent = progress.silentMs !== undefined
      const artifact: BenchProgressArtifact = {
        type: PROGRESS_ARTIFACT_TYPE,
        done: progress.done,
        elapsedMs: progress.elapsedMs,
        outputTokens: progress.outputTokens,
      }
      if (progress.total !== undefined) artifact.total = progress.total
      if (stage !== undefined) artifact.stage = stage
      const ttft = median(recent)
      if (ttft !== undefined) artifact.ttftP50Ms = ttft
      if (progress.silentMs !== undefined) {
        artifact.silentMs = progress.silentMs
        artifact.inFlight = progress.inFlight ?? 0
      }
      if (progress.stopping !== undefined) artifact.stopping = progress.stopping
      if (progress.soakWindow !== undefined) artifact.soakWindow = progress.soakWindow
      // Progress is best effort: a reporter channel that fails must not fail the bench.
      // A stop line may go while another is on its way: settle waits for both.
      const sent: Promise<unknown> = Promise.all([
        inFlight,
        vitestApi.recordArtifact(task, artifact).catch(() => undefined),
      ]).finally(() => {
        if (inFlight === sent) inFlight = undefined
      })
      inFlight = sent
    },
    async settle() {
      await inFlight
    },
  }
}

/** Forwards the steps of a longer run (a compare's pairs) to reporters, each as one line. */
export interface StepForwarder {
  /** The whole line, the bench's name first. */
  log(line: string): void
  /** Waits for the steps in flight, so none arrives after the test ended. */
  settle(): Promise<void>
}

/**
 * Records `vitest-llm-bench:step` artifacts on the running test: a reporter prints each as one line (at its
 * progress interval), where `console.log` in a test would print three (Vitest's header, the line, a blank).
 */
export function forwardSteps(task: RunnerTestCase): StepForwarder {
  let sent: Promise<unknown> = Promise.resolve()
  return {
    log(line) {
      // Best effort, in order: a reporter channel that fails must not fail the bench.
      sent = sent.then(() => vitestApi.recordArtifact(task, { type: STEP_ARTIFACT_TYPE, line }).catch(() => undefined))
    },
    async settle() {
      await sent
    },
  }
}
