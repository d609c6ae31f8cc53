import type { ResolvedLoad } from '../contract/options.ts'
import type { ArrivalSchedule } from './arrival-schedule.ts'
import type { InFlightRequests } from './in-flight.ts'
import { SendBurst, stopBeforeSend, type StopReason } from './send-loop.ts'
import { yieldToEventLoop } from './waker.ts'

/**
 * The scheduler sleeps on a timer until this close to a planned send, then yields to the event
 * loop (setImmediate) until the time comes: timers have a 1 ms granularity and often fire late
 * by about that much, while a setImmediate turn takes microseconds and still lets I/O run.
 */
const SPIN_WINDOW_MS = 1.5

/** How late the sends were against their plan, ms, filled in as they happen. */
export interface SendLags {
  /** Every send's lag (actual minus planned send time). */
  all: number[]
  /** The lags of sends that did not wait for a concurrency slot: the load generator's own. */
  unheld: number[]
  /** Sends that waited for a slot. */
  held: number
}

/**
 * The open loop and trace replay: each request at its planned offset from `originAt`, waiting for
 * a free slot when `cap` are in flight (a wait past `deadline` stops the run rather than send
 * backlog), until a stop rule holds. Undefined when a dispatch failed.
 */
export async function driveScheduledSends(
  run: InFlightRequests,
  schedule: Extract<ArrivalSchedule, { kind: 'open' | 'trace' }>,
  load: ResolvedLoad,
  originAt: number,
  deadline: number,
  signal: AbortSignal | undefined,
  lags: SendLags,
): Promise<StopReason | undefined> {
  const burst = new SendBurst()
  let currentHeld = false
  for (;;) {
    if (burst.long) {
      burst.paused()
      await yieldToEventLoop()
    }
    const stop = stopBeforeSend(run, schedule, load, signal)
    if (stop === 'failed') return undefined
    if (stop) return stop
    const offset = schedule.offsets[run.dispatched] ?? 0
    if (load.durationMs !== undefined && offset > load.durationMs) return 'duration'
    const plannedAt = originAt + offset
    const now = performance.now()
    if (plannedAt > now) burst.paused()
    if (plannedAt - now > SPIN_WINDOW_MS) await run.waker.wait(plannedAt - now - SPIN_WINDOW_MS)
    else if (plannedAt > now) await yieldToEventLoop()
    else if (run.size >= schedule.cap) {
      // Waiting for a slot past the duration would only send backlog: stop instead.
      if (now >= deadline) return 'duration'
      currentHeld = true
      burst.paused()
      await run.waker.wait(deadline - now)
    } else {
      const lag = now - plannedAt
      lags.all.push(lag)
      if (currentHeld) lags.held++
      else lags.unheld.push(lag)
      currentHeld = false
      run.send(run.dispatched, plannedAt)
      burst.sent()
    }
  }
}
