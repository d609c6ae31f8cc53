import { Worker } from 'node:worker_threads'
import type { ResolvedTarget } from '../client/index.ts'
import { WorkerError } from '../contract/errors.ts'
import type { GoodputLimits, ResolvedLoad, Progress, ResolvedWarmup } from '../contract/options.ts'
import type { RequestShape, WorkloadOptions } from '../contract/workload-options.ts'
import type { MeasuredPhase } from './measured-phase.ts'
import { mergePhases } from './merge-phases.ts'
import { clockOffsetMs } from './monotonic-clock.ts'
import type { CoordinatorMessage, LoadWorkerData, WorkerMessage, WorkerPhase } from './worker-messages.ts'

/** Options of {@link runWorkers}: the run's options, already validated and resolved. */
export interface RunWorkersOptions {
  /** Threads, >= 2 (validated by resolveWorkers). */
  workers: number
  target: ResolvedTarget
  workload: WorkloadOptions
  /** The workload's tools, resolved by the plan. */
  shape: RequestShape | undefined
  /** The coordinator's workload salt (`workload.describe().salt`), so threads send the prompts one thread would. */
  salt: string | undefined
  load: ResolvedLoad
  warmup?: ResolvedWarmup
  seed: number
  /** Keep every request record. */
  recordRequests: boolean
  goodput?: GoodputLimits
  signal?: AbortSignal
  /** Runs once every thread has warmed up, right before the common start (GPU sampler mark). */
  beforeLoad?: () => Promise<void> | void
  /**
   * Called as threads report (every ~200 ms each, and at their end) with the sums over threads; a
   * thread whose requests the server left silent says so (`silentMs`: each thread watches its own).
   */
  onProgress?: (progress: Progress) => void
}

/** Delay from "every thread is ready" to the common start, ms: time for the `go` message to arrive everywhere. */
const START_DELAY_MS = 5
/** How long finished threads get to exit on their own before they are terminated, ms. */
const EXIT_GRACE_MS = 5_000

/** The worker entry next to this file: `.ts` when running from the sources, `.js` when built. */
function workerUrl(): URL {
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
  return new URL(`./load-worker${extension}`, import.meta.url)
}

interface ThreadState {
  worker: Worker
  exited: Promise<void>
  ready: boolean
  phase: WorkerPhase | undefined
  done: number
  outputTokens: number
}

/**
 * Runs the measured load on `workers` worker threads, each with its own client, workload and
 * event loop, and merges what they measured: the multi-core mode of runBenchmark for loads one
 * event loop cannot carry. The coordinator (this thread) only starts, relays and merges: every
 * thread warms up, then all start together at one instant of a shared clock; counts, histograms
 * and timeline windows add up exactly, schedule lag and event-loop delay are the worst thread's.
 *
 * @throws {WorkerError} when a thread fails (the others are stopped).
 */
export async function runWorkers(options: RunWorkersOptions): Promise<MeasuredPhase> {
  const { workers: threads, signal } = options
  const coordinatorClockOffsetMs = clockOffsetMs()
  const states: ThreadState[] = []
  let goAt = 0
  let lastTtftMs: number | undefined

  let settle!: { resolve: () => void; reject: (error: unknown) => void }
  const finished = new Promise<void>((resolve, reject) => (settle = { resolve, reject }))
  let failed = false
  const fail = (error: unknown): void => {
    if (failed) return
    failed = true
    for (const state of states) void state.worker.terminate()
    settle.reject(error)
  }
  const send = (state: ThreadState, message: CoordinatorMessage): void => state.worker.postMessage(message)

  const startWhenReady = async (): Promise<void> => {
    if (!states.every((s) => s.ready)) return
    try {
      await options.beforeLoad?.()
    } catch (error) {
      fail(error)
      return
    }
    goAt = performance.now() + START_DELAY_MS
    for (const state of states) send(state, { type: 'go', at: goAt })
  }

  const onMessage = (state: ThreadState, thread: number, message: WorkerMessage): void => {
    switch (message.type) {
      case 'ready':
        state.ready = true
        void startWhenReady()
        return
      case 'progress': {
        state.done = message.done
        state.outputTokens = message.outputTokens
        if (message.ttftMs !== undefined) lastTtftMs = message.ttftMs
        let done = 0
        let outputTokens = 0
        for (const s of states) {
          done += s.done
          outputTokens += s.outputTokens
        }
        const silence =
          message.silentMs !== undefined ? { silentMs: message.silentMs, inFlight: message.inFlight ?? 0 } : {}
        options.onProgress?.({
          done,
          total: options.load.requests,
          elapsedMs: performance.now() - goAt,
          outputTokens,
          ttftMs: lastTtftMs,
          ...silence,
        })
        return
      }
      case 'done':
        state.phase = message.phase
        if (states.every((s) => s.phase !== undefined)) settle.resolve()
        return
      case 'error':
        fail(new WorkerError(thread, threads, message.error.message, message.error.type))
        return
    }
  }

  const onAbort = (): void => {
    for (const state of states) send(state, { type: 'abort' })
  }

  for (let thread = 0; thread < threads; thread++) {
    const workerData: LoadWorkerData = {
      target: options.target,
      workload: options.workload,
      shape: options.shape,
      salt: options.salt,
      seed: options.seed,
      thread,
      threads,
      load: options.load,
      warmup: options.warmup,
      recordRequests: options.recordRequests,
      goodput: options.goodput,
      coordinatorClockOffsetMs,
    }
    const worker = new Worker(workerUrl(), { workerData })
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    const state: ThreadState = { worker, exited, ready: false, phase: undefined, done: 0, outputTokens: 0 }
    states.push(state)
    worker.on('message', (message: WorkerMessage) => onMessage(state, thread, message))
    worker.on('error', (error) =>
      fail(new WorkerError(thread, threads, error instanceof Error ? error.message : String(error))),
    )
    worker.on('exit', (code) => {
      if (state.phase === undefined)
        fail(new WorkerError(thread, threads, `the thread exited (code ${code}) before it reported its measurement.`))
    })
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  if (signal?.aborted) onAbort()
  try {
    await finished
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  await Promise.all(
    states.map(async ({ worker, exited }) => {
      const timer = setTimeout(() => void worker.terminate(), EXIT_GRACE_MS)
      await exited
      clearTimeout(timer)
    }),
  )
  return mergePhases(
    states.map((s) => s.phase as WorkerPhase),
    goAt,
  )
}
