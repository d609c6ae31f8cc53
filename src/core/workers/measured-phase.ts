import { endToEndMs, timeToFirstTokenMs } from '../metrics/request-latency.ts'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { LatenessMonitor, readTicksSoFar } from '../client/index.ts'
import type { StreamingClient } from '../client/index.ts'
import { runLoad, runWarmup, startStallWatch, StopWhenStop, StopWhenWatch } from '../load/index.ts'
import type { LoadRunOutcome } from '../load/index.ts'
import { MetricsAccumulator, SessionsAccumulator, TimelineAccumulator } from '../metrics/index.ts'
import { runSession, type SessionTurnSender } from '../sessions/index.ts'
import type { ApiKind } from '../contract/api-kinds.ts'
import type { GoodputLimits, ResolvedLoad, Progress, ResolvedStopWhen, ResolvedWarmup } from '../contract/options.ts'
import type { PreparedRequest, RequestRecord, SessionTurnRef } from '../contract/request-record.ts'
import type { StallReport, StopReport, Timeline } from '../contract/result.ts'
import { isSessionWorkload, type SessionWorkload, type Workload } from '../workload/index.ts'

/** p50, p99 and max of a delay, milliseconds. */
export interface DelaySummary {
  p50: number
  p99: number
  max: number
}

/** What one thread measures: its share of the load, with its own client. */
export interface MeasuredPhaseOptions {
  client: StreamingClient
  /** The target's API: how a session's history is sent (messages or one prompt). */
  api: ApiKind
  workload: Workload
  /** This thread's load (the whole load when one thread runs it). */
  load: ResolvedLoad
  /** Seed of this thread's arrival schedule. */
  seed: number
  /** This thread's warm-up, sent before the measurement (its concurrency resolved by the plan). */
  warmup?: ResolvedWarmup
  /** Trace replay: this thread's planned offsets, ms. */
  timestampsMs?: number[]
  signal?: AbortSignal
  recordRequests?: boolean
  goodput?: GoodputLimits
  /** The workload index of load request `local` (several threads: `local × threads + thread`). Default: the same. */
  indexOf?: (local: number) => number
  /**
   * Runs after the warm-up, right before the first measured send (GPU sampler mark, thread
   * barrier). May return the `performance.now()` the timeline's windows count from (threads share
   * one start); by default they count from the first measured dispatch.
   */
  beforeLoad?: () => Promise<number | void> | number | void
  /**
   * The planned offsets count from the `performance.now()` that `beforeLoad` returns (the threads' common start),
   * not from when this load begins: the threads' slices then keep the one schedule's offsets between them.
   */
  originAtStart?: boolean
  /**
   * Called after each measured request, synchronously (keep it cheap), with the request's record;
   * and, without one, every half second while the server is silent (`progress.silentMs`). `total`
   * is this thread's planned count.
   */
  onProgress?: (progress: Progress, record?: RequestRecord) => void
  /** Silence with requests in flight (warm-up included) after which the phase stops, ms: the target's `stallTimeoutMs`. */
  stallTimeoutMs: number
  /** The safety stop: the measured load stops (in-flight requests cancelled) when its condition held for `forMs`. */
  stopWhen?: ResolvedStopWhen
}

/** The outcome of {@link runMeasuredPhase}, times on this thread's `performance.now()` clock. */
export interface MeasuredPhase {
  accumulator: MetricsAccumulator
  outcome: LoadRunOutcome
  timeline: Timeline | undefined
  /** Event-loop delay of this thread during the measurement, ms (undefined when the runtime cannot measure it). */
  eventLoopDelayMs: DelaySummary | undefined
  /** Session workloads: the per-turn and per-session figures. */
  sessions?: SessionsAccumulator
  /** Set when the server stopped answering and the phase was stopped (see `startStallWatch`). */
  stall?: StallReport
  /** Set when `stopWhen` stopped the load. */
  stopped?: StopReport
}

/** Resolution of the event-loop delay monitor, ms: also the floor of what it reports. */
export const EVENT_LOOP_RESOLUTION_MS = 10

function createEventLoopMonitor(): ReturnType<typeof monitorEventLoopDelay> | undefined {
  try {
    return monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS })
  } catch {
    // A runtime without the monitor (some Deno versions): the run goes on without the figure.
    return undefined
  }
}

/** The load of a session workload as the load driver counts it: `sessions` are its dispatches. */
function sessionLoad(load: ResolvedLoad): ResolvedLoad {
  const { sessions, ...rest } = load
  return sessions === undefined ? rest : { ...rest, requests: sessions }
}

function identity(index: number): number {
  return index
}

/**
 * Warm-up, then the measured load of one thread: every record goes into a
 * {@link MetricsAccumulator} (histograms, not arrays, unless `recordRequests`) and a timeline,
 * and the thread's event-loop delay is watched while the load runs.
 */
export async function runMeasuredPhase(options: MeasuredPhaseOptions): Promise<MeasuredPhase> {
  const { client, workload, load } = options
  const indexOf = options.indexOf ?? identity
  // A server that stops answering stops the phase (warm-up included); what finished before it is kept.
  const stopOnStall = new AbortController()
  // A safety stop (stopWhen) ends the measured load the same way: nothing more is sent, in-flight requests are cancelled.
  const stopOnCondition = new AbortController()
  const signal = AbortSignal.any([
    stopOnStall.signal,
    stopOnCondition.signal,
    ...(options.signal ? [options.signal] : []),
  ])
  let inFlight = 0
  let settled = 0
  const counted = async <T>(send: () => Promise<T>): Promise<T> => {
    inFlight++
    try {
      return await send()
    } finally {
      inFlight--
      settled++
    }
  }
  const sessions = isSessionWorkload(workload) ? new SessionsAccumulator(options.goodput) : undefined
  let done = 0
  let outputTokens = 0
  let firstDispatch: number | undefined
  const progressNow = (ttftMs: number | undefined): Progress => ({
    done,
    total: sessions === undefined ? load.requests : undefined,
    elapsedMs: firstDispatch === undefined ? 0 : performance.now() - firstDispatch,
    outputTokens,
    ttftMs,
  })
  const watch = startStallWatch({
    timeoutMs: options.stallTimeoutMs,
    activity: () => readTicksSoFar() + settled,
    inFlight: () => inFlight,
    onSilence: (silentMs, waiting) => options.onProgress?.({ ...progressNow(undefined), silentMs, inFlight: waiting }),
    onStall: () => stopOnStall.abort(new Error('the server stopped answering')),
  })
  try {
    const { warmup } = options
    // A thread's or host's share of a warm-up may hold nothing (fewer warm-up requests than shares).
    if (warmup && (warmup.requests > 0 || warmup.durationMs > 0)) {
      await runWarmup(
        warmup,
        async (index, requestSignal) => {
          // Warm-up indices are negative: -1 maps to -(indexOf(0) + 1), and so on.
          const global = -(indexOf(-index - 1) + 1)
          await counted(() => client.send(workload.next(global), { index: global, signal: requestSignal }))
        },
        signal,
      )
    }

    const accumulator = new MetricsAccumulator({ recordRequests: options.recordRequests, goodput: options.goodput })
    const eventLoop = createEventLoopMonitor()
    const lateness = new LatenessMonitor()
    let timeline: TimelineAccumulator | undefined
    const timelineStart = await options.beforeLoad?.()
    let cancelledAtStop = 0
    const stopWatch = options.stopWhen
      ? new StopWhenWatch({
          stopWhen: options.stopWhen,
          origin: () => firstDispatch,
          onStop: (trigger) => {
            options.onProgress?.({ ...progressNow(undefined), stopping: trigger.reason })
            stopOnCondition.abort(new StopWhenStop(trigger.reason))
          },
        })
      : undefined
    eventLoop?.enable()
    lateness.start()
    // Turns of a session workload are numbered in the order they are sent.
    let turnIndex = 0
    const measure = async (
      request: PreparedRequest,
      index: number,
      plannedAt: number | undefined,
      signal: AbortSignal | undefined,
      turn: SessionTurnRef | undefined,
    ): Promise<RequestRecord> => {
      const now = performance.now()
      if (timeline === undefined) {
        firstDispatch = now
        timeline = new TimelineAccumulator(typeof timelineStart === 'number' ? timelineStart : now)
      }
      timeline.dispatched(now)
      const record = await counted(() => client.send(request, { index, plannedAt, ...(signal ? { signal } : {}) }))
      record.clientLateMs = lateness.lateBetween(record.sentAt, record.endAt)
      if (turn !== undefined) {
        record.sessionTurn = turn
        sessions?.addTurn(record)
      }
      accumulator.add(record)
      timeline.finished(record)
      if (stopWatch?.trigger) {
        if (record.error?.kind === 'cancelled') cancelledAtStop++
      } else {
        stopWatch?.add({
          endAt: record.endAt,
          ok: record.ok,
          ttftMs: timeToFirstTokenMs(record),
          e2eMs: record.ok ? endToEndMs(record) : undefined,
        })
      }
      done++
      outputTokens += record.outputTokens
      options.onProgress?.(progressNow(record.ok ? timeToFirstTokenMs(record) : undefined), record)
      return record
    }
    let outcome: LoadRunOutcome
    try {
      outcome = await runLoad({
        // A session workload's load counts sessions: one dispatch runs a whole session.
        load: sessions ? sessionLoad(load) : load,
        seed: options.seed,
        signal,
        ...(options.timestampsMs ? { timestampsMs: options.timestampsMs } : {}),
        ...(options.originAtStart && typeof timelineStart === 'number' ? { originAt: timelineStart } : {}),
        dispatch: async (local, plannedAt, requestSignal) => {
          const index = indexOf(local)
          if (sessions === undefined) {
            await measure(workload.next(index), index, plannedAt, requestSignal, undefined)
            return
          }
          const script = (workload as SessionWorkload).session(index)
          const sender: SessionTurnSender = {
            api: options.api,
            send: (request, ref, planned, signal) => measure(request, turnIndex++, planned, signal, ref),
          }
          sessions.sessionEnded(await runSession(script, index, 0, sender, requestSignal, plannedAt))
        },
      })
    } finally {
      eventLoop?.disable()
      lateness.stop()
      stopWatch?.stop()
    }
    const eventLoopDelayMs =
      eventLoop && eventLoop.count > 0
        ? { p50: eventLoop.percentile(50) / 1e6, p99: eventLoop.percentile(99) / 1e6, max: eventLoop.max / 1e6 }
        : undefined
    const { stall } = watch
    const trigger = stopWatch?.trigger
    const stopped: StopReport | undefined = trigger
      ? { ...trigger, inFlightCancelled: cancelledAtStop, expected: options.stopWhen?.expected === true }
      : undefined
    return {
      accumulator,
      outcome,
      timeline: timeline?.finish(),
      eventLoopDelayMs,
      ...(sessions ? { sessions } : {}),
      ...(stall ? { stall } : {}),
      ...(stopped ? { stopped } : {}),
    }
  } finally {
    watch.stop()
  }
}
