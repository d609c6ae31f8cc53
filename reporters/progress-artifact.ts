import type { TestArtifactBase } from 'vitest'

/** Type of the test artifact a running bench records to report its progress to the main process. */
export const PROGRESS_ARTIFACT_TYPE = 'vitest-llm-bench:progress' as const

/**
 * Progress of a running bench, sent from the worker with Vitest's `recordArtifact` (the only
 * channel from a running test to reporters); the console reporter turns it into a live line.
 */
export interface BenchProgressArtifact extends TestArtifactBase {
  type: typeof PROGRESS_ARTIFACT_TYPE
  /** Measured requests finished (ok or failed). */
  done: number
  /** Planned measured requests, when known. */
  total?: number
  /** Which part of a longer run this is: `trial 2` of a bench, `-np 4, point 3 of 4` of a sweep; absent for a single run. */
  stage?: string
  /** Milliseconds since the first measured dispatch. */
  elapsedMs: number
  /** Output tokens so far. */
  outputTokens: number
  /** Median TTFT of the most recent requests (up to 256), ms; absent before the first token. */
  ttftP50Ms?: number
  /** Present while requests are in flight and the server has sent nothing for 5 s or more: how long, ms. */
  silentMs?: number
  /** With {@link silentMs}: requests waiting. */
  inFlight?: number
  /** Present once `stopWhen` stopped the load: why (the limits exceeded, with the figures). */
  stopping?: string
  /** Present once per closed soak window: its figures in one line. */
  soakWindow?: string
}

/** Type of the test artifact a bench records as it starts a step of a longer run (a pair's arm in a compare). */
export const STEP_ARTIFACT_TYPE = 'vitest-llm-bench:step' as const

/**
 * A step of a longer run, said as it starts (`scratch > three servers: pair 2, starting ub 1`): the console reporter
 * prints it as one line, at the progress interval, where `console.log` in a test would take Vitest's three.
 */
export interface BenchStepArtifact extends TestArtifactBase {
  type: typeof STEP_ARTIFACT_TYPE
  /** The whole line, the bench's name first. */
  line: string
}

declare module 'vitest' {
  interface TestArtifactRegistry {
    'vitest-llm-bench:progress': BenchProgressArtifact
    'vitest-llm-bench:step': BenchStepArtifact
  }
}

/** True when `artifact` is a progress artifact of vitest-llm-bench. */
export function isBenchProgressArtifact(artifact: { type: string }): artifact is BenchProgressArtifact {
  return artifact.type === PROGRESS_ARTIFACT_TYPE
}

/** True when `artifact` is a step artifact of vitest-llm-bench. */
export function isBenchStepArtifact(artifact: { type: string }): artifact is BenchStepArtifact {
  return artifact.type === STEP_ARTIFACT_TYPE
}
