/**
 * Entry of one load worker thread (see run-workers.ts): builds its own workload and client,
 * warms up, waits for the coordinator's `go`, runs its share of the load and posts its
 * measurement (histograms, not records, unless `recordRequests`) with times moved onto the
 * coordinator's clock.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { StreamingClient } from '../client/index.ts'
import type { RequestRecord } from '../contract/request-record.ts'
import { createWorkload } from '../workload/index.ts'
import { runMeasuredPhase } from './measured-phase.ts'
import { clockOffsetMs } from './monotonic-clock.ts'
import { segmentShare } from './segment-load.ts'
import { connectionsFor } from '../load/index.ts'
import type { CoordinatorMessage, LoadWorkerData, WorkerMessage, WorkerPhase } from './worker-messages.ts'

/** Progress posts at most this often, ms: a message per request would cost more than the request. */
const PROGRESS_INTERVAL_MS = 200

const port = parentPort
if (port === null) throw new Error('load-worker.ts runs only as a worker thread (node:worker_threads).')
const data = workerData as LoadWorkerData
/** Removes the coordinator's message listener, set by main(). */
let stopListening = (): void => {}

function post(message: WorkerMessage): void {
  port?.postMessage(message)
}

function shiftRecord(record: RequestRecord, shift: number): void {
  record.sentAt += shift
  record.endAt += shift
  if (record.plannedAt !== undefined) record.plannedAt += shift
  if (record.headersAt !== undefined) record.headersAt += shift
  if (record.firstTokenAt !== undefined) record.firstTokenAt += shift
  if (record.firstOutputAt !== undefined) record.firstOutputAt += shift
  const times = record.chunkTimes
  for (let i = 0; i < times.length; i++) times[i] = (times[i] as number) + shift
}

async function main(): Promise<void> {
  const { target, thread, threads } = data
  // This thread's time plus shift is the coordinator's time.
  const shift = clockOffsetMs() - data.coordinatorClockOffsetMs
  const abort = new AbortController()
  let goAt: number | undefined
  let release: (() => void) | undefined
  port?.on('message', onCoordinatorMessage)
  stopListening = () => port?.off('message', onCoordinatorMessage)
  function onCoordinatorMessage(message: CoordinatorMessage): void {
    if (message.type === 'abort') abort.abort(new Error('the run was aborted'))
    else if (message.type === 'go') {
      goAt = message.at - shift
      release?.()
    }
  }
  abort.signal.addEventListener('abort', () => release?.(), { once: true })

  const workload = await createWorkload(data.workload, {
    seed: data.seed,
    api: target.api,
    ...(data.salt !== undefined ? { salt: data.salt } : {}),
  })
  // This thread's slice of the one global schedule, taken as a host's segment is: `workers: N` sends at the offsets
  // `workers: 1` plans, each request by the thread that owns its index.
  const share = segmentShare(data.load, data.warmup, data.seed, workload.timestampsMs, {
    index: thread + 1,
    count: threads,
  })
  const load = share.load
  // The thread's share of a closed loop's concurrency; an open loop's bound is the whole load's.
  const client = new StreamingClient(target, {
    shape: data.shape,
    connections: connectionsFor(load.concurrency !== undefined ? load : data.load),
  })
  let lastPost = 0
  let latest: { done: number; outputTokens: number; ttftMs: number | undefined } | undefined
  try {
    const phase = await runMeasuredPhase({
      client,
      api: target.api,
      workload,
      load,
      seed: data.seed,
      warmup: share.warmup,
      signal: abort.signal,
      recordRequests: data.recordRequests,
      goodput: data.goodput,
      ...(share.timestampsMs ? { timestampsMs: share.timestampsMs } : {}),
      indexOf: share.indexOf,
      originAtStart: true,
      stallTimeoutMs: target.stallTimeoutMs,
      beforeLoad: async () => {
        post({ type: 'ready' })
        if (goAt === undefined && !abort.signal.aborted) await new Promise<void>((resolve) => (release = resolve))
        const start = goAt ?? performance.now()
        // Timers are late by ~1 ms; the last stretch yields instead so every thread starts together.
        while (performance.now() < start - 2 && !abort.signal.aborted)
          await new Promise((resolve) => setTimeout(resolve, start - 2 - performance.now()))
        while (performance.now() < start && !abort.signal.aborted) await new Promise((resolve) => setImmediate(resolve))
        return goAt
      },
      onProgress: (progress) => {
        latest = { done: progress.done, outputTokens: progress.outputTokens, ttftMs: progress.ttftMs }
        if (progress.silentMs !== undefined) {
          // Silence is posted as it is noticed, not kept as the latest completion's progress.
          post({ type: 'progress', ...latest, silentMs: progress.silentMs, inFlight: progress.inFlight ?? 0 })
          return
        }
        const now = performance.now()
        if (now - lastPost >= PROGRESS_INTERVAL_MS) {
          lastPost = now
          post({ type: 'progress', ...latest })
        }
      },
    })
    if (latest) post({ type: 'progress', ...latest })
    const snapshot = phase.accumulator.toJSON()
    if (snapshot.requests && shift !== 0) for (const record of snapshot.requests) shiftRecord(record, shift)
    const { outcome } = phase
    const result: WorkerPhase = {
      snapshot,
      timeline: phase.timeline,
      startedAt: outcome.startedAt + shift,
      endedAt: outcome.endedAt + shift,
      dispatched: outcome.dispatched,
      cancelled: outcome.cancelled,
      stoppedBy: outcome.stoppedBy,
      scheduleLagMs: outcome.scheduleLagMs,
      generatorLagMs: outcome.generatorLagMs,
      eventLoopDelayMs: phase.eventLoopDelayMs,
      warnings: outcome.warnings,
      stall: phase.stall,
    }
    post({ type: 'done', phase: result })
  } finally {
    await client.close()
  }
}

main()
  .catch((error: unknown) => {
    const e = error instanceof Error ? error : new Error(String(error))
    post({
      type: 'error',
      error: { name: e.name, type: (e as { type?: string }).type, message: e.message, stack: e.stack },
    })
  })
  .finally(() => {
    // The message listener keeps the thread alive; removing it (after the last message) lets the thread exit.
    // Deno's parentPort has no close(); Node's does, and closing it there too leaves nothing open.
    stopListening()
    if (typeof port?.close === 'function') port.close()
  })
