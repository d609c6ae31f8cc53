import { OptionsError } from '../contract/errors.ts'
import type { LoadOptions } from '../contract/types.ts'
import { planArrivals, plannedArrivalCount } from './plan-arrivals.ts'
import { rampOf, rampTimeOf, rampValueAt } from './ramp.ts'
import { summarizeLag } from './schedule-lag.ts'
import type { ScheduleLag } from './schedule-lag.ts'
import { Waker, yieldToEventLoop } from './waker.ts'

/** Sends request `index`; resolves when it finished (ok or failed). The signal aborts it (drain grace over or run aborted). */
export type DispatchRequest = (index: number, plannedAt: number | undefined, signal: AbortSignal) => Promise<void>

export interface LoadRunOptions {
  load: LoadOptions
  /** Seed of the arrival schedule. */
  seed: number
  /**
   * Sends request `index`; resolves when it finished (ok or failed). `plannedAt` is the planned
   * send time (`performance.now()` clock) for open loops and trace replay, undefined for a closed
   * loop. The signal aborts the request (drain grace over, or run aborted). A rejection is a bug:
   * the run stops, cancels what is in flight and rejects with it.
   */
  dispatch: DispatchRequest
  /** Trace replay: fixed planned offsets (ms) from the workload; overrides the arrival process. */
  timestampsMs?: number[]
  /** Aborts the run: nothing more is sent and in-flight requests are cancelled at once. */
  signal?: AbortSignal
}

export interface LoadRunOutcome {
  /** `performance.now()` of the first dispatch (the origin when nothing was sent). */
  startedAt: number
  /**
   * `performance.now()` the planned offsets count from (closed loop: the first dispatch). Open
   * loop: one inter-arrival gap before the first send, where vLLM `bench serve` starts its clock;
   * measure the duration from here to compare throughput with vLLM.
   */
  originAt: number
  /** `performance.now()` when the last request finished. */
  endedAt: number
  /** Measured requests handed to `dispatch`. */
  dispatched: number
  /** Requests still in flight when the drain grace ended or the run was aborted, whose signals were aborted. */
  cancelled: number
  stoppedBy: 'requests' | 'duration' | 'signal' | 'trace-end'
  /**
   * Actual minus planned send time, ms (open loop and trace replay only). Always measured against
   * the planned time: under a concurrency cap it includes the wait for a free slot.
   */
  scheduleLagMs?: ScheduleLag
  /**
   * The load generator's own lag: {@link scheduleLagMs} over the sends that did not wait for a
   * concurrency slot. A p99 above {@link SCHEDULE_LAG_WARN_MS} means the client, not the server,
   * shaped the load (a warning says so); a cap's waits do not count here.
   */
  generatorLagMs?: ScheduleLag
  /** For humans: generator lag, cap waits, cancellations, ignored options. */
  warnings: string[]
}

/** Lag p99 above which the load generator, not the server, is said to have shaped the load. */
export const SCHEDULE_LAG_WARN_MS = 5
/** Default time in-flight requests get to finish after the stop, ms. */
export const DEFAULT_DRAIN_GRACE_MS = 30_000
/**
 * The scheduler sleeps on a timer until this close to a planned send, then yields to the event
 * loop (setImmediate) until the time comes: timers have a 1 ms granularity and often fire late
 * by about that much, while a setImmediate turn takes microseconds and still lets I/O run.
 */
const SPIN_WINDOW_MS = 1.5
/** Sends in a row before the loop lets pending I/O run. */
const MAX_SENDS_WITHOUT_YIELD = 32
/** How long aborted requests get to settle before the run gives up on them, ms. */
const SETTLE_AFTER_ABORT_MS = 5_000

/**
 * Drives `dispatch` with the load's shape until a stop rule holds, then drains.
 *
 * - Closed loop (`concurrency`, no `rate`; neither given means concurrency 1): exactly that many
 *   in flight, each completion starting the next; `rampUp` ramps the concurrency.
 * - Open loop (`rate`): sends at the times {@link planArrivals} plans; `concurrency` caps the
 *   requests in flight (a send waits for a free slot). `rate: Infinity` plans every send at once.
 * - Trace replay (`timestampsMs`): sends at the trace's offsets; `concurrency` still caps.
 *
 * Stops after `requests` sends or `durationMs` (open loops: the planned time passes it; closed
 * loops: the wall clock does), whichever comes first, or at the trace's end; then in-flight
 * requests get `drainGraceMs` to finish before their signals abort and they count as cancelled.
 * One loop does all sends, so send order equals index order.
 */
export async function runLoad(options: LoadRunOptions): Promise<LoadRunOutcome> {
  const { load, seed, dispatch, timestampsMs, signal } = options
  const trace = timestampsMs !== undefined
  if (trace) validateTimestamps(timestampsMs)

  const warnings: string[] = []
  const drainGraceMs = load.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS
  let offsets: ArrayLike<number> | undefined
  let limit: number
  if (trace) {
    offsets = timestampsMs
    limit = Math.min(load.requests ?? Infinity, timestampsMs.length)
    const ignored = (['rate', 'arrival', 'burstiness'] as const).filter((key) => load[key] !== undefined)
    if (ignored.length > 0) warnings.push(`load.${ignored.join(', load.')} ignored: the trace's timestamps set every send time.`)
    if (load.requests !== undefined && load.requests > timestampsMs.length) {
      warnings.push(`load.requests (${load.requests}) exceeds the trace's ${timestampsMs.length} entries: replay stopped at the end of the trace.`)
    }
  } else if (load.rate !== undefined && !(load.rate === Infinity && load.requests === undefined)) {
    limit = plannedArrivalCount(load)
    offsets = planArrivals(load, seed, limit)
  } else {
    // Includes `rate: Infinity` with `concurrency` and no `requests`: a closed loop at the cap.
    offsets = undefined
    limit = load.requests ?? Infinity
  }
  const openLoop = offsets !== undefined
  const cap = load.concurrency ?? (openLoop ? Infinity : 1)
  const concurrencyRamp = !openLoop ? rampOf(load, cap) : undefined

  const inFlight = new Map<number, AbortController>()
  const waker = new Waker()
  const lags: number[] = []
  const lagsUnheld: number[] = []
  let held = 0
  let dispatched = 0
  let cancelled = 0
  let stoppedBy: LoadRunOutcome['stoppedBy'] | undefined
  let failure: { error: unknown } | undefined
  let firstDispatchAt: number | undefined
  let lastEndAt: number | undefined

  const onAbort = (): void => waker.wake()
  signal?.addEventListener('abort', onAbort, { once: true })

  const send = (index: number, plannedAt: number | undefined): void => {
    const controller = new AbortController()
    inFlight.set(index, controller)
    dispatched++
    firstDispatchAt ??= performance.now()
    let pending: Promise<void>
    try {
      pending = Promise.resolve(dispatch(index, plannedAt, controller.signal))
    } catch (error) {
      pending = Promise.reject(error)
    }
    pending
      .catch((error: unknown) => {
        failure ??= { error }
      })
      .finally(() => {
        inFlight.delete(index)
        lastEndAt = performance.now()
        waker.wake()
      })
  }

  const abortInFlight = (): void => {
    for (const controller of inFlight.values()) {
      if (!controller.signal.aborted) {
        controller.abort()
        cancelled++
      }
    }
  }

  const originAt = performance.now()
  const deadline = load.durationMs !== undefined ? originAt + load.durationMs : Infinity
  let currentHeld = false
  let burst = 0
  try {
    while (stoppedBy === undefined) {
      // A long run of sends without a pause (rate Infinity, a large concurrency, catching up after
      // a stall) would keep responses of earlier requests unread, and so inflate their latencies.
      if (burst >= MAX_SENDS_WITHOUT_YIELD) {
        burst = 0
        await yieldToEventLoop()
      }
      if (signal?.aborted) stoppedBy = 'signal'
      else if (failure) break
      else if (dispatched >= limit) {
        const traceEnded = trace && dispatched >= timestampsMs.length && (load.requests === undefined || load.requests > timestampsMs.length)
        // A duration-only open loop plans exactly the arrivals within its duration.
        stoppedBy = traceEnded ? 'trace-end' : load.requests === undefined && !trace ? 'duration' : 'requests'
      } else if (offsets) {
        const offset = offsets[dispatched] ?? 0
        if (load.durationMs !== undefined && offset > load.durationMs) {
          stoppedBy = 'duration'
          break
        }
        const plannedAt = originAt + offset
        const now = performance.now()
        if (plannedAt > now) burst = 0
        if (plannedAt - now > SPIN_WINDOW_MS) await waker.wait(plannedAt - now - SPIN_WINDOW_MS)
        else if (plannedAt > now) await yieldToEventLoop()
        else if (inFlight.size >= cap) {
          // Waiting for a slot past the duration would only send backlog: stop instead.
          if (now >= deadline) stoppedBy = 'duration'
          else {
            currentHeld = true
            burst = 0
            await waker.wait(deadline - now)
          }
        } else {
          const lag = now - plannedAt
          lags.push(lag)
          if (currentHeld) held++
          else lagsUnheld.push(lag)
          currentHeld = false
          send(dispatched, plannedAt)
          burst++
        }
      } else {
        const now = performance.now()
        if (now >= deadline) {
          stoppedBy = 'duration'
          break
        }
        const elapsed = firstDispatchAt === undefined ? 0 : now - firstDispatchAt
        const allowed = concurrencyRamp ? Math.max(1, Math.floor(rampValueAt(concurrencyRamp, elapsed) + 1e-9)) : cap
        if (inFlight.size < allowed) {
          send(dispatched, undefined)
          burst++
        } else {
          burst = 0
          let wakeAt = deadline
          if (concurrencyRamp && elapsed < concurrencyRamp.durationMs && firstDispatchAt !== undefined) {
            const step = rampTimeOf(concurrencyRamp, allowed + 1)
            if (step !== undefined) wakeAt = Math.min(wakeAt, firstDispatchAt + step)
          }
          await waker.wait(wakeAt - now)
        }
      }
    }

    if (stoppedBy === 'signal' || failure) abortInFlight()
    else {
      const graceEnd = performance.now() + drainGraceMs
      while (inFlight.size > 0 && !signal?.aborted && !failure) {
        const left = graceEnd - performance.now()
        if (left <= 0) break
        await waker.wait(left)
      }
      abortInFlight()
    }
    const settleEnd = performance.now() + SETTLE_AFTER_ABORT_MS
    while (inFlight.size > 0) {
      const left = settleEnd - performance.now()
      if (left <= 0) {
        warnings.push(`${inFlight.size} cancelled requests did not settle within ${SETTLE_AFTER_ABORT_MS} ms of their abort signal: the dispatch function ignores it.`)
        break
      }
      await waker.wait(left)
    }
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  if (failure) throw failure.error

  if (cancelled > 0) {
    warnings.push(
      stoppedBy === 'signal' || signal?.aborted
        ? `${cancelled} in-flight requests were cancelled because the run was aborted.`
        : `${cancelled} requests were still in flight ${drainGraceMs} ms after the stop and were cancelled (load.drainGraceMs).`,
    )
  }
  const scheduleLagMs = openLoop ? summarizeLag(lags) : undefined
  const unheldLag = summarizeLag(lagsUnheld)
  if (unheldLag && unheldLag.p99 > SCHEDULE_LAG_WARN_MS) {
    warnings.push(
      `Send times lagged the schedule by ${unheldLag.p99.toFixed(1)} ms at p99 (over ${SCHEDULE_LAG_WARN_MS} ms): the client, not the server, shaped the load. Run the load generator on a less busy machine or lower the rate.`,
    )
  }
  if (held > 0) {
    warnings.push(`${held} of ${lags.length} requests waited for a free slot under load.concurrency = ${cap}: their send times, and scheduleLagMs, reflect that cap rather than the arrival schedule.`)
  }
  const startedAt = firstDispatchAt ?? originAt
  const outcome: LoadRunOutcome = {
    startedAt,
    originAt: openLoop ? originAt : startedAt,
    endedAt: lastEndAt ?? performance.now(),
    dispatched,
    cancelled,
    stoppedBy: stoppedBy ?? 'signal',
    warnings,
  }
  if (scheduleLagMs) outcome.scheduleLagMs = scheduleLagMs
  if (openLoop && unheldLag) outcome.generatorLagMs = unheldLag
  return outcome
}

function validateTimestamps(timestampsMs: number[]): void {
  let previous = 0
  for (let i = 0; i < timestampsMs.length; i++) {
    const t = timestampsMs[i]
    if (typeof t !== 'number' || !Number.isFinite(t) || t < previous) {
      throw new OptionsError(
        `timestampsMs[${i}]`,
        `must be a finite number of milliseconds >= 0 and >= the one before (${previous}), got ${String(t)}`,
        'Sort the trace by timestamp and count offsets from its start.',
      )
    }
    previous = t
  }
}
