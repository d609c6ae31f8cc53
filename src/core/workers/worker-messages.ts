import type { ResolvedTarget } from '../client/index.ts'
import type { ScheduleLag } from '../load/index.ts'
import type { MetricsSnapshot } from '../metrics/index.ts'
import type { GoodputLimits, ResolvedLoad, ResolvedWarmup } from '../contract/options.ts'
import type { StallReport, Timeline } from '../contract/result.ts'
import type { RequestShape, WorkloadOptions } from '../contract/workload-options.ts'
import type { DelaySummary } from './measured-phase.ts'

/** What a load worker gets at start (`workerData`): plain data only, no functions or signals. */
export interface LoadWorkerData {
  target: ResolvedTarget
  workload: WorkloadOptions
  /** The workload's tools, resolved by the plan. */
  shape: RequestShape | undefined
  /** The coordinator's workload salt, so every thread builds the same prompts for an index. */
  salt: string | undefined
  seed: number
  /** This thread, 0-based, of {@link threads}: it runs slice `thread + 1` of `threads` of the one global schedule. */
  thread: number
  threads: number
  /** The whole load and warm-up, as one thread would run them (each thread takes its slice: `segmentShare`). */
  load: ResolvedLoad
  warmup: ResolvedWarmup | undefined
  recordRequests: boolean
  goodput: GoodputLimits | undefined
  /** Shared monotonic clock minus the coordinator's `performance.now()`, ms: how the worker converts times. */
  coordinatorClockOffsetMs: number
}

/** Coordinator to worker. */
export type CoordinatorMessage =
  /** Start the measured load at `at` (the coordinator's `performance.now()` clock). */
  | { type: 'go'; at: number }
  /** The run was aborted: stop sending and cancel what is in flight. */
  | { type: 'abort' }

/** Worker to coordinator. */
export type WorkerMessage =
  /** Warm-up done, connections open: waiting for `go`. */
  | { type: 'ready' }
  /** Progress since the start of the measurement (sent at most every few hundred ms, and at the end). */
  | {
      type: 'progress'
      done: number
      outputTokens: number
      ttftMs: number | undefined
      silentMs?: number
      inFlight?: number
    }
  /** The thread's measurement, times already on the coordinator's clock. */
  | { type: 'done'; phase: WorkerPhase }
  | { type: 'error'; error: { name: string; type: string | undefined; message: string; stack: string | undefined } }

/** A thread's measured phase, serialisable, times on the coordinator's `performance.now()` clock. */
export interface WorkerPhase {
  snapshot: MetricsSnapshot
  timeline: Timeline | undefined
  startedAt: number
  endedAt: number
  dispatched: number
  cancelled: number
  stoppedBy: string
  scheduleLagMs: ScheduleLag | undefined
  generatorLagMs: ScheduleLag | undefined
  eventLoopDelayMs: DelaySummary | undefined
  warnings: string[]
  /** Set when this thread's phase stopped because the server stopped answering. */
  stall: StallReport | undefined
}
